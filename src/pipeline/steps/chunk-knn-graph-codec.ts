import type { KnnGraph } from '../../math/knn-graph.js';
import { packTypedArrays, unpackTypedArrays, type BundledArray } from '../../graph/typed-array-bundle.js';

/*
 * A chunk kNN graph as one blob rather than `chunk_edges` rows: 6,119 chunks × 29 neighbours are 177k rows, which
 * cost seconds to insert and to read back, while the graph's users (clustering, Laplace learning, passage graphs)
 * want typed arrays anyway. The blob holds the chunk ids (row i of the graph is chunk ids[i]),
 * the neighbour indices (−1 padding) and their cosine similarities, neighbours most similar first. An exact graph may
 * carry a reserve: each row's next neighbours after its first k, so that an update that removes some of a row's
 * neighbours takes the next ones from it instead of scoring the row again (`update-knn-graph.ts`).
 */

/** Each row's neighbours after its first k (−1 padding where the row's exact list is shorter), as the graph's lists are. */
export interface KnnReserve {
  /** Slots per row. */
  width: number;
  indices: Int32Array;
  similarities: Float32Array;
}

/** A chunk kNN graph with the chunk id of every row. */
export interface ChunkKnnGraph {
  chunkIds: string[];
  graph: KnnGraph;
  /** Whether every list is exact (false when NN-descent built the graph). @default true */
  exact?: boolean;
  /** Each row's next neighbours after the graph's k; readers of the graph ignore it. */
  reserve?: KnnReserve;
}

/** Packs a chunk kNN graph into bytes for a store blob. */
export function encodeChunkKnnGraph(value: ChunkKnnGraph): Uint8Array {
  const { graph, chunkIds } = value;
  if (chunkIds.length !== graph.n) throw new RangeError(`encodeChunkKnnGraph: ${chunkIds.length} ids for ${graph.n} rows`);
  const { reserve } = value;
  if (reserve && (reserve.indices.length !== graph.n * reserve.width || reserve.similarities.length !== graph.n * reserve.width)) throw new RangeError('encodeChunkKnnGraph: reserve lengths do not match the graph');
  const arrays: Record<string, BundledArray> = reserve && reserve.width > 0 ? { indices: graph.indices, similarities: graph.similarities, reserveIndices: reserve.indices, reserveSimilarities: reserve.similarities } : { indices: graph.indices, similarities: graph.similarities };
  const header = { version: 1, k: graph.k, chunkIds, ...(value.exact === false ? { exact: false } : {}), ...(reserve && reserve.width > 0 ? { reserve: reserve.width } : {}) };
  return packTypedArrays({ json: header, arrays });
}

/** Reads what {@link encodeChunkKnnGraph} wrote. */
export function decodeChunkKnnGraph(bytes: Uint8Array): ChunkKnnGraph {
  const { json, arrays } = unpackTypedArrays(bytes);
  const header = json as { version: number; k: number; chunkIds: string[]; exact?: boolean; reserve?: number };
  const { indices, similarities, reserveIndices, reserveSimilarities } = arrays;
  if (header.version !== 1 || !(indices instanceof Int32Array) || !(similarities instanceof Float32Array)) throw new RangeError('decodeChunkKnnGraph: not a chunk kNN graph blob');
  const n = header.chunkIds.length;
  if (indices.length !== n * header.k || similarities.length !== n * header.k) throw new RangeError('decodeChunkKnnGraph: array lengths do not match the header');
  const graph = { n, k: header.k, indices, similarities };
  const width = header.reserve ?? 0;
  if (width === 0) return { chunkIds: header.chunkIds, graph, exact: header.exact !== false };
  if (!(reserveIndices instanceof Int32Array) || !(reserveSimilarities instanceof Float32Array) || reserveIndices.length !== n * width || reserveSimilarities.length !== n * width) throw new RangeError('decodeChunkKnnGraph: reserve lengths do not match the header');
  return { chunkIds: header.chunkIds, graph, exact: header.exact !== false, reserve: { width, indices: reserveIndices, similarities: reserveSimilarities } };
}

/**
 * Each row's graph list followed by its reserve: lists of up to k + reserve neighbours, the exact top of the other rows
 * when the graph is exact (−1 padding at the end), as `updateKnnGraphTask` and `knnGraphOfRows` read them.
 */
export function knnListsWithReserve(stored: ChunkKnnGraph): KnnGraph {
  const { graph, reserve } = stored;
  if (!reserve) return graph;
  const width = graph.k + reserve.width;
  const indices = new Int32Array(graph.n * width);
  const similarities = new Float32Array(graph.n * width);
  for (let row = 0; row < graph.n; row++) {
    indices.set(graph.indices.subarray(row * graph.k, (row + 1) * graph.k), row * width);
    indices.set(reserve.indices.subarray(row * reserve.width, (row + 1) * reserve.width), row * width + graph.k);
    similarities.set(graph.similarities.subarray(row * graph.k, (row + 1) * graph.k), row * width);
    similarities.set(reserve.similarities.subarray(row * reserve.width, (row + 1) * reserve.width), row * width + graph.k);
  }
  return { n: graph.n, k: width, indices, similarities };
}
