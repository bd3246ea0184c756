import { knnKernelWeights } from '../../../graph/knn-kernel-weights.js';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import { squaredDistanceAt } from '../../../math/dense-vectors.js';
import { kMeansInThreads } from '../../../math/k-means-in-threads.js';
import type { KnnGraph } from '../../../math/knn-graph.js';
import { spectralEmbedding } from '../../../math/spectral-embedding.js';

/*
 * AutoKG's two clusterings of the chunk embeddings (wispcarey/AutoKG `autoKG_full.py: cluster`;
 * wispcarey/AutoKG `autoKG_full.py`):
 *  - `k-means`: scikit-learn `KMeans(n, init='k-means++', n_init=5)` on the raw embeddings → math/k-means.ts
 *    with 5 restarts, run side by side in worker threads on large inputs (math/k-means-in-threads.ts, the same
 *    result);
 *  - `spectral`: Ng–Jordan–Weiss — graphlearning's `eigen_decomp(normalization='normalized', k=n+5)` on the
 *    reference code's K = 20 self-tuned Gaussian kNN graph, rows scaled to unit length, then k-means with n
 *    clusters on all n + 5 coordinates → graph/knn-kernel-weights.ts and math/spectral-embedding.ts.
 * The K = 20 graph (graphlearning counts the point itself: 19 other chunks) is the first 19 neighbours of
 * the index's chunk kNN graph, which is sorted (and exact up to 50,000 chunks), so it is not searched again.
 *
 * Each chunk's distance to its cluster centre is measured in the space that was clustered (the embeddings
 * for k-means, the spectral embedding for spectral), as the reference's `select_mtd='similarity'` does.
 *
 * Defaults: n = 15 clusters, spectral K = 20 (including the point), 5 restarts, seed 42.
 */

/** Defaults of {@link clusterChunkEmbeddings}. */
export const clusterChunkEmbeddingsDefaults = {
  clusters: 15,
  /** Spectral graph neighbours counting the chunk itself (graphlearning convention; 19 other chunks). */
  spectralNeighbours: 20,
  /** Extra eigenvectors beyond the cluster count (reference `k = n + 5`). */
  extraEigenvectors: 5,
  restarts: 5,
  seed: 42,
} as const;

/** How the chunk embeddings are clustered. */
export type ChunkClusteringMethod = 'spectral' | 'k-means';

/** Options of {@link clusterChunkEmbeddings}. */
export interface ClusterChunkEmbeddingsOptions {
  /** @default 15 */
  clusters?: number;
  /** @default 20 */
  spectralNeighbours?: number;
  /** Eigenvectors beyond the cluster count in spectral clustering (reference `k = n + 5`). @default 5 */
  extraEigenvectors?: number;
  /** @default 5 */
  restarts?: number;
  /** @default 42 */
  seed?: number;
  /** Worker threads for the k-means restarts; 1 runs them in the calling thread. @default availableParallelism() */
  threads?: number;
}

/** A clustering of the chunks. */
export interface ChunkClustering {
  method: ChunkClusteringMethod;
  /** Cluster of every chunk. */
  assignments: Int32Array;
  /** Euclidean distance of every chunk to its cluster's centre, in the clustered space. */
  centreDistances: Float64Array;
  /** Number of clusters (at most the number of chunks). */
  clusters: number;
}

/**
 * Clusters unit chunk embeddings by k-means or by spectral clustering on `graph` (the chunk kNN graph,
 * sorted by similarity; only needed for `spectral`). Deterministic for a seed, whatever the threads.
 */
export async function clusterChunkEmbeddings(
  method: ChunkClusteringMethod,
  vectors: DenseMatrix,
  graph: KnnGraph | undefined,
  options: ClusterChunkEmbeddingsOptions = {},
): Promise<ChunkClustering> {
  const clusters = Math.min(options.clusters ?? clusterChunkEmbeddingsDefaults.clusters, vectors.rows);
  const restarts = options.restarts ?? clusterChunkEmbeddingsDefaults.restarts;
  const seed = options.seed ?? clusterChunkEmbeddingsDefaults.seed;
  if (clusters < 1) return { method, assignments: new Int32Array(0), centreDistances: new Float64Array(0), clusters: 0 };
  let space = vectors;
  if (method === 'spectral') {
    if (!graph || graph.n !== vectors.rows) throw new RangeError(`clusterChunkEmbeddings: spectral clustering needs the ${vectors.rows}-chunk kNN graph`);
    const neighbours = Math.max(1, Math.min(graph.k, (options.spectralNeighbours ?? clusterChunkEmbeddingsDefaults.spectralNeighbours) - 1));
    const weights = knnKernelWeights(graph, { kernel: 'gaussian', k: neighbours });
    const dimensions = Math.min(vectors.rows, clusters + (options.extraEigenvectors ?? clusterChunkEmbeddingsDefaults.extraEigenvectors));
    space = spectralEmbedding(weights, dimensions, { seed }).embedding;
  }
  const result = await kMeansInThreads(space, clusters, { restarts, seed, ...(options.threads === undefined ? {} : { threads: options.threads }) });
  const centreDistances = new Float64Array(space.rows);
  for (let row = 0; row < space.rows; row++) {
    const cluster = result.assignments[row] as number;
    centreDistances[row] = Math.sqrt(squaredDistanceAt(space.data, row * space.cols, result.centroids.data, cluster * space.cols, space.cols));
  }
  return { method, assignments: result.assignments, centreDistances, clusters };
}
