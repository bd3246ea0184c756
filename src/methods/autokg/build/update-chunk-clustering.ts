import type { DenseMatrix } from '../../../math/dense-matrix.js';
import type { ChunkClustering, ChunkClusteringMethod } from './cluster-chunk-embeddings.js';
import { positionsOf } from '../../../core/positions-of.js';

/*
 * A clustering of the chunks kept across a small change of the corpus, instead of clustering again: AutoKG's
 * spectral and k-means clusterings (cluster-chunk-embeddings.ts) are global, so one new chunk can move every cluster
 * and, through the LLM's avoid lists, every keyword prompt after it. Here every chunk that stays keeps its cluster,
 * a removed chunk leaves its cluster, and a new chunk joins the cluster whose centroid — the mean of its remaining
 * members' current vectors — is nearest by Euclidean distance (ties to the lower cluster), whichever clustering it
 * is, spectral included: the spectral embedding of the previous corpus does not hold the new chunks. Centroids are
 * taken before any new chunk joins, so the result does not depend on the order of the new chunks. A cluster that
 * lost all its members stays empty.
 *
 * `centreDistances` are measured in the embedding space to the mean of the cluster's members after the change (a
 * fresh clustering measures spectral clusters in the spectral embedding); they choose the chunks a renamed cluster
 * shows the LLM. This is not the clustering a fresh build of the same corpus gives; the keywords step re-clusters
 * from scratch once the share of chunks added or removed since the last full clustering passes
 * `methods.autokg.reclusterShare`.
 */

/** A stored clustering: the cluster of every chunk, by chunk id. */
export interface StoredChunkClustering {
  method: ChunkClusteringMethod;
  clusters: number;
  chunkIds: readonly string[];
  /** Cluster of `chunkIds[i]`. */
  assignments: ArrayLike<number>;
}

/** Result of {@link updateChunkClustering}. */
export interface UpdatedChunkClustering {
  clustering: ChunkClustering;
  /** Per cluster: 1 when its member set changed (a member removed or a chunk added). */
  changed: Uint8Array;
  /** Chunks new to the clustering. */
  added: number;
  /** Chunks of the stored clustering that are gone. */
  removed: number;
}

/**
 * Carries `previous` over to the current chunks (`chunkIds`, whose unit vectors are the rows of `vectors`).
 * Undefined when no stored chunk remains, so that nothing is left to keep.
 */
export function updateChunkClustering(previous: StoredChunkClustering, chunkIds: readonly string[], vectors: DenseMatrix): UpdatedChunkClustering | undefined {
  if (vectors.rows !== chunkIds.length) throw new RangeError(`updateChunkClustering: ${vectors.rows} vectors for ${chunkIds.length} chunks`);
  const { clusters } = previous;
  const { cols, data } = vectors;
  const clusterOf = new Map<string, number>();
  previous.chunkIds.forEach((id, index) => clusterOf.set(id, previous.assignments[index] as number));

  const assignments = new Int32Array(chunkIds.length).fill(-1);
  const kept = new Uint8Array(previous.chunkIds.length);
  const previousIndex = positionsOf(previous.chunkIds);
  const changed = new Uint8Array(clusters);
  const centroids = new Float64Array(clusters * cols);
  const counts = new Float64Array(clusters);
  chunkIds.forEach((id, row) => {
    const cluster = clusterOf.get(id);
    if (cluster === undefined || cluster < 0 || cluster >= clusters) return;
    assignments[row] = cluster;
    kept[previousIndex.get(id) as number] = 1;
    counts[cluster] = (counts[cluster] as number) + 1;
    addRow(centroids, cluster * cols, data, row * cols, cols);
  });
  let removed = 0;
  previous.chunkIds.forEach((_, index) => {
    if (kept[index] === 1) return;
    removed++;
    const cluster = previous.assignments[index] as number;
    if (cluster >= 0 && cluster < clusters) changed[cluster] = 1;
  });
  if (counts.every((count) => count === 0)) return undefined;
  for (let cluster = 0; cluster < clusters; cluster++) scaleRow(centroids, cluster * cols, cols, 1 / Math.max(1, counts[cluster] as number));

  // New chunks join the nearest centroid of the remaining members.
  let added = 0;
  for (let row = 0; row < chunkIds.length; row++) {
    if (assignments[row] !== -1) continue;
    added++;
    let best = -1;
    let bestDistance = Number.POSITIVE_INFINITY;
    for (let cluster = 0; cluster < clusters; cluster++) {
      if (counts[cluster] === 0) continue;
      const distance = squaredDistance(data, row * cols, centroids, cluster * cols, cols);
      if (distance < bestDistance) {
        best = cluster;
        bestDistance = distance;
      }
    }
    assignments[row] = best;
    changed[best] = 1;
  }

  const clustering = { method: previous.method, assignments, clusters } as ChunkClustering;
  // Only the LLM's naming reads the distances (to choose the chunks it shows): LLM-free keywords do not pay for a second
  // pass over every chunk vector and a distance per chunk. Not enumerable, so a copy of the clustering does not compute them.
  let distances: Float64Array | undefined;
  Object.defineProperty(clustering, 'centreDistances', { get: () => (distances ??= centreDistancesOf(assignments, clusters, vectors)), enumerable: false });
  return { clustering, changed, added, removed };
}

/** Distances to the centres of the clusters as they are now, new members included. */
function centreDistancesOf(assignments: Int32Array, clusters: number, vectors: DenseMatrix): Float64Array {
  const { cols, data } = vectors;
  const rows = assignments.length;
  const centres = new Float64Array(clusters * cols);
  const sizes = new Float64Array(clusters);
  for (let row = 0; row < rows; row++) {
    const cluster = assignments[row] as number;
    sizes[cluster] = (sizes[cluster] as number) + 1;
    addRow(centres, cluster * cols, data, row * cols, cols);
  }
  for (let cluster = 0; cluster < clusters; cluster++) scaleRow(centres, cluster * cols, cols, 1 / Math.max(1, sizes[cluster] as number));
  const centreDistances = new Float64Array(rows);
  for (let row = 0; row < rows; row++) {
    centreDistances[row] = Math.sqrt(squaredDistance(data, row * cols, centres, (assignments[row] as number) * cols, cols));
  }
  return centreDistances;
}

function addRow(target: Float64Array, offset: number, source: Float32Array, sourceOffset: number, length: number): void {
  for (let index = 0; index < length; index++) target[offset + index] = (target[offset + index] as number) + (source[sourceOffset + index] as number);
}

function scaleRow(target: Float64Array, offset: number, length: number, factor: number): void {
  for (let index = 0; index < length; index++) target[offset + index] = (target[offset + index] as number) * factor;
}

function squaredDistance(rows: Float32Array, rowOffset: number, centres: Float64Array, centreOffset: number, length: number): number {
  let sum = 0;
  for (let index = 0; index < length; index++) {
    const difference = (rows[rowOffset + index] as number) - (centres[centreOffset + index] as number);
    sum += difference * difference;
  }
  return sum;
}
