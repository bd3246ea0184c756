import type { SimilarityIndex } from '../../math/similarity-index.js';
import { topIndices } from '../../math/top-indices.js';
import { decodeCoordinatePostings, type CoordinatePostings } from '../postings-codec.js';
import type { ScoredId } from '../store.js';

/*
 * What a vector space keeps in memory for one revision, and exact scoring from it: the same for every backend. A
 * cache holds at most one space at one revision (the postings its queries read, or the dense matrix), so it is
 * bounded by the space; a write bumps the revision and the next read starts a fresh cache.
 */

/** What a space keeps in memory for one revision: filled as queries need it. */
export interface SpaceCache {
  revision: number;
  rows: number;
  ids?: string[];
  /** Sparse layout: postings read so far, by coordinate. */
  postings: Map<number, CoordinatePostings>;
  /** Dense layout: the matrix in the SIMD kernel. */
  dense?: SimilarityIndex;
  /** Sparse layout: the sums of one query, reused (a fresh 75,000-row buffer per query doubled a warm query's GC). */
  sums?: Float64Array;
  /**
   * The whole space as `load()` returned it, when it is small enough to keep ({@link maxKeptMatrixBytes}): an update's
   * kNN steps each load the chunk vectors of the same revision, and densifying them again cost each a second on 2Wiki.
   */
  matrix?: { ids: string[]; dimensions: number; matrix: Float32Array };
}

/** The largest dense matrix a space keeps for `load()` (64 MB: 2Wiki's chunk vectors take 25 MB). */
export const maxKeptMatrixBytes = 64 * 1024 * 1024;

/** An empty cache of a space of `rows` rows at `revision`. */
export function emptySpaceCache(revision: number, rows: number): SpaceCache {
  return { revision, rows, postings: new Map() };
}

/** The non-zero coordinates of the queries whose postings the cache does not hold yet, ascending. */
export function missingCoordinates(cache: SpaceCache, queries: Float32Array, count: number, dimensions: number): number[] {
  const missing = new Set<number>();
  for (let position = 0; position < count * dimensions; position++) {
    if (queries[position] !== 0 && !cache.postings.has(position % dimensions)) missing.add(position % dimensions);
  }
  return [...missing];
}

/** Keeps the postings read for `missing` coordinates; a coordinate no row uses gets empty postings. */
export function keepPostings(cache: SpaceCache, missing: readonly number[], read: Iterable<readonly [number, Buffer | CoordinatePostings]>): void {
  for (const coordinate of missing) cache.postings.set(coordinate, { rows: new Int32Array(0), values: new Float32Array(0) });
  for (const [coordinate, postings] of read) cache.postings.set(coordinate, Buffer.isBuffer(postings) ? decodeCoordinatePostings(postings) : postings);
}

/**
 * Exact scores of `count` queries through the cached postings of their non-zero coordinates (all must be held: see
 * {@link missingCoordinates}). Each row's sum runs over the coordinates in ascending order, as a dense dot product's would.
 */
export function sparseScores(cache: SpaceCache, queries: Float32Array, count: number, dimensions: number): Float32Array {
  const rows = cache.rows;
  const out = new Float32Array(count * rows);
  cache.sums ??= new Float64Array(rows);
  const sums = cache.sums;
  for (let query = 0; query < count; query++) {
    sums.fill(0);
    const offset = query * dimensions;
    for (let coordinate = 0; coordinate < dimensions; coordinate++) {
      const weight = queries[offset + coordinate] as number;
      if (weight === 0) continue;
      const posting = cache.postings.get(coordinate) as CoordinatePostings;
      const postingRows = posting.rows;
      const postingValues = posting.values;
      for (let entry = 0; entry < postingRows.length; entry++) {
        const row = postingRows[entry] as number;
        sums[row] = (sums[row] as number) + (postingValues[entry] as number) * weight;
      }
    }
    out.set(sums, query * rows);
  }
  return out;
}

/** The `k` best rows of one query's scores as ids, best first (ties in row order). */
export function topScoredIds(scores: Float32Array, ids: readonly string[], k: number): ScoredId[] {
  return topIndices(scores, k).map((row) => ({ id: ids[row] as string, score: scores[row] as number }));
}

/** The dot product of a stored row (`matrix` from `offset`) and a query. */
export function dotAt(matrix: Float32Array, offset: number, query: Float32Array): number {
  let dot = 0;
  for (let d = 0; d < query.length; d++) dot += (matrix[offset + d] as number) * (query[d] as number);
  return dot;
}
