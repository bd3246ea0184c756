import { runTask } from '../core/cooperative-task.js';
import { exactKnnGraph } from './exact-knn-graph.js';
import type { DenseMatrix } from './dense-matrix.js';
import { expandGroupKnnGraphTask } from './expand-group-knn-graph.js';
import { identicalRowGroups } from './identical-row-groups.js';
import type { KnnGraph } from './knn-graph.js';
import { nnDescent, type NnDescentOptions } from './nn-descent.js';
import { nnDescentInThreads } from './nn-descent-in-threads.js';
import { ResidentMatrix } from './wasm/resident-matrix.js';

/*
 * The exact kNN graph scores all n²/2 pairs: 4.9·10¹² multiply-adds for 100,000 chunks at 1,024 dimensions, about
 * 400 s of CPU here, and it grows as n² while every other index step grows about as n. Above `exactUpTo` rows the
 * graph is built by NN-descent instead (math/nn-descent.ts), which scores a share of the pairs that falls as n grows.
 * Below it, where the exact graph costs seconds, every index keeps the exact graph its results were measured on.
 *
 * Identical rows (a repeated chunk) are searched once: the graph is built over one row per group of identical rows
 * and expanded to every row (math/expand-group-knn-graph.ts), which gives the exact graph of all rows bit for bit,
 * ties by index, at the cost of the distinct rows; 4,000 copies of one log chunk cost one row. `exactUpTo` counts
 * the rows searched. When copies are fewer than a quarter of the rows the matrix is searched as it is: the graph is
 * the same, the search costs at most 1/0.75² ≈ 1.8 times the distinct rows' search, and no copy of the distinct rows
 * (400 MB at 100,000 chunks of 1,024 dimensions) is made.
 *
 * NN-descent runs with sampling ρ = 1 and δ = 10⁻⁴ rather than the paper's 0.5 and 10⁻³: on the local embedder's
 * sparse hashed vectors (72 % zeros, high intrinsic dimension) the defaults stopped at recall 0.75 of the exact
 * 29-NN lists on 24,486 2Wiki chunks, these reach 0.83 (docs/BENCHMARKS.md, "kNN graphs at scale").
 */

/** Defaults of {@link knnGraphBySize}. */
export const knnGraphBySizeDefaults = {
  /** Rows searched (distinct rows when copies were grouped) up to which the graph is exact. */
  exactUpTo: 50_000,
  /** Copies are grouped when the distinct rows are at most this share of the rows. */
  groupBelowDistinctShare: 0.75,
  /** NN-descent's join sampling ρ and stopping δ above it. */
  sampleRate: 1,
  delta: 1e-4,
  maxIterations: 20,
  seed: 42,
} as const;

/** A kNN graph and how it was built. */
export interface KnnGraphBySize extends KnnGraph {
  /** Whether every list is the exact one; `false` when NN-descent built it. */
  exact: boolean;
  /** Rows searched: the distinct rows when copies were grouped (they take their row's lists), else all rows. */
  searchedRows: number;
}

/** Options of {@link knnGraphBySize}. */
export interface KnnGraphBySizeOptions {
  /** @default knnGraphBySizeDefaults.exactUpTo (also when `undefined`) */
  exactUpTo?: number | undefined;
  /** Seed of NN-descent. @default knnGraphBySizeDefaults.seed */
  seed?: number;
  /** Score NN-descent's joins in worker threads (the same graph, bit for bit). @default true */
  worker?: boolean;
  /** Stops the build at its next pause (between tiles, rounds or groups); the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/**
 * The `k` nearest neighbours of every unit row: exact up to `exactUpTo` rows searched, by NN-descent above; identical
 * rows are searched once when they are many. Deterministic.
 */
export async function knnGraphBySize(matrix: DenseMatrix, k: number, options: KnnGraphBySizeOptions = {}): Promise<KnnGraphBySize> {
  options.signal?.throwIfAborted();
  const groups = identicalRowGroups(matrix.data, matrix.rows, matrix.cols);
  // A bad k or matrix is reported by the builders, from the whole matrix.
  const valid = Number.isInteger(k) && k >= 0 && matrix.data.length === matrix.rows * matrix.cols;
  if (groups.count > matrix.rows * knnGraphBySizeDefaults.groupBelowDistinctShare || !valid) return { ...(await distinctRowsGraph(matrix, k, options)), searchedRows: matrix.rows };
  const { cols } = matrix;
  const data = new Float32Array(groups.count * cols);
  groups.representatives.forEach((row, group) => data.set(matrix.data.subarray(row * cols, (row + 1) * cols), group * cols));
  const representatives = { rows: groups.count, cols, data };
  const { exact, ...groupGraph } = await distinctRowsGraph(representatives, Math.min(k, groups.count - 1), options);
  const graph = await runTask(expandGroupKnnGraphTask(groups, groupGraph, selfScores(representatives, groups.starts), k), { signal: options.signal });
  return { ...graph, exact, searchedRows: groups.count };
}

/** The graph of the rows as they are: exact up to `exactUpTo` rows, else NN-descent. */
async function distinctRowsGraph(matrix: DenseMatrix, k: number, options: KnnGraphBySizeOptions): Promise<KnnGraph & { exact: boolean }> {
  const { signal } = options;
  if (matrix.rows <= (options.exactUpTo ?? knnGraphBySizeDefaults.exactUpTo)) return { ...(await exactKnnGraph(matrix, k, { signal })), exact: true };
  const descent: NnDescentOptions = {
    sampleRate: knnGraphBySizeDefaults.sampleRate,
    delta: knnGraphBySizeDefaults.delta,
    maxIterations: knnGraphBySizeDefaults.maxIterations,
    seed: options.seed ?? knnGraphBySizeDefaults.seed,
    signal,
  };
  const { indices, similarities } = options.worker === false ? nnDescent(matrix, k, descent) : await nnDescentInThreads(matrix, k, descent);
  return { n: matrix.rows, k, indices, similarities, exact: false };
}

/**
 * ⟨x, x⟩ of every group's row with more than one copy, by the kernel the graph builders score with (the same
 * backend, which computes each pair the same way in any block), so that copies rank as the exact graph ranks them.
 */
function selfScores(representatives: DenseMatrix, starts: Int32Array): Float32Array {
  const { rows, cols } = representatives;
  const scores = new Float32Array(rows);
  const copied: number[] = [];
  for (let group = 0; group < rows; group++) if ((starts[group + 1] as number) - (starts[group] as number) > 1) copied.push(group);
  if (copied.length === 0) return scores;
  const data = new Float32Array(copied.length * cols);
  copied.forEach((group, index) => data.set(representatives.data.subarray(group * cols, (group + 1) * cols), index * cols));
  const resident = ResidentMatrix.load({ rows: copied.length, cols, data });
  copied.forEach((group, index) => (scores[group] = resident.scoreRowBlock(index, index + 1, index, index + 1)[0] as number));
  return scores;
}
