import type { CooperativeTask } from '../../core/cooperative-task.js';
import type { DenseMatrix } from '../../math/dense-matrix.js';
import { denseMatrixFromRows, matrixRow } from '../../math/dense-vectors.js';
import type { KnnGraph } from '../../math/knn-graph.js';
import { clearHeap, offerToHeap, sortHeap } from '../../math/top-k.js';
import { ResidentMatrix } from '../../math/wasm/resident-matrix.js';

/** What {@link updateKnnGraphTask} did. */
export interface UpdatedKnnGraph {
  /** Lists of up to k + `reserve` neighbours (see {@link UpdateKnnGraphOptions.reserve}); the first k are the kNN graph's. */
  graph: KnnGraph;
  /** Rows new to the graph, each scored against every row. */
  addedRows: number;
  /** Kept rows that lost more neighbours than their list had to spare, scored again against every row. */
  rescoredRows: number;
}

/** Options of {@link updateKnnGraphTask}. */
export interface UpdateKnnGraphOptions {
  /**
   * The most rows to score against all rows (new and rescored), as a share of the rows: past it, a new search of the
   * whole matrix costs less (the exact search scores each pair once, in threads). @default 1 / 4
   */
  maxScoredShare?: number;
  /** Neighbours each list keeps past the first k, so that a row that loses some takes the next ones. @default 0 */
  reserve?: number;
}

/**
 * Rows of a tile of the matrix, 1 MB of 1,024-dimensional vectors, scored against every row to score in one kernel call:
 * each tile is read once, not once per row scored (61 new rows of 6,119 chunk vectors of 1,024 dimensions: 0.19 s one
 * row at a time, about 0.05 s in blocks).
 */
const rowsPerTile = 256;

/**
 * The kNN graph of the rows of `matrix` (unit rows, cosine similarity) from `previous`, the lists of an earlier set of
 * rows whose vectors have not changed: `previousRowOf[row]` is the row's row in `previous`, −1 for a new row, and the
 * kept rows keep their order (the map increases). A list of `previous` may be longer than k (a reserve) and of any
 * length up to its width (−1 padding): each is read as the exact top v of the other rows, v its length (or all of
 * them, when it lists every other row). A kept row drops the removed rows from its list, which leaves the exact top
 * v − m of the kept rows, and takes in the new rows that rank above its last entry, which keeps it the exact top v − m
 * of all rows; while v − m ≥ k its first k are the row's exact kNN list. A row with fewer left, and every new row, is
 * scored against all rows with the kernel the exact search uses (it scores a pair alike in any block), and keeps
 * k + `reserve`, ranked by score, then index, as the exact search ranks them. So when `previous` is exact the first k
 * of every list are the exact graph, bit for bit; a list's reserve only shrinks until the row is scored again.
 * When `previous` was built by NN-descent (no reserve), the kept lists stay NN-descent's (they only improve with new
 * rows) and the new and rescored lists are exact.
 *
 * Returns undefined when the update cannot build on `previous` (kept rows reordered) or would score more than
 * `maxScoredShare` of the rows, where the caller searches afresh.
 */
export function* updateKnnGraphTask(previous: KnnGraph, previousRowOf: Int32Array, matrix: DenseMatrix, k: number, options: UpdateKnnGraphOptions = {}): CooperativeTask<UpdatedKnnGraph | undefined> {
  if (previousRowOf.length !== matrix.rows) throw new RangeError(`updateKnnGraph: ${previousRowOf.length} row links for ${matrix.rows} rows`);
  const plan = planKnnGraphUpdate(previous, previousRowOf, k, options);
  return plan && (yield* finishKnnGraphUpdateTask(plan, matrix));
}

/**
 * The part of {@link updateKnnGraphTask} that needs no vectors: the kept lists, and the rows to score against all
 * (`scored`; none after a delete whose rows' reserves hold, when the vectors need not be read at all). Undefined where
 * `updateKnnGraphTask` returns undefined.
 */
