import { assertQueryDimensions, spaceScorer, type SpaceScorer } from '../shared/space-vectors.js';
import type { Store, VectorSpace } from '../../store/store.js';

/*
 * Exact cosine scores of a query against every vector of a space, in a caller-chosen row order. HippoRAG 2
 * min-max normalizes fact and passage scores over all rows, so `ppr` needs whole score vectors: tens of
 * thousands of phrases and facts per query, scored by the store (`VectorIndex.scoreMany`: the postings of the
 * query's coordinates for the local embedder's mostly-zero vectors, the SIMD kernel for dense ones).
 */

/** Scores a query against every row. */
export interface VectorScorer {
  readonly rows: number;
  /** Cosine similarity of a unit `query` with every row (a new array; rows without a vector score 0). */
  scores(query: Float32Array): Promise<Float32Array>;
}

/** Wraps a space scorer (or none, while the space is empty) as a scorer of `rows` rows. */
export function vectorScorer(space: VectorSpace, rows: number, scorer: SpaceScorer | undefined): VectorScorer {
  if (!scorer) return { rows, scores: async () => new Float32Array(rows) };
  return {
    rows,
    scores(query) {
      assertQueryDimensions(space, scorer.dimensions, query);
      return scorer.scoreMany(query, 1);
    },
  };
}

/** Scores the vectors of `ids` in `space`, row i = ids[i]. */
export async function loadVectorScorer(store: Store, space: VectorSpace, ids: readonly string[]): Promise<VectorScorer> {
  return vectorScorer(space, ids.length, await spaceScorer(store, space, ids));
}
