export { localMethod } from './local-method.js';
export { localConfig } from './config.js';
export type { LocalConfig } from './config.js';
