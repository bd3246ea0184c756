import type { Store } from '../store/store.js';

/** Meta key of the names of the methods an index was built for (what `pipeline.methods` and `--methods` chose). */
export const builtMethodsKey = 'pipeline:methods';

/**
 * The methods an index was built for, or undefined for an index written before methods were chosen — which
 * holds the steps of every method it had then.
 */
export function builtMethods(store: Store): Promise<string[] | undefined> {
  return store.getMeta<string[]>(builtMethodsKey);
}
