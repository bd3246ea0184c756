import type { AnyQueryMethod } from './query-method.js';

/** The keys of a method's configuration (the zod object's public `shape`), for messages and top-k mapping. */
export function configKeysOf(method: Pick<AnyQueryMethod, 'config'>): string[] {
  return Object.keys(method.config.shape);
}
