import { parentPort, workerData } from 'node:worker_threads';
import type { NnDescentJoinWorkerMessage, NnDescentJoinWorkerTask } from './nn-descent-in-threads.js';
import { scoreJoinPairs, type JoinCandidates } from './nn-descent.js';
import { ResidentMatrix } from './wasm/resident-matrix.js';

/*
 * Worker thread of `nnDescentInThreads`: on each round message, takes chunks of points from the shared counter,
 * scores their local joins against the shared rows and posts the pairs that may improve a list (transferred), then
 * says it is idle.
 */

const task = workerData as NnDescentJoinWorkerTask;
const resident = ResidentMatrix.attach(task.shared, task.slot);
const candidates: JoinCandidates = {
  newCandidates: { capacity: task.capacity, counts: task.newCounts, indices: task.newIndices },
  oldCandidates: { capacity: task.capacity, counts: task.oldCounts, indices: task.oldIndices },
};
parentPort?.on('message', ({ round, chunks }: { round: number; chunks: number }) => {
  for (let chunk = Atomics.add(task.next, 0, 1); chunk < chunks; chunk = Atomics.add(task.next, 0, 1)) {
    const start = chunk * task.pointsPerChunk;
    const pairs = scoreJoinPairs(resident, candidates, task.lowest, start, Math.min(task.n, start + task.pointsPerChunk));
    const message: NnDescentJoinWorkerMessage = { chunk, pairs };
    parentPort?.postMessage(message, [pairs.first.buffer as ArrayBuffer, pairs.second.buffer as ArrayBuffer, pairs.scores.buffer as ArrayBuffer]);
  }
  const idle: NnDescentJoinWorkerMessage = { idle: round };
  parentPort?.postMessage(idle);
});
