export { basicMethod, reciprocalRankFusion } from './basic-method.js';
export { basicConfig } from './config.js';
export type { BasicConfig } from './config.js';
