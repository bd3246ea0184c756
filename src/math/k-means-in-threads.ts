import { availableParallelism } from 'node:os';
import { runModuleWorker } from '../core/run-module-worker.js';
import { sharedCopy } from '../core/shared-copy.js';
import type { DenseMatrix } from './dense-matrix.js';
import { bestKMeansRestart, kMeans, kMeansDefaults, kMeansScratchBytes, kMeansSeeds, planKMeans, type KMeansOptions, type KMeansResult } from './k-means.js';
import { ResidentMatrix, type SharedResidentMatrix } from './wasm/resident-matrix.js';

/*
 * k-means (math/k-means.ts) with its restarts spread over worker threads. The restarts are independent once seeded:
 * every restart's k-means++ centroids are drawn first, in restart order from the one seeded generator, exactly as
 * the calling-thread version draws them; then the workers take restarts from a shared counter and run Lloyd on the
 * centred data in shared memory, and the lowest inertia wins (the first of equals). So the result is the
 * calling-thread result, bit for bit, whatever the thread count and timing.
 *
 * Defaults: threads = the machine's available parallelism, capped by the restarts; inputs under 2·10⁷ row ×
 * column × restart products stay in the calling thread, where starting workers would cost more than they save.
 */

/** Defaults of {@link kMeansInThreads}. */
export const kMeansInThreadsDefaults = {
  minimumWorkForThreads: 2e7,
} as const;

/** Options of {@link kMeansInThreads}. */
export interface KMeansInThreadsOptions extends KMeansOptions {
  /** Worker threads at most. @default availableParallelism() */
  threads?: number;
  /** Rows × columns × restarts under which the calling thread runs everything. @default 2e7 */
  minimumWorkForThreads?: number;
}

/** What the main thread sends each worker. */
export interface KMeansWorkerTask {
  shared: SharedResidentMatrix;
  slot: number;
  /** The centred rows, row-major, over a SharedArrayBuffer. */
  centred: Float32Array;
  /** Their squared norms, over a SharedArrayBuffer. */
  squaredNorms: Float64Array;
  rows: number;
  cols: number;
  k: number;
  maxIterations: number;
  shiftTolerance: number;
  /** Every restart's starting centroids. */
  seeds: Float32Array[];
  /** Int32Array over a SharedArrayBuffer: the next restart to take. */
  next: Int32Array;
}

/** What a worker sends back: the restarts it ran. */
export interface KMeansWorkerResult {
  restarts: Array<{ restart: number; result: KMeansResult }>;
}

/** Clusters the rows of `matrix` into `k` groups like {@link kMeans}, running its restarts in worker threads. */
export async function kMeansInThreads(matrix: DenseMatrix, k: number, options: KMeansInThreadsOptions = {}): Promise<KMeansResult> {
  const restarts = options.restarts ?? kMeansDefaults.restarts;
  const threads = Math.min(restarts, Math.max(1, Math.floor(options.threads ?? availableParallelism())));
  if (threads <= 1 || matrix.rows * matrix.cols * restarts < (options.minimumWorkForThreads ?? kMeansInThreadsDefaults.minimumWorkForThreads)) {
    return kMeans(matrix, k, options);
  }
  const plan = planKMeans(matrix, k, options);
  const { rows, cols } = plan.centred;
  const shared = ResidentMatrix.loadShared(plan.centred, threads + 1, kMeansScratchBytes(cols, k, plan.seedingCandidates), options);
  const centred = sharedCopy(plan.centred.data);
  const squaredNorms = sharedCopy(plan.squaredNorms);
  // Slot 0 is the calling thread's, for the seeding.
  const seeds = kMeansSeeds({ resident: ResidentMatrix.attach(shared, 0), matrix: { rows, cols, data: centred }, squaredNorms, rowBlock: kMeansDefaults.rowBlock }, k, plan);
  const next = new Int32Array(new SharedArrayBuffer(4));
  const task = (slot: number): KMeansWorkerTask => ({ shared, slot, centred, squaredNorms, rows, cols, k, maxIterations: plan.maxIterations, shiftTolerance: plan.shiftTolerance, seeds, next });
  const replies = await Promise.all(
    Array.from({ length: threads }, (_, index) =>
      runModuleWorker<KMeansWorkerResult>(import.meta.url, 'k-means-worker', task(index + 1), 'a k-means worker thread', 'Pass { threads: 1 } to cluster in the calling thread'),
    ),
  );
  const results: KMeansResult[] = new Array(restarts);
  for (const reply of replies) for (const { restart, result } of reply.restarts) results[restart] = result;
  return bestKMeansRestart(results, plan.means);
}
