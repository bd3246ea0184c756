import { buildTripleIndex, type TripleIndex } from '../extract/triples/triple-index.js';
import type { MethodContext } from './query-method.js';

/** Loads the index's {@link TripleIndex} once per index (shared by `ppr` and `relations`). */
export function tripleIndex(context: MethodContext): Promise<TripleIndex> {
  return context.memo('triples:index', async () => buildTripleIndex(await context.store.table('triples').all()));
}
