import type { SimilarityIndex } from '../../math/similarity-index.js';
import { assertQueryDimensions, loadSimilarityIndex } from '../space-vectors.js';
import type { Store, VectorSpace } from '../../store/store.js';

/*
 * Exact cosine scores of a query against every vector of a space, in a caller-chosen row order. HippoRAG 2
 * min-max normalizes fact and passage scores over all rows, so `ppr` needs whole score vectors: tens of
 * thousands of phrases and facts per query, scored by `createSimilarityIndex` (sparse postings for the local
 * embedder's mostly-zero vectors, the SIMD kernel for dense ones).
 */

/** Scores a query against every row. */
export interface VectorScorer {
  readonly rows: number;
  /** How the rows are held: an inverted index over coordinates (sparse vectors) or a dense matrix. */
  readonly layout: 'sparse' | 'dense';
  /** Cosine similarity of a unit `query` with every row (a new array; rows without a vector score 0). */
  scores(query: Float32Array): Float32Array;
}

/** Wraps an in-memory index of `space` (or none, while the space is empty) as a scorer of `rows` rows. */
export function vectorScorer(space: VectorSpace, rows: number, index: SimilarityIndex | undefined): VectorScorer {
  if (!index) return { rows, layout: 'dense', scores: () => new Float32Array(rows) };
  return {
    rows,
    layout: index.layout,
    scores(query) {
      assertQueryDimensions(space, index.dimensions, query);
      return index.scoreMany(query, 1);
    },
  };
}

/** Loads the vectors of `ids` from `space`, row i = ids[i]. */
export async function loadVectorScorer(store: Store, space: VectorSpace, ids: readonly string[]): Promise<VectorScorer> {
  return vectorScorer(space, ids.length, await loadSimilarityIndex(store, space, ids));
}
