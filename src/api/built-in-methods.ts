import { autokgMethod } from '../methods/autokg/index.js';
import { basicMethod } from '../methods/basic/index.js';
import { driftMethod } from '../methods/drift/index.js';
import { globalMethod } from '../methods/global/index.js';
import { kgpMethod } from '../methods/kgp/index.js';
import { localMethod } from '../methods/local/index.js';
import { pprMethod } from '../methods/ppr/index.js';
import type { AnyQueryMethod, QueryMethod } from '../methods/query-method.js';
import { relationsMethod } from '../methods/relations/index.js';
import { totMethod } from '../methods/tot/index.js';

function hasName<Config extends Record<string, unknown>, Name extends string>(method: QueryMethod<Config, any>, name: Name): method is QueryMethod<Config, any> & { readonly name: Name } {
  return method.name === name;
}

/**
 * A method whose name the compiler knows, so that `KgragConfig<typeof builtInMethods>` types its section by it (its
 * retrieval state stays the method's own business, as for any registry entry).
 */
function named<Config extends Record<string, unknown>, const Name extends string>(method: QueryMethod<Config, any>, name: Name): QueryMethod<Config, any> & { readonly name: Name } {
  if (!hasName(method, name)) throw new Error(`built-in method "${method.name}" is listed as "${name}"`);
  return method;
}

/**
 * The query methods kgrag ships, in the order their steps run in an index built for all of them: the default of
 * `createKgrag({ methods })`. A value, not a registry: each workspace holds its own list (these, or what its caller
 * passed, and the plugins its kgrag.yaml loads).
 */
export const builtInMethods = [
  named(basicMethod, 'basic'),
  named(localMethod, 'local'),
  named(globalMethod, 'global'),
  named(driftMethod, 'drift'),
  named(pprMethod, 'ppr'),
  named(relationsMethod, 'relations'),
  named(kgpMethod, 'kgp'),
  named(autokgMethod, 'autokg'),
  named(totMethod, 'tot'),
] as const;

/** The built-in methods, as a registry holds any method. */
const builtIns: readonly AnyQueryMethod[] = builtInMethods;

/** Whether a method is one kgrag ships, for messages and for the command line (which prepares a plugin only once its workspace has loaded it). */
export function isBuiltInMethod(method: AnyQueryMethod): boolean {
  return builtIns.includes(method);
}