export function planKnnGraphUpdate(previous: KnnGraph, previousRowOf: Int32Array, k: number, options: UpdateKnnGraphOptions = {}): KnnGraphUpdatePlan | undefined {
  const n = previousRowOf.length;
  const neighbours = Math.max(0, Math.min(k, n - 1));
  const width = Math.max(0, Math.min(k + (options.reserve ?? 0), n - 1));
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

  const similarities = new Float32Array(n * width);
  const indices = new Int32Array(n * width);
  clearHeap(similarities, indices, 0, n * width);
  // The length of each row's heap: a kept list's exact length, or `width` for a row scored against all rows.
  const capacity = new Int32Array(n).fill(width);
  // 0: kept list, 1: new row, 2: kept row left with fewer than k; both of the latter are scored against all rows.
  const kind = new Uint8Array(n);
  const scored: number[] = [];
  for (let row = 0; row < n; row++) {
    const before = previousRowOf[row] as number;
    if (before < 0) {
      kind[row] = 1;
      scored.push(row);
      continue;
    }
    let listed = 0;
    let removed = 0;
    for (let slot = before * previous.k; slot < (before + 1) * previous.k; slot++) {
      const target = previous.indices[slot] as number;
      if (target < 0) continue;
      listed++;
      if ((rowOfPrevious[target] as number) < 0) removed++;
    }
    // A list of every other row is exact at any length: it can grow to `width`; any other list only keeps its length.
    const kept = Math.min(width, listed === previous.n - 1 ? width : listed - removed);
    if (kept < neighbours) {
      kind[row] = 2;
      scored.push(row);
      continue;
    }
    capacity[row] = kept;
    const offset = row * width;
    for (let slot = before * previous.k; slot < (before + 1) * previous.k; slot++) {
      const target = previous.indices[slot] as number;
      const now = target < 0 ? -1 : (rowOfPrevious[target] as number);
      if (now >= 0) offerToHeap(similarities, indices, offset, kept, previous.similarities[slot] as number, now);
    }
  }
  if (scored.length > Math.max(1, n * (options.maxScoredShare ?? 1 / 4))) return undefined;
  return { n, width, similarities, indices, capacity, kind, scored };
}

/** Whether finishing `plan` scores rows, and so reads the vectors. */
export function knnGraphUpdateScores(plan: KnnGraphUpdatePlan): boolean {
  return plan.width > 0 && plan.scored.length > 0;
}

/** What {@link planKnnGraphUpdate} leaves to score: the heaps of every row, and the rows to score against all. */
export interface KnnGraphUpdatePlan {
  n: number;
  width: number;
  similarities: Float32Array;
  indices: Int32Array;
  /** The length of each row's heap. */
  capacity: Int32Array;
  /** 0: kept list, 1: new row, 2: kept row scored again. */
  kind: Uint8Array;
  /** The rows to score against all rows, ascending. */
  scored: readonly number[];
}

/**
 * Scores a plan's rows against the rows of `matrix` (unit rows, the plan's row order) and sorts every list, in the plan's
 * arrays. `matrix` is read only when the plan has rows to score ({@link knnGraphUpdateScores}).
 */
export function* finishKnnGraphUpdateTask(plan: KnnGraphUpdatePlan, matrix: DenseMatrix): CooperativeTask<UpdatedKnnGraph> {
  const { n, width, similarities, indices, capacity, kind, scored } = plan;
  if (matrix.rows !== n && knnGraphUpdateScores(plan)) throw new RangeError(`updateKnnGraph: a matrix of ${matrix.rows} rows for ${n}`);

  let addedRows = 0;
  if (width > 0 && scored.length > 0) {
    // Only the rows scored are kept in kernel memory, and the matrix passes through its scratch a tile at a time: a
    // resident copy of the whole matrix (25 MB of 2Wiki's chunk vectors) cost an update more in fresh pages than the
    // scoring. The kernel scores a pair alike whichever of the two is the query and in any tile (one accumulator per
    // pair, summed in coordinate order), so these are the scores of one row at a time, bit for bit.
    const resident = ResidentMatrix.load(denseMatrixFromRows(scored.map((row) => matrixRow(matrix, row)), matrix.cols));
    const { cols } = matrix;
    for (const row of scored) clearHeap(similarities, indices, row * width, width);
    // Each list is offered its candidates in row order, and each kept list the rows scored in their order, as scoring
    // one row at a time against every row would.
    for (let start = 0; start < n; start += rowsPerTile) {
      const rows = Math.min(rowsPerTile, n - start);
      const tile = resident.scoreQueries(matrix.data.subarray(start * cols, (start + rows) * cols), rows);
      for (let at = 0; at < rows; at++) {
        const candidate = start + at;
        const keptList = kind[candidate] === 0;
        for (let query = 0; query < scored.length; query++) {
          const row = scored[query] as number;
          if (candidate === row) continue;
          const score = tile[at * scored.length + query] as number;
          offerToHeap(similarities, indices, row * width, width, score, candidate);
          // A kept list takes the new row in; rows scored in full find it themselves.
          if (keptList && kind[row] === 1) offerToHeap(similarities, indices, candidate * width, capacity[candidate] as number, score, row);
        }
      }
      yield;
    }
    for (const row of scored) if (kind[row] === 1) addedRows++;
  }
  for (let row = 0; row < n; row++) {
    const offset = row * width;
    const length = capacity[row] as number;
    sortHeap(similarities, indices, offset, length);
    // Past a kept list's length the slots are padding, which the heap never held.
    indices.fill(-1, offset + length, offset + width);
  }
  return { graph: { n, k: width, indices, similarities }, addedRows, rescoredRows: scored.length - addedRows };
}
