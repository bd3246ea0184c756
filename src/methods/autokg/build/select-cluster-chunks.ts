import type { Random } from '../../../core/random.js';
import type { ChunkClustering } from './cluster-chunk-embeddings.js';

/*
 * Which chunks of a cluster the model reads. The AutoKG paper (Chen & Bertozzi, arXiv 2311.14740) shows
 * 2c chunks per cluster: the c nearest the cluster centre plus c drawn at random from the rest of the
 * cluster (`nearest-and-random`, c = 15). The reference code has no such mode: it shows the `max_texts` = 15
 * nearest (`nearest`, wispcarey/AutoKG `autoKG_full.py`). Nearest first, ties by chunk index; random draws come
 * from the seeded generator, so the selection is reproducible.
 */

/** How chunks of a cluster are chosen. */
export type ClusterSampling = 'nearest-and-random' | 'nearest';

/** Options of {@link selectClusterChunks}. */
export interface SelectClusterChunksOptions {
  /** c: chunks nearest the centre (and as many random ones with `nearest-and-random`). @default 15 */
  perCluster?: number;
  /** @default 'nearest-and-random' */
  sampling?: ClusterSampling;
  random: Random;
}

/** For every cluster, the chunk indices shown to the model: nearest the centre first, then the random ones. */
export function selectClusterChunks(clustering: ChunkClustering, options: SelectClusterChunksOptions): Int32Array[] {
  const perCluster = options.perCluster ?? 15;
  const sampling = options.sampling ?? 'nearest-and-random';
  const members: number[][] = Array.from({ length: clustering.clusters }, () => []);
  clustering.assignments.forEach((cluster, chunk) => members[cluster]?.push(chunk));
  const distance = clustering.centreDistances;
  return members.map((chunks) => {
    const sorted = [...chunks].sort((left, right) => (distance[left] as number) - (distance[right] as number) || left - right);
    const chosen = sorted.slice(0, perCluster);
    if (sampling === 'nearest-and-random') {
      // Partial Fisher–Yates over the rest of the cluster.
      const rest = sorted.slice(perCluster);
      const draws = Math.min(perCluster, rest.length);
      for (let draw = 0; draw < draws; draw++) {
        const pick = draw + Math.floor(options.random() * (rest.length - draw));
        const value = rest[pick] as number;
        rest[pick] = rest[draw] as number;
        rest[draw] = value;
        chosen.push(value);
      }
    }
    return Int32Array.from(chosen);
  });
}
