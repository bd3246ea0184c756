export { kgpMethod } from './kgp-method.js';
export { kgpConfig } from './config.js';
export type { KgpConfig } from './config.js';
