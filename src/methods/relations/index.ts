export { relationsMethod } from './relations-method.js';
export { relationsConfig } from './config.js';
export type { RelationsConfig } from './config.js';
