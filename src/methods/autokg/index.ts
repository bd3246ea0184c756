export { autokgMethod } from './autokg-method.js';
export { autokgConfig } from './config.js';
export type { AutokgConfig } from './config.js';
