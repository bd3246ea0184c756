import { availableParallelism } from 'node:os';
import { finishTask, runTask, type CooperativeTask } from '../core/cooperative-task.js';
import { runModuleWorker } from '../core/run-module-worker.js';
import { KgragError } from '../core/errors.js';
import type { DenseMatrix } from './dense-matrix.js';
import type { KnnGraph } from './knn-graph.js';
import { clearHeap, emptySlot, offerScores, offerToHeap, sortHeap } from './top-k.js';
import { ResidentMatrix } from './wasm/resident-matrix.js';
import type { ResidentMatrixOptions, SharedResidentMatrix } from './wasm/resident-matrix.js';

/*
 * Exact k-nearest-neighbour graph by inner product (cosine similarity on unit rows): the similarity matrix
 * S = X·Xᵀ is computed in square tiles of `blockRows` rows with the SIMD kernel, only for block pairs
 * I ≤ J because S is symmetric — each tile feeds the heaps of its rows (row-wise) and of its columns
 * (column-wise), halving the arithmetic of a plain all-pairs scan. Ties rank by lower index (see
 * `top-k.ts`), and the kernel computes ⟨x, y⟩ and ⟨y, x⟩ bit-identically, so the graph is the same for
 * any tile order and thread count.
 *
 * Threads: tiles are handed out through a shared atomic counter to `threads` worker threads that read
 * the matrix from one shared WebAssembly memory (no copies) and keep private heaps for all rows; the
 * main thread merges them. Small inputs run in the calling thread, where a worker's start-up would
 * cost more than the work.
 *
 * Stopping: with a `signal`, the calling thread gives the event loop a turn between block rows of tiles, and
 * worker threads stop taking tiles once it aborts (the counter is moved past the last tile); the call then
 * rejects with the signal's reason.
 */

/** Defaults of {@link exactKnnGraph}. */
export const exactKnnGraphDefaults = {
  /** Rows per tile side: two 256-row blocks of 384-d vectors and their 256 KiB of scores fit in L2. */
  blockRows: 256,
  /** Below this many multiply-adds (pairs × dimensions) the graph is built in the calling thread. */
  minimumWorkForThreads: 2e9,
} as const;

