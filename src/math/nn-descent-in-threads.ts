import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { KgragError } from '../core/errors.js';
import { startModuleWorker } from '../core/start-module-worker.js';
import type { DenseMatrix } from './dense-matrix.js';
import { applyJoinPairs, lowestScores, nnDescent, nnDescentDefaults, nnDescentRounds, type NnDescentJoinPairs, type NnDescentJoinRound, type NnDescentOptions, type NnDescentResult } from './nn-descent.js';
import { ResidentMatrix, type SharedResidentMatrix } from './wasm/resident-matrix.js';

/*
 * NN-descent (math/nn-descent.ts) with the local joins of every round scored in worker threads. The scoring is most of
 * the work (41 of 68 s for 97,950 chunks at 1,024 dimensions). The calling thread draws the candidate lists exactly as
 * the one-thread version does; the workers take chunks of points from a shared counter and return, per chunk, the
 * pairs that pass the round-start threshold; the calling thread applies the chunks in point order, as the inline join
 * would. So the graph is the one-thread graph, bit for bit, whatever the thread count and timing.
 *
 * Defaults: threads = the machine's available parallelism; chunks of 512 points.
 */

/** Defaults of {@link nnDescentInThreads}. */
export const nnDescentInThreadsDefaults = {
  pointsPerChunk: 512,
} as const;

/** What a join worker is started with. */
export interface NnDescentJoinWorkerTask {
  shared: SharedResidentMatrix;
  slot: number;
  n: number;
  capacity: number;
  newIndices: Int32Array;
  newCounts: Int32Array;
  oldIndices: Int32Array;
  oldCounts: Int32Array;
  /** Each list's lowest entry at the start of the round. */
  lowest: Float32Array;
  /** The next chunk to take. */
  next: Int32Array;
  pointsPerChunk: number;
}

/** What a join worker posts: a chunk's pairs, or that it found no chunk left in the round. */
export type NnDescentJoinWorkerMessage = { chunk: number; pairs: NnDescentJoinPairs } | { idle: number };

/** Builds the NN-descent graph of `matrix` like {@link nnDescent}, scoring the joins in `threads` worker threads. */
export async function nnDescentInThreads(matrix: DenseMatrix, k: number, options: NnDescentOptions = {}, threads = availableParallelism()): Promise<NnDescentResult> {
  options.signal?.throwIfAborted();
  const workers = Math.max(1, Math.floor(threads));
  if (workers <= 1) return nnDescent(matrix, k, options);
  const n = matrix.rows;
  const leafSize = Math.max(2, options.leafSize ?? nnDescentDefaults.leafSize);
  const capacity = Math.max(1, Math.ceil((options.sampleRate ?? nnDescentDefaults.sampleRate) * k));
  // The largest scoring call: a tree's root split (2 pivots × n rows), a leaf (leafSize²) or a join (capacity × 2·capacity).
  const slotBytes = 64 + Math.max(12 * n, leafSize * (leafSize + 2) * 4, capacity * 2 * capacity * 4 + capacity * 12);
  const shared = ResidentMatrix.loadShared(matrix, workers + 1, slotBytes, options);
  const rounds = nnDescentRounds(ResidentMatrix.attach(shared, 0), matrix, k, options, true);
  let step = rounds.next();
  if (step.done) return step.value;
  const pool = new JoinWorkerPool(step.value, shared, workers, capacity);
  try {
    while (!step.done) step = rounds.next(await pool.join(step.value, options.signal));
    return step.value;
  } finally {
    await pool.close();
  }
}

/** The join workers of one NN-descent run, kept across its rounds. */
class JoinWorkerPool {
  private readonly workers: Worker[];
  private readonly lowest: Float32Array;
  private readonly next = new Int32Array(new SharedArrayBuffer(4));
  private readonly chunks: number;
  private pending: ((message: NnDescentJoinWorkerMessage) => void) | undefined;
  private failure: ((error: Error) => void) | undefined;
  /** A worker's failure, kept: one that fails between rounds must fail the next round, not leave it waiting. */
  private broken: Error | undefined;
  private closing = false;
  private round = 0;

  constructor(first: NnDescentJoinRound, shared: SharedResidentMatrix, count: number, capacity: number) {
    const n = first.heaps.n;
    this.lowest = new Float32Array(new SharedArrayBuffer(Math.max(1, n) * 4));
    this.chunks = Math.ceil(n / nnDescentInThreadsDefaults.pointsPerChunk);
    const { newCandidates, oldCandidates } = first;
    this.workers = Array.from({ length: count }, (_, index) => {
      const task: NnDescentJoinWorkerTask = {
        shared,
        slot: index + 1,
        n,
        capacity,
        newIndices: newCandidates.indices,
        newCounts: newCandidates.counts,
        oldIndices: oldCandidates.indices,
        oldCounts: oldCandidates.counts,
        lowest: this.lowest,
        next: this.next,
        pointsPerChunk: nnDescentInThreadsDefaults.pointsPerChunk,
      };
      const worker = startModuleWorker(import.meta.url, 'nn-descent-join-worker', task);
      worker.on('message', (message: NnDescentJoinWorkerMessage) => this.pending?.(message));
      worker.on('error', (error) => this.fail(new KgragError('An NN-descent join worker thread failed', { code: 'MATH_WORKER_FAILED', category: 'internal', cause: error })));
      worker.on('exit', (code) => {
        if (code !== 0) this.fail(new KgragError(`An NN-descent join worker thread exited with code ${code}`, { code: 'MATH_WORKER_FAILED', category: 'internal' }));
      });
      return worker;
    });
  }

  /**
   * Runs one round's joins: scored in the workers, applied here in chunk order. Resolves with the list updates once
   * every worker is idle again; rejects with the signal's reason when it aborts (the workers take no more chunks).
   */
  join(round: NnDescentJoinRound, signal: AbortSignal | undefined): Promise<number> {
    if (this.broken) return Promise.reject(this.broken);
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    const number = ++this.round;
    lowestScores(round.heaps, this.lowest);
    Atomics.store(this.next, 0, 0);
    return new Promise((resolve, reject) => {
      const arrived = new Map<number, NnDescentJoinPairs>();
      let applied = 0;
      let idle = 0;
      let updates = 0;
      const stop = (): void => {
        Atomics.store(this.next, 0, this.chunks);
        this.pending = undefined;
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', stop, { once: true });
      this.failure = (error) => {
        signal?.removeEventListener('abort', stop);
        reject(error);
      };
      this.pending = (message) => {
        if ('idle' in message) {
          if (message.idle === number) idle++;
        } else {
          arrived.set(message.chunk, message.pairs);
          for (let pairs = arrived.get(applied); pairs; pairs = arrived.get(applied)) {
            arrived.delete(applied);
            updates += applyJoinPairs(round.heaps, pairs);
            applied++;
          }
        }
        // The candidate lists are redrawn after this resolves, so every worker must have stopped reading them.
        if (applied === this.chunks && idle === this.workers.length) {
          signal?.removeEventListener('abort', stop);
          resolve(updates);
        }
      };
      for (const worker of this.workers) worker.postMessage({ round: number, chunks: this.chunks });
    });
  }

  private fail(error: Error): void {
    if (this.closing) return;
    this.broken ??= error;
    this.failure?.(error);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.pending = undefined;
    this.failure = undefined;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
