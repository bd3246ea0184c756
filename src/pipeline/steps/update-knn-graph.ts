import type { CooperativeTask } from '../../core/cooperative-task.js';
import type { DenseMatrix } from '../../math/dense-matrix.js';
import type { KnnGraph } from '../../math/knn-graph.js';
import { clearHeap, offerToHeap, sortHeap } from '../../math/top-k.js';
import { ResidentMatrix } from '../../math/wasm/resident-matrix.js';

/** What {@link updateKnnGraphTask} did. */
export interface UpdatedKnnGraph {
  graph: KnnGraph;
  /** Rows new to the graph, each scored against every row. */
  addedRows: number;
  /** Kept rows that listed a removed row, scored again against every row. */
  rescoredRows: number;
}

/** Options of {@link updateKnnGraphTask}. */
export interface UpdateKnnGraphOptions {
  /**
   * The most rows to score against all rows (new and rescored), as a share of the rows: past it, a new search of the
   * whole matrix costs less (the exact search scores each pair once, in threads). @default 1 / 4
   */
  maxScoredShare?: number;
}

/** Rows scored between two pauses of {@link updateKnnGraphTask}. */
const rowsPerPause = 16;

/**
 * The kNN graph of the rows of `matrix` (unit rows, cosine similarity) from `previous`, the graph of an earlier set of
 * rows whose vectors have not changed: `previousRowOf[row]` is the row's row in `previous`, −1 for a new row, and the
 * kept rows keep their order (the map increases). A new row is scored against every row; a kept row whose list holds
 * a removed row is scored again in full; every other kept row keeps its list and takes in the new rows that rank
 * above its last neighbour. When `previous` is exact this is the exact graph, bit for bit: a kept list with no removed
 * row is still the top k of the kept rows, the new rows are the only other candidates, and every pair is scored by the
 * kernel the exact search uses (it scores a pair alike in any block), ranked by score, then index, as it ranks them.
 * When `previous` was built by NN-descent, the kept lists stay NN-descent's (they only improve with new rows) and the
 * new and rescored lists are exact.
 *
 * Returns undefined when the update cannot build on `previous` (another k, kept rows reordered) or would score more
 * than `maxScoredShare` of the rows, where the caller searches afresh.
 */
export function* updateKnnGraphTask(previous: KnnGraph, previousRowOf: Int32Array, matrix: DenseMatrix, k: number, options: UpdateKnnGraphOptions = {}): CooperativeTask<UpdatedKnnGraph | undefined> {
  const n = matrix.rows;
  if (previousRowOf.length !== n) throw new RangeError(`updateKnnGraph: ${previousRowOf.length} row links for ${n} rows`);
  const neighbours = Math.max(0, Math.min(k, n - 1));
  if (previous.k !== neighbours) return undefined;
  const rowOfPrevious = new Int32Array(previous.n).fill(-1);
  let last = -1;
  for (let row = 0; row < n; row++) {
    const before = previousRowOf[row] as number;
    if (before < 0) continue;
    // Ties rank by index: kept rows in another order could rank differently, so their lists are not reused.
    if (before <= last || before >= previous.n) return undefined;
    rowOfPrevious[before] = row;
    last = before;
  }

  const similarities = new Float32Array(n * neighbours);
  const indices = new Int32Array(n * neighbours);
  clearHeap(similarities, indices, 0, n * neighbours);
  // 0: kept list, 1: new row, 2: kept row that lost a neighbour; both of the latter are scored against all rows.
  const kind = new Uint8Array(n);
  const scored: number[] = [];
  for (let row = 0; row < n; row++) {
    const before = previousRowOf[row] as number;
    if (before < 0) {
      kind[row] = 1;
      scored.push(row);
      continue;
    }
    const offset = row * neighbours;
    for (let slot = before * neighbours; slot < (before + 1) * neighbours; slot++) {
      const target = previous.indices[slot] as number;
      if (target < 0) continue;
      const now = rowOfPrevious[target] as number;
      if (now < 0) {
        kind[row] = 2;
        scored.push(row);
        break;
      }
      offerToHeap(similarities, indices, offset, neighbours, previous.similarities[slot] as number, now);
    }
  }
  if (scored.length > Math.max(1, n * (options.maxScoredShare ?? 1 / 4))) return undefined;

  let addedRows = 0;
  if (neighbours > 0 && scored.length > 0) {
    const resident = ResidentMatrix.load(matrix);
    for (const [done, row] of scored.entries()) {
      if (done > 0 && done % rowsPerPause === 0) yield;
      const offset = row * neighbours;
      clearHeap(similarities, indices, offset, neighbours);
      // A view of the kernel's scratch memory: read before the next call.
      const scores = resident.scoreRowBlock(row, row + 1, 0, n);
      const added = kind[row] === 1;
      for (let candidate = 0; candidate < n; candidate++) {
        if (candidate === row) continue;
        const score = scores[candidate] as number;
        offerToHeap(similarities, indices, offset, neighbours, score, candidate);
        // A kept list takes the new row in; rows scored in full find it themselves.
        if (added && kind[candidate] === 0) offerToHeap(similarities, indices, candidate * neighbours, neighbours, score, row);
      }
      if (added) addedRows++;
    }
  }
  for (let row = 0; row < n; row++) sortHeap(similarities, indices, row * neighbours, neighbours);
  return { graph: { n, k: neighbours, indices, similarities }, addedRows, rescoredRows: scored.length - addedRows };
}
