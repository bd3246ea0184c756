import { exactKnnGraph } from './exact-knn-graph.js';
import type { DenseMatrix } from './dense-matrix.js';
import type { KnnGraph } from './knn-graph.js';
import { nnDescent, type NnDescentOptions } from './nn-descent.js';
import { nnDescentInThreads } from './nn-descent-in-threads.js';

/*
 * The exact kNN graph scores all n²/2 pairs: 4.9·10¹² multiply-adds for 100,000 chunks at 1,024 dimensions, about
 * 400 s of CPU here, and it grows as n² while every other index step grows about as n. Above `exactUpTo` rows the
 * graph is built by NN-descent instead (math/nn-descent.ts), which scores a share of the pairs that falls as n grows.
 * Below it, where the exact graph costs seconds, every index keeps the exact graph its results were measured on.
 *
 * NN-descent runs with sampling ρ = 1 and δ = 10⁻⁴ rather than the paper's 0.5 and 10⁻³: on the local embedder's
 * sparse hashed vectors (72 % zeros, high intrinsic dimension) the defaults stopped at recall 0.75 of the exact
 * 29-NN lists on 24,486 2Wiki chunks, these reach 0.83 (docs/BENCHMARKS.md, "kNN graphs at scale").
 */

/** Defaults of {@link knnGraphBySize}. */
export const knnGraphBySizeDefaults = {
  /** Rows up to which the graph is exact. */
  exactUpTo: 50_000,
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
}

/** Options of {@link knnGraphBySize}. */
export interface KnnGraphBySizeOptions {
  /** @default knnGraphBySizeDefaults.exactUpTo */
  exactUpTo?: number;
  /** Seed of NN-descent. @default knnGraphBySizeDefaults.seed */
  seed?: number;
  /** Score NN-descent's joins in worker threads (the same graph, bit for bit). @default true */
  worker?: boolean;
}

/** The `k` nearest neighbours of every unit row: exact up to `exactUpTo` rows, by NN-descent above. Deterministic. */
export async function knnGraphBySize(matrix: DenseMatrix, k: number, options: KnnGraphBySizeOptions = {}): Promise<KnnGraphBySize> {
  if (matrix.rows <= (options.exactUpTo ?? knnGraphBySizeDefaults.exactUpTo)) return { ...(await exactKnnGraph(matrix, k)), exact: true };
  const descent: NnDescentOptions = {
    sampleRate: knnGraphBySizeDefaults.sampleRate,
    delta: knnGraphBySizeDefaults.delta,
    maxIterations: knnGraphBySizeDefaults.maxIterations,
    seed: options.seed ?? knnGraphBySizeDefaults.seed,
  };
  const { indices, similarities } = options.worker === false ? nnDescent(matrix, k, descent) : await nnDescentInThreads(matrix, k, descent);
  return { n: matrix.rows, k, indices, similarities, exact: false };
}