/** Options of {@link exactKnnGraph}. */
export interface ExactKnnGraphOptions extends ResidentMatrixOptions {
  /** Worker threads. @default os.availableParallelism() */
  threads?: number;
  /** @default exactKnnGraphDefaults.blockRows */
  blockRows?: number;
  /** @default exactKnnGraphDefaults.minimumWorkForThreads */
  minimumWorkForThreads?: number;
  /** Stops the work (see the header); the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** What the main thread sends each worker. */
export interface ExactKnnWorkerTask {
  shared: SharedResidentMatrix;
  slot: number;
  k: number;
  blockRows: number;
  /** Int32Array over a SharedArrayBuffer: the next tile to take. */
  tileCounter: Int32Array;
}

/** What a worker sends back: heaps for every row (unsorted; empty slots have index {@link emptySlot}). */
export interface ExactKnnWorkerResult {
  scores: Float32Array;
  indices: Int32Array;
}

function checkArguments(matrix: DenseMatrix, k: number): void {
  if (!Number.isInteger(k) || k < 0) throw new KgragError(`k must be a non-negative integer, got ${k}`, { code: 'MATH_INVALID_K', category: 'input' });
  if (matrix.data.length !== matrix.rows * matrix.cols) {
    throw new KgragError(`Matrix data has ${matrix.data.length} values, expected ${matrix.rows} × ${matrix.cols}`, {
      code: 'MATH_INVALID_DIMENSIONS',
      category: 'input',
    });
  }
}

/** The number of tiles (block pairs I ≤ J) for `rows` rows. */
export function knnTileCount(rows: number, blockRows: number): number {
  const blocks = Math.ceil(rows / blockRows);
  return (blocks * (blocks + 1)) / 2;
}

/**
 * Scores tiles taken from `nextTile` (until it returns −1) into `k`-slot heaps for every row. Tile t is the
 * t-th pair (I, J), I ≤ J, in row-major order of the upper block triangle.
 */
export function accumulateKnnTiles(resident: ResidentMatrix, k: number, blockRows: number, nextTile: () => number, scores: Float32Array, indices: Int32Array): void {
  const rows = resident.rows;
  const blocks = Math.ceil(rows / blockRows);
  let blockI = 0;
  // Tiles of block row I start at firstTileOfRow; tiles arrive increasing, so the walk only moves forward.
  let firstTileOfRow = 0;
  for (let tile = nextTile(); tile !== -1; tile = nextTile()) {
    while (tile >= firstTileOfRow + (blocks - blockI)) {
      firstTileOfRow += blocks - blockI;
      blockI++;
    }
    const blockJ = blockI + (tile - firstTileOfRow);
    const iStart = blockI * blockRows;
    const iEnd = Math.min(rows, iStart + blockRows);
    const jStart = blockJ * blockRows;
    const jEnd = Math.min(rows, jStart + blockRows);
    const width = jEnd - jStart;
    const tileScores = resident.scoreRowBlock(iStart, iEnd, jStart, jEnd);
    for (let i = iStart; i < iEnd; i++) offerScores(scores, indices, i * k, k, tileScores, (i - iStart) * width, 1, width, jStart, i);
    if (blockI !== blockJ) {
      for (let j = jStart; j < jEnd; j++) offerScores(scores, indices, j * k, k, tileScores, j - jStart, width, iEnd - iStart, iStart);
    }
  }
}

function sortedGraph(rows: number, k: number, scores: Float32Array, indices: Int32Array): KnnGraph {
  for (let row = 0; row < rows; row++) sortHeap(scores, indices, row * k, k);
  return { n: rows, k, indices, similarities: scores };
}

/** {@link exactKnnGraph} in the calling thread. */
export function exactKnnGraphSync(matrix: DenseMatrix, k: number, options: ResidentMatrixOptions & { blockRows?: number } = {}): KnnGraph {
  return finishTask(exactKnnGraphTask(matrix, k, options));
}

/** {@link exactKnnGraphSync} as a cooperative task that pauses after each block row of tiles. */
function* exactKnnGraphTask(matrix: DenseMatrix, k: number, options: ResidentMatrixOptions & { blockRows?: number }): CooperativeTask<KnnGraph> {
  checkArguments(matrix, k);
  const blockRows = options.blockRows ?? exactKnnGraphDefaults.blockRows;
  const resident = ResidentMatrix.load(matrix, options);
  const scores = new Float32Array(matrix.rows * k);
  const indices = new Int32Array(matrix.rows * k);
  clearHeap(scores, indices, 0, matrix.rows * k);
  const blocks = Math.ceil(matrix.rows / blockRows);
  // Tiles of block row I are the next (blocks − I) tile numbers; each call walks to its first tile from the start.
  let firstTileOfRow = 0;
  for (let blockI = 0; blockI < blocks; blockI++) {
    let next = firstTileOfRow;
    const end = firstTileOfRow + (blocks - blockI);
    accumulateKnnTiles(resident, k, blockRows, () => (next < end ? next++ : -1), scores, indices);
    firstTileOfRow = end;
    yield;
  }
  return sortedGraph(matrix.rows, k, scores, indices);
}

function runWorker(task: ExactKnnWorkerTask): Promise<ExactKnnWorkerResult> {
  return runModuleWorker(import.meta.url, 'exact-knn-graph-worker', task, 'a kNN-graph worker thread', 'Pass { threads: 1 } to build the graph in the calling thread');
}

/**
 * The exact k-nearest-neighbour graph of the rows of `matrix` by inner product (give unit rows for
 * cosine similarity), using worker threads for large inputs. A row is never its own neighbour; with
 * fewer than `k` other rows, lists are padded with −1 / −∞.
 */
export async function exactKnnGraph(matrix: DenseMatrix, k: number, options: ExactKnnGraphOptions = {}): Promise<KnnGraph> {
  checkArguments(matrix, k);
  const { signal } = options;
  signal?.throwIfAborted();
  const threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  const blockRows = options.blockRows ?? exactKnnGraphDefaults.blockRows;
  const work = ((matrix.rows * (matrix.rows - 1)) / 2) * matrix.cols;
  if (threads === 1 || k === 0 || work < (options.minimumWorkForThreads ?? exactKnnGraphDefaults.minimumWorkForThreads)) {
    return signal === undefined ? exactKnnGraphSync(matrix, k, options) : runTask(exactKnnGraphTask(matrix, k, options), { signal });
  }
  const tiles = knnTileCount(matrix.rows, blockRows);
  const workers = Math.min(threads, tiles);
  const shared = ResidentMatrix.loadShared(matrix, workers, blockRows * blockRows * 4, options);
  const tileCounter = new Int32Array(new SharedArrayBuffer(4));
  const stop = (): void => void Atomics.store(tileCounter, 0, tiles);
  signal?.addEventListener('abort', stop, { once: true });
  let results: ExactKnnWorkerResult[];
  try {
    results = await Promise.all(Array.from({ length: workers }, (_, slot) => runWorker({ shared, slot, k, blockRows, tileCounter })));
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  signal?.throwIfAborted();
  const [first, ...others] = results as [ExactKnnWorkerResult, ...ExactKnnWorkerResult[]];
  const { scores, indices } = first;
  // Every pair was scored by exactly one worker, so merging never meets a duplicate.
  for (const other of others) {
    for (let slot = 0; slot < other.indices.length; slot++) {
      const index = other.indices[slot] as number;
      if (index === emptySlot) continue;
      const rowOffset = slot - (slot % k);
      offerToHeap(scores, indices, rowOffset, k, other.scores[slot] as number, index);
    }
  }
  return sortedGraph(matrix.rows, k, scores, indices);
}
