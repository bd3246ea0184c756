import { KgragError } from '../core/errors.js';
import type { MethodConfigSchema } from '../core/config/load-config.js';
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

/** Every query method this version registers, in the order their steps run in an index built for all of them. */
export const registeredMethods: readonly AnyQueryMethod[] = [
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

/** The methods named by `pipeline.methods` (or `--methods`): `all`, or names of registered methods. */
export function selectMethods(names: 'all' | readonly string[], origin: string): AnyQueryMethod[] {
  if (names === 'all') return [...registeredMethods];
  const unknown = names.filter((name) => !registeredMethods.some((method) => method.name === name));
  if (unknown.length > 0) {
    throw new KgragError(`${origin} names unknown methods: ${unknown.join(', ')}`, {
      code: 'CONFIG_UNKNOWN_METHOD',
      category: 'config',
      hint: `choose among ${registeredMethods.map((method) => method.name).join(', ')}, or "all"`,
    });
  }
  return registeredMethods.filter((method) => names.includes(method.name));
}

/** Each registered method's section of the configuration (`methods.<name>`), for loading and `kgrag init`. */
export const methodConfigSchemas: Readonly<Record<string, MethodConfigSchema>> = Object.fromEntries(
  registeredMethods.map((method) => [method.name, { schema: method.config, variants: method.variants }]),
);
