import type { KnnGraph } from '../../math/knn-graph.js';
import { packTypedArrays, unpackTypedArrays } from '../../graph/typed-array-bundle.js';

/*
 * A chunk kNN graph as one blob rather than `chunk_edges` rows: 6,119 chunks × 29 neighbours are 177k rows, which
 * cost seconds to insert and to read back, while the graph's users (clustering, Laplace learning, passage graphs)
 * want typed arrays anyway. The blob holds the chunk ids (row i of the graph is chunk ids[i]),
 * the neighbour indices (−1 padding) and their cosine similarities, neighbours most similar first.
 */

/** A chunk kNN graph with the chunk id of every row. */
export interface ChunkKnnGraph {
  chunkIds: string[];
  graph: KnnGraph;
  /** Whether every list is exact (false when NN-descent built the graph). @default true */
  exact?: boolean;
}

/** Packs a chunk kNN graph into bytes for a store blob. */
export function encodeChunkKnnGraph(value: ChunkKnnGraph): Uint8Array {
  const { graph, chunkIds } = value;
  if (chunkIds.length !== graph.n) throw new RangeError(`encodeChunkKnnGraph: ${chunkIds.length} ids for ${graph.n} rows`);
  return packTypedArrays({ json: { version: 1, k: graph.k, chunkIds, ...(value.exact === false ? { exact: false } : {}) }, arrays: { indices: graph.indices, similarities: graph.similarities } });
}

/** Reads what {@link encodeChunkKnnGraph} wrote. */
export function decodeChunkKnnGraph(bytes: Uint8Array): ChunkKnnGraph {
  const { json, arrays } = unpackTypedArrays(bytes);
  const header = json as { version: number; k: number; chunkIds: string[]; exact?: boolean };
  const { indices, similarities } = arrays;
  if (header.version !== 1 || !(indices instanceof Int32Array) || !(similarities instanceof Float32Array)) throw new RangeError('decodeChunkKnnGraph: not a chunk kNN graph blob');
  const n = header.chunkIds.length;
  if (indices.length !== n * header.k || similarities.length !== n * header.k) throw new RangeError('decodeChunkKnnGraph: array lengths do not match the header');
  return { chunkIds: header.chunkIds, graph: { n, k: header.k, indices, similarities }, exact: header.exact !== false };
}
