import { autokgMethod } from '../methods/autokg/index.js';
import { basicMethod } from '../methods/basic/index.js';
import { driftMethod } from '../methods/drift/index.js';
import { globalMethod } from '../methods/global/index.js';
import { kgpMethod } from '../methods/kgp/index.js';
import { localMethod } from '../methods/local/index.js';
import { pprMethod } from '../methods/ppr/index.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import { relationsMethod } from '../methods/relations/index.js';
import { totMethod } from '../methods/tot/index.js';

/**
 * The query methods kgrag ships, in the order their steps run in an index built for all of them: the default of
 * `createKgrag({ methods })`. A value, not a registry: each workspace holds its own list (these, or what its caller
 * passed, and the plugins its kgrag.yaml loads).
 */
export const builtInMethods: readonly AnyQueryMethod[] = [
  basicMethod,
  localMethod,
  globalMethod,
  driftMethod,
  pprMethod,
  relationsMethod,
  kgpMethod,
  autokgMethod,
  totMethod,
];
