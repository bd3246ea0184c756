export { localMethod } from './local-method.js';
export { localConfig } from './config.js';
export type { LocalConfig } from './config.js';
// Local search as a building block of other methods (DRIFT's follow-ups run it, as in GraphRAG).
export { buildLocalContext } from './build-local-context.js';
export type { LocalContext, LocalContextOptions } from './build-local-context.js';
export { localCommunities } from './local-lookups.js';
export { localSubgraph } from './local-subgraph.js';
