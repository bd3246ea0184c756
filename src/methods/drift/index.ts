export { driftMethod } from './drift-method.js';
export { driftConfig } from './config.js';
export type { DriftConfig } from './config.js';
