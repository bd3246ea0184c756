export { pprMethod } from './ppr-method.js';
export { pprConfig } from './config.js';
export type { PprConfig } from './config.js';
