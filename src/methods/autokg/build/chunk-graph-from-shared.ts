import { runTask } from '../../../core/cooperative-task.js';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import type { KnnGraph } from '../../../math/knn-graph.js';
import { nearDuplicateRowsTask } from '../../../math/near-duplicate-rows.js';
import { knnGraphOfRowsTask } from '../../../pipeline/steps/knn-graph-of-rows.js';
import type { AutokgChunkGraph, AutokgChunkGraphOptions } from './autokg-chunk-graph.js';
import { scoreSlack } from './near-duplicates-around.js';

/** What {@link chunkGraphFromShared} reads. */
export interface ChunkGraphFromSharedInput {
  /** Input rows (chunks). */
  rows: number;
  /** Token counts of the rows (the shorter twin is kept). */
  lengths: ArrayLike<number>;
  /** The exact kNN graph of all input rows with its reserve (`knnListsWithReserve` of the shared `chunk-knn` graph). */
  shared: KnnGraph;
  /** Rows one of which every pair of near-duplicates holds (the rows left out before and the new rows). */
  candidates: readonly number[];
  /** The vectors of some rows (ascending), in that order. */
  vectorsOf(rows: readonly number[]): Promise<DenseMatrix>;
  /** The vectors of every row, in input order. */
  allVectors(): Promise<DenseMatrix>;
}

/**
 * `autokgChunkGraph` of an update (`run.allRows` with an exact graph, `run.nearDuplicateCandidates`) without reading
 * every chunk vector: the rows near a candidate are those of its list in the shared exact graph above the search's
 * floor — every row scored at or above it is there when the list goes below it — so only they are read and searched
 * for near-duplicates, and the vectors of all rows are read only when a kept row's list runs out and it is scored again.
 * The same graph, kept rows and counts as `autokgChunkGraph` (its kept rows' vectors aside); undefined when a
 * candidate's list does not go below the floor (more rows could be near it) or so many rows would be scored again that
 * a new search costs less: the caller then runs `autokgChunkGraph`.
 */
export async function chunkGraphFromShared(input: ChunkGraphFromSharedInput, options: AutokgChunkGraphOptions, signal?: AbortSignal): Promise<Omit<AutokgChunkGraph, 'vectors'> | undefined> {
  const { rows, shared } = input;
  const duplicateOf = new Int32Array(rows).fill(-1);
  if (options.duplicateDistance > 0 && input.candidates.length > 0 && rows >= 2) {
    const floor = 1 - options.duplicateDistance - scoreSlack;
    const searched = new Uint8Array(rows);
    for (const candidate of input.candidates) {
      searched[candidate] = 1;
      let below = false;
      for (let slot = candidate * shared.k; slot < (candidate + 1) * shared.k; slot++) {
        const target = shared.indices[slot] as number;
        if (target < 0) break;
        if ((shared.similarities[slot] as number) < floor) {
          below = true;
          break;
        }
        searched[target] = 1;
      }
      if (!below) return undefined;
    }
    const subset: number[] = [];
    searched.forEach((flag, row) => {
      if (flag === 1) subset.push(row);
    });
    const vectors = await input.vectorsOf(subset);
    const found = await runTask(nearDuplicateRowsTask(vectors.data, subset.length, vectors.cols, Float64Array.from(subset, (row) => input.lengths[row] as number), options.duplicateDistance), { signal });
    found.forEach((twin, index) => {
      if (twin >= 0) duplicateOf[subset[index] as number] = subset[twin] as number;
    });
  }
  const keptRows: number[] = [];
  duplicateOf.forEach((twin, row) => {
    if (twin === -1) keptRows.push(row);
  });
  const kept = Int32Array.from(keptRows);
  const duplicates = rows - kept.length;
  const k = Math.max(0, Math.min(options.neighbours - 1, kept.length - 1));
  if (shared.k < k) return undefined;
  if (k === 0) return { kept, duplicates, graph: { n: kept.length, k: 0, indices: new Int32Array(0), similarities: new Float32Array(0) }, exact: true, searchedRows: 0 };
  // Without vectors a row whose list runs out keeps a shorter one (−1 padded): then it is scored again, as `autokgChunkGraph` does.
  let fromShared = await runTask(knnGraphOfRowsTask(shared, kept, k), { signal });
  if (fromShared && fromShared.graph.indices.includes(-1)) fromShared = await runTask(knnGraphOfRowsTask(shared, kept, k, { matrix: await input.allVectors(), maxRescoredShare: 1 / 8 }), { signal });
  if (!fromShared) return undefined;
  return { kept, duplicates, graph: fromShared.graph, exact: true, searchedRows: fromShared.rescored };
}
