import { parentPort, workerData } from 'node:worker_threads';
import type { KMeansWorkerResult, KMeansWorkerTask } from './k-means-in-threads.js';
import { kMeansDefaults, lloydRestart } from './k-means.js';
import { ResidentMatrix } from './wasm/resident-matrix.js';

/*
 * Worker thread of `kMeansInThreads`: opens the shared centred data in its own scratch slot, runs Lloyd for the
 * restarts it takes from the shared counter until none are left, and posts their results back.
 */

const task = workerData as KMeansWorkerTask;
const matrix = { rows: task.rows, cols: task.cols, data: task.centred };
const workspace = { resident: ResidentMatrix.attach(task.shared, task.slot), matrix, squaredNorms: task.squaredNorms, rowBlock: kMeansDefaults.rowBlock };
const reply: KMeansWorkerResult = { restarts: [] };
for (let restart = Atomics.add(task.next, 0, 1); restart < task.seeds.length; restart = Atomics.add(task.next, 0, 1)) {
  reply.restarts.push({ restart, result: lloydRestart(workspace, task.seeds[restart] as Float32Array, task.k, task.maxIterations, task.shiftTolerance) });
}
parentPort?.postMessage(reply);
