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

/**
 * The mode the index's entity graph was last built in: `standard` when its LLM extraction ran after its NLP one (or
 * alone), `fast` for the reverse; undefined when it has no entity graph. An update keeps that graph's mode.
 */
export async function builtMode(store: Store): Promise<'fast' | 'standard' | undefined> {
  const runs = await store.table('runs').get(['llm-extract', 'nlp-extract']);
  const finished = (step: string): string | undefined => runs.find((run) => run.step === step && run.status === 'done')?.finishedAt ?? undefined;
  const llm = finished('llm-extract');
  const nlp = finished('nlp-extract');
  if (llm === undefined) return nlp === undefined ? undefined : 'fast';
  return nlp === undefined || llm >= nlp ? 'standard' : 'fast';
}

/**
 * Records the methods an index is built for; true when that changes what the index held (an index from before methods
 * were chosen counts as changed).
 */
export async function recordBuiltMethods(store: Store, names: readonly string[]): Promise<boolean> {
  const previous = await builtMethods(store);
  if (previous !== undefined && previous.join() === names.join()) return false;
  await store.setMeta(builtMethodsKey, [...names]);
  return true;
}
