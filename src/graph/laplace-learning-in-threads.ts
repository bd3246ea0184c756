import { availableParallelism } from 'node:os';
import { runModuleWorker } from '../core/run-module-worker.js';
import { sharedCopy } from '../core/shared-copy.js';
import {
  laplaceLearning,
  laplaceLearningSettings,
  type KeywordAssignment,
  type KeywordSeeds,
  type LaplaceLearningGraph,
  type LaplaceLearningOptions,
  type LaplaceLearningSettings,
} from './laplace-learning.js';

/*
 * Laplace learning (graph/laplace-learning.ts) with its keyword blocks spread over worker threads. Each block of
 * keywords is its own block-CG solve on the shared Laplacian, so the workers take blocks from a shared counter,
 * read the graph from shared memory, and send their assignments back; they are put in keyword order. The result is
 * the calling-thread result whatever the thread count and timing.
 *
 * Defaults: threads = the machine's available parallelism, capped by the blocks; under 2·10⁶ stored Laplacian
 * entries × keywords the calling thread runs everything, where starting workers would cost more than they save.
 */

/** Defaults of {@link laplaceLearningInThreads}. */
export const laplaceLearningInThreadsDefaults = {
  minimumWorkForThreads: 2e6,
} as const;

/** Options of {@link laplaceLearningInThreads}. */
export interface LaplaceLearningInThreadsOptions extends LaplaceLearningOptions {
  /** Worker threads at most. @default availableParallelism() */
  threads?: number;
  /** Stored Laplacian entries × keywords under which the calling thread runs everything. @default 2e6 */
  minimumWorkForThreads?: number;
}

/** What the main thread sends each worker: the graph's arrays over SharedArrayBuffers. */
export interface LaplaceLearningWorkerTask {
  n: number;
  rowPointers: Int32Array;
  columnIndices: Int32Array;
  values: Float64Array;
  component: Int32Array;
  componentCount: number;
  keywords: Array<{ positives: number[]; negatives: number[] }>;
  settings: LaplaceLearningSettings;
  /** Int32Array over a SharedArrayBuffer: the next block to take. */
  next: Int32Array;
}

/** What a worker sends back: the assignments of the blocks it solved. */
export interface LaplaceLearningWorkerResult {
  blocks: Array<{ block: number; assignments: KeywordAssignment[] }>;
}

/** {@link laplaceLearning} with the keyword blocks solved in worker threads; the same assignments, in keyword order. */
export async function laplaceLearningInThreads(graph: LaplaceLearningGraph, keywords: readonly KeywordSeeds[], options: LaplaceLearningInThreadsOptions = {}): Promise<KeywordAssignment[]> {
  const settings = laplaceLearningSettings(options);
  const blocks = Math.ceil(keywords.length / settings.blockSize);
  const threads = Math.min(blocks, Math.max(1, Math.floor(options.threads ?? availableParallelism())));
  const entries = graph.laplacian.rowPointers[graph.n] ?? 0;
  if (threads <= 1 || entries * keywords.length < (options.minimumWorkForThreads ?? laplaceLearningInThreadsDefaults.minimumWorkForThreads)) {
    return laplaceLearning(graph, keywords, options);
  }
  const task: LaplaceLearningWorkerTask = {
    n: graph.n,
    rowPointers: sharedCopy(graph.laplacian.rowPointers),
    columnIndices: sharedCopy(graph.laplacian.columnIndices),
    values: sharedCopy(graph.laplacian.values),
    component: sharedCopy(graph.component),
    componentCount: graph.componentCount,
    keywords: keywords.map((seeds) => ({ positives: Array.from(seeds.positives), negatives: Array.from(seeds.negatives) })),
    settings,
    next: new Int32Array(new SharedArrayBuffer(4)),
  };
  const replies = await Promise.all(
    Array.from({ length: threads }, () =>
      runModuleWorker<LaplaceLearningWorkerResult>(import.meta.url, 'laplace-learning-worker', task, 'a Laplace-learning worker thread', 'Pass { threads: 1 } to solve in the calling thread'),
    ),
  );
  const byBlock: KeywordAssignment[][] = new Array(blocks);
  for (const reply of replies) for (const { block, assignments } of reply.blocks) byBlock[block] = assignments;
  return byBlock.flat();
}
