export { globalMethod } from './global-method.js';
export { globalConfig } from './config.js';
export type { GlobalConfig } from './config.js';
