import { finishTask, type CooperativeTask } from '../../core/cooperative-task.js';
import type { DenseMatrix } from '../../math/dense-matrix.js';
import type { KnnGraph } from '../../math/knn-graph.js';
import { clearHeap, offerToHeap, sortHeap } from '../../math/top-k.js';
import { ResidentMatrix } from '../../math/wasm/resident-matrix.js';

/** How {@link knnGraphOfRows} made its graph. */
export interface KnnGraphOfRows {
  /** Row i is input row `rows[i]`; neighbours are positions in `rows`. */
  graph: KnnGraph;
  /** Rows whose list in the full graph held too few of `rows` and were scored again against all of them. */
  rescored: number;
}

/** Options of {@link knnGraphOfRows}. */
export interface KnnGraphOfRowsOptions {
  /** The vectors of every input row, to rescore rows whose list runs out; without it such rows keep a shorter list. */
  matrix?: DenseMatrix;
  /** The most rows, as a share of `rows`, worth rescoring. @default 1 / 8 */
  maxRescoredShare?: number;
}

/**
 * The graph among `rows` (input rows, ascending) with k = min(`k`, rows − 1) neighbours, taken from `full`, a kNN
 * graph of all input rows: each row keeps, in order, the first k of its neighbours that are among `rows`. When `full`
 * is exact this is the exact graph of `rows`: both rank by score, then index, and the kernel scores a pair alike in
 * any block. A row whose list runs out first (some of its nearest rows are left out) is scored against every row of
 * `rows` with the kernel the exact graph uses (`options.matrix`, rows in input order). Returns undefined when more than
 * `maxRescoredShare` of the rows would need that, where building the graph of `rows` afresh costs less.
 */
export function knnGraphOfRows(full: KnnGraph, rows: Int32Array, k: number, options: KnnGraphOfRowsOptions = {}): KnnGraphOfRows | undefined {
  return finishTask(knnGraphOfRowsTask(full, rows, k, options));
}

/** Rows rescored between two pauses of {@link knnGraphOfRowsTask}. */
const rescoredPerPause = 16;

/** {@link knnGraphOfRows} as a cooperative task that pauses between rescored rows, so that a signal can stop it. */
export function* knnGraphOfRowsTask(full: KnnGraph, rows: Int32Array, k: number, options: KnnGraphOfRowsOptions = {}): CooperativeTask<KnnGraphOfRows | undefined> {
  const count = rows.length;
  const neighbours = Math.max(0, Math.min(k, count - 1));
  const indices = new Int32Array(count * neighbours).fill(-1);
  const similarities = new Float32Array(count * neighbours).fill(Number.NEGATIVE_INFINITY);
  const positionOf = new Int32Array(full.n).fill(-1);
  rows.forEach((row, position) => (positionOf[row] = position));
  const short: number[] = [];
  for (let position = 0; position < count && neighbours > 0; position++) {
    const row = rows[position] as number;
    let filled = 0;
    for (let slot = row * full.k; slot < (row + 1) * full.k && filled < neighbours; slot++) {
      const target = full.indices[slot] as number;
      const targetPosition = target >= 0 ? (positionOf[target] as number) : -1;
      if (targetPosition < 0 || targetPosition === position) continue;
      indices[position * neighbours + filled] = targetPosition;
      similarities[position * neighbours + filled] = full.similarities[slot] as number;
      filled++;
    }
    if (filled < neighbours) short.push(position);
  }
  const { matrix } = options;
  if (!matrix || short.length === 0) return { graph: { n: count, k: neighbours, indices, similarities }, rescored: 0 };
  if (short.length > Math.max(1, count * (options.maxRescoredShare ?? 1 / 8))) return undefined;
  yield* rescoreRowsTask(matrix, rows, short, neighbours, indices, similarities);
  return { graph: { n: count, k: neighbours, indices, similarities }, rescored: short.length };
}

/** Replaces the lists of the `short` positions by their exact k nearest among `rows`, ties by lower position. */
function* rescoreRowsTask(matrix: DenseMatrix, rows: Int32Array, short: readonly number[], k: number, indices: Int32Array, similarities: Float32Array): CooperativeTask<void> {
  const resident = ResidentMatrix.load(matrix);
  for (const [done, position] of short.entries()) {
    if (done > 0 && done % rescoredPerPause === 0) yield;
    const row = rows[position] as number;
    const offset = position * k;
    clearHeap(similarities, indices, offset, k);
    // A view of the kernel's scratch memory: read before the next call.
    const scores = resident.scoreRowBlock(row, row + 1, 0, matrix.rows);
    rows.forEach((candidate, candidatePosition) => {
      if (candidatePosition !== position) offerToHeap(similarities, indices, offset, k, scores[candidate] as number, candidatePosition);
    });
    sortHeap(similarities, indices, offset, k);
  }
}
