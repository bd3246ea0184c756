import { parentPort, workerData } from 'node:worker_threads';
import { accumulateKnnTiles, knnTileCount } from './exact-knn-graph.js';
import type { ExactKnnWorkerResult, ExactKnnWorkerTask } from './exact-knn-graph.js';
import { clearHeap } from './top-k.js';
import { ResidentMatrix } from './wasm/resident-matrix.js';

/*
 * Worker thread of `exactKnnGraph`: opens the shared resident matrix in its own scratch slot, takes tiles
 * from the shared counter until none are left, and posts its heaps for every row back (transferred, not
 * copied).
 */

// This thread's own state: the worker exists for one kNN graph and exits with it.
const task = workerData as ExactKnnWorkerTask;
const resident = ResidentMatrix.attach(task.shared, task.slot);
const entries = resident.rows * task.k;
const scores = new Float32Array(entries);
const indices = new Int32Array(entries);
clearHeap(scores, indices, 0, entries);
const tiles = knnTileCount(resident.rows, task.blockRows);
accumulateKnnTiles(
  resident,
  task.k,
  task.blockRows,
  () => {
    const tile = Atomics.add(task.tileCounter, 0, 1);
    return tile < tiles ? tile : -1;
  },
  scores,
  indices,
);
const result: ExactKnnWorkerResult = { scores, indices };
parentPort?.postMessage(result, [scores.buffer, indices.buffer]);
