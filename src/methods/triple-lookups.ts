import { buildTripleIndex, type TripleIndex } from '../extract/triples/triple-index.js';
import { createSimilarityIndex, type SimilarityIndex } from '../math/similarity-index.js';
import type { Store, VectorSpace } from '../store/store.js';
import type { MethodContext } from './query-method.js';

/** Loads the index's {@link TripleIndex} once per index (shared by `ppr` and `relations`). */
export function tripleIndex(context: MethodContext): Promise<TripleIndex> {
  return context.memo('triples:index', async () => buildTripleIndex(await context.store.table('triples').all()));
}

/**
 * The vectors of `space` in memory for exact scoring, row i = `ids[i]` (a zero row where an id has no vector),
 * or undefined while the space is empty. The whole space is loaded at once: `load(ids)` costs seconds for tens
 * of thousands of ids.
 */
export async function loadSimilarityIndex(store: Store, space: VectorSpace, ids: readonly string[]): Promise<SimilarityIndex | undefined> {
  const { ids: stored, dimensions, matrix } = await store.vectors(space).load();
  if (stored.length === 0 || ids.length === 0) return undefined;
  const rowOf = new Map(ids.map((id, row) => [id, row]));
  const data = new Float32Array(ids.length * dimensions);
  stored.forEach((id, position) => {
    const row = rowOf.get(id);
    if (row !== undefined) data.set(matrix.subarray(position * dimensions, (position + 1) * dimensions), row * dimensions);
  });
  return createSimilarityIndex(ids.length, dimensions, data);
}

/** Phrase vectors, rows in {@link TripleIndex} phrase order, loaded once per index and shared by `ppr` and `relations`. */
export function phraseVectors(context: MethodContext): Promise<SimilarityIndex | undefined> {
  return context.memo('triples:phrase-vectors', async () => loadSimilarityIndex(context.store, 'phrases', (await tripleIndex(context)).phraseIds));
}

/** Fact vectors, rows in {@link TripleIndex} fact order, loaded once per index and shared by `ppr` and `relations`. */
export function factVectors(context: MethodContext): Promise<SimilarityIndex | undefined> {
  return context.memo('triples:fact-vectors', async () => loadSimilarityIndex(context.store, 'facts', (await tripleIndex(context)).factIds));
}
