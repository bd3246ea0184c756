import { clearHeap, offerScores, sortHeap } from '../../math/top-k.js';

/** Indices with their scores, best first. */
export interface ScoredIndices {
  indices: Int32Array;
  scores: Float32Array;
}

/**
 * The `k` highest of `count` scores read from `scores` at `offset` (row indices 0 … count − 1), best first;
 * ties go to the lower index, NaN never ranks, and scores ≤ 0 (a row without a vector, or nothing in common
 * with the query) are left out, so that an empty match is never a seed.
 */
export function topScoredIndices(scores: Float32Array, k: number, offset = 0, count = scores.length - offset): ScoredIndices {
  const size = Math.min(k, count);
  const heapScores = new Float32Array(size);
  const heapIndices = new Int32Array(size);
  clearHeap(heapScores, heapIndices, 0, size);
  offerScores(heapScores, heapIndices, 0, size, scores, offset, 1, count, 0);
  sortHeap(heapScores, heapIndices, 0, size);
  let kept = 0;
  while (kept < size && (heapIndices[kept] as number) >= 0 && (heapScores[kept] as number) > 0) kept++;
  return { indices: heapIndices.slice(0, kept), scores: heapScores.slice(0, kept) };
}
