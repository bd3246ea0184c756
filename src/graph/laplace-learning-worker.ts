import { parentPort, workerData } from 'node:worker_threads';
import type { LaplaceLearningWorkerResult, LaplaceLearningWorkerTask } from './laplace-learning-in-threads.js';
import { laplaceLearningBlock, type LaplaceLearningGraph } from './laplace-learning.js';

/*
 * Worker thread of `laplaceLearningInThreads`: solves the keyword blocks it takes from the shared counter until none
 * are left, and posts their assignments back (score arrays transferred, not copied).
 */

const task = workerData as LaplaceLearningWorkerTask;
const graph: LaplaceLearningGraph = {
  n: task.n,
  laplacian: { rows: task.n, cols: task.n, rowPointers: task.rowPointers, columnIndices: task.columnIndices, values: task.values },
  component: task.component,
  componentCount: task.componentCount,
};
const blocks = Math.ceil(task.keywords.length / task.settings.blockSize);
const reply: LaplaceLearningWorkerResult = { blocks: [] };
for (let block = Atomics.add(task.next, 0, 1); block < blocks; block = Atomics.add(task.next, 0, 1)) {
  reply.blocks.push({ block, assignments: laplaceLearningBlock(graph, task.keywords, block * task.settings.blockSize, task.settings) });
}
// Arrays the block made itself, each over an ArrayBuffer of its own.
const transfers = reply.blocks.flatMap(({ assignments }) => assignments.flatMap((assignment) => [assignment.scores.buffer as ArrayBuffer, assignment.members.buffer as ArrayBuffer]));
parentPort?.postMessage(reply, transfers);
