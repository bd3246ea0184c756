import { sha256 } from '../../../core/ids.js';
import { autokgChunkGraph, type AutokgChunkGraphOptions } from './autokg-chunk-graph.js';
import { encodeChunkKnnGraph } from './chunk-knn-graph-codec.js';
import type { PipelineStep } from '../../../pipeline/pipeline-step.js';
import type { AutokgConfig } from '../config.js';
import { matrixInRowOrder } from '../../../store/matrix-in-row-order.js';

/** Store blob holding the chunk kNN graph (`decodeChunkKnnGraph` reads it). */
export const chunkKnnGraphBlobKey = 'autokg-knn-graph';

/**
 * `knn-graph` (AutoKG `make_graph(30)`, wispcarey/AutoKG `autoKG_full.py`): the exact kNN graph of the chunk
 * embeddings by cosine similarity, K − 1 other chunks per chunk for `methods.autokg.neighbours` = K (graphlearning
 * counts the chunk itself; AutoKG's K = 30 is 29 neighbours). Exact rather than Annoy (10 trees) up to
 * `index.knn.exactUpTo` kept chunks (50,000 by default), so the graph does not depend on a random forest; above, where the exact graph's n² cost outgrows every
 * other step, by seeded NN-descent (`approximate` in the step's counts). Near-duplicate chunks (cosine distance < `methods.autokg.duplicateDistance`
 * to a shorter chunk, AutoKG's `remove_same_text`) are left out of the graph, and so out of clustering,
 * keywords and search: the blob's chunk ids are the kept chunks. Identical vectors (a repeated chunk) are searched once
 * in both searches, and both pause for the event loop, so the step's `signal` (Ctrl-C) stops it. Stored as one blob ({@link chunkKnnGraphBlobKey},
 * chunk-knn-graph-codec.ts), not as `chunk_edges` rows: the keywords step wants typed arrays, and 177k
 * rows on 2Wiki would cost seconds to write and read. Similarities are stored, not kernel weights, so the
 * kernel can change without rebuilding the graph.
 */
export function createKnnGraphStep(config: Pick<AutokgConfig, 'neighbours' | 'spectralNeighbours' | 'duplicateDistance'>, knn: { exactUpTo?: number | undefined } = {}): PipelineStep {
  // `exactUpTo` only when set, so that an index built with the default keeps its settings and is not rebuilt.
  const graphSettings: AutokgChunkGraphOptions = {
    neighbours: Math.max(config.neighbours, config.spectralNeighbours),
    duplicateDistance: config.duplicateDistance,
    ...(knn.exactUpTo === undefined ? {} : { exactUpTo: knn.exactUpTo }),
  };
  return {
    name: 'knn-graph',
    // 2: near-duplicate chunks left out.
    version: 2,
    reads: ['embed-chunks'],
    settings: () => graphSettings,

    async run(context) {
      const { store } = context;
      const [chunks, loaded] = await Promise.all([store.table('chunks').pick(['id', 'nTokens']), store.vectors('chunks').load()]);
      // Rows in chunk order; a chunk without a vector (none after embed-chunks) keeps a zero row.
      const dimensions = loaded.dimensions;
      const vectors = matrixInRowOrder(loaded, chunks.map((chunk) => chunk.id));
      const { kept, duplicates, graph, exact } = await autokgChunkGraph(
        { rows: chunks.length, cols: dimensions, data: vectors },
        chunks.map((chunk) => chunk.nTokens),
        graphSettings,
        { signal: context.signal, onProgress: (done, total) => context.progress(done, total, 'vectors') },
      );
      context.progress(1, 1, 'graphs');
      const bytes = encodeChunkKnnGraph({ chunkIds: Array.from(kept, (row) => (chunks[row] as { id: string }).id), graph });
      return {
        counts: { chunks: kept.length, duplicates, neighbours: graph.k, edges: graph.indices.filter((index) => index >= 0).length, approximate: exact ? 0 : 1 },
        outputVersion: sha256(bytes).slice(0, 32),
        async write(tx) {
          await tx.setBlob(chunkKnnGraphBlobKey, bytes);
        },
      };
    },
  };
}
