import { parentPort, workerData } from 'node:worker_threads';
import { nnDescent } from './nn-descent.js';
import type { NnDescentWorkerResult, NnDescentWorkerTask } from './knn-graph-by-size.js';

/*
 * Worker thread of `knnGraphBySize`: builds the NN-descent graph off the main thread, whose event loop stays free for
 * progress, signals and other requests during the minute a 100,000-chunk graph takes, and posts the lists back
 * (transferred, not copied).
 */

const task = workerData as NnDescentWorkerTask;
const graph = nnDescent({ rows: task.rows, cols: task.cols, data: task.data }, task.k, task.options);
// Own buffers, so that transferring them moves exactly the lists.
const indices = new Int32Array(graph.indices);
const similarities = new Float32Array(graph.similarities);
const result: NnDescentWorkerResult = { indices, similarities };
parentPort?.postMessage(result, [indices.buffer, similarities.buffer]);
