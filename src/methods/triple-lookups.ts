import { buildTripleIndex, type TripleIndex } from '../extract/triples/triple-index.js';
import type { SimilarityIndex } from '../math/similarity-index.js';
import type { MethodContext } from './query-method.js';
import { loadSimilarityIndex } from './space-vectors.js';

/** Loads the index's {@link TripleIndex} once per index (shared by `ppr` and `relations`). */
export function tripleIndex(context: MethodContext): Promise<TripleIndex> {
  return context.memo('triples:index', async () => buildTripleIndex(await context.store.table('triples').all()));
}

/** Phrase vectors, rows in {@link TripleIndex} phrase order, loaded once per index and shared by `ppr` and `relations`. */
export function phraseVectors(context: MethodContext): Promise<SimilarityIndex | undefined> {
  return context.memo('triples:phrase-vectors', async () => loadSimilarityIndex(context.store, 'phrases', (await tripleIndex(context)).phraseIds));
}

/** Fact vectors, rows in {@link TripleIndex} fact order, loaded once per index and shared by `ppr` and `relations`. */
export function factVectors(context: MethodContext): Promise<SimilarityIndex | undefined> {
  return context.memo('triples:fact-vectors', async () => loadSimilarityIndex(context.store, 'facts', (await tripleIndex(context)).factIds));
}
