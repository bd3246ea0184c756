import { KgragError } from '../../core/errors.js';
import { sha256 } from '../../core/ids.js';
import { knnGraphBySize } from '../../math/knn-graph-by-size.js';
import type { Store } from '../../store/store.js';
import { matrixInRowOrder } from '../../store/matrix-in-row-order.js';
import type { ArtifactProvider } from '../compose-pipeline.js';
import type { PipelineStep } from '../pipeline-step.js';
import { decodeChunkKnnGraph, encodeChunkKnnGraph, type ChunkKnnGraph } from './chunk-knn-graph-codec.js';

/** The artifact's name, as steps request it: `{ artifact: chunkKnnArtifact, params: { k } }`. */
export const chunkKnnArtifact = 'chunk-knn';

/** Store blob holding the chunk kNN graph (`readChunkKnn` reads it). */
export const chunkKnnBlobKey = 'chunk-knn';

/**
 * `chunk-knn`: the kNN graph of every chunk's vector by cosine similarity, k other chunks per chunk (fewer when the
 * index has fewer chunks), the most similar first, ties by chunk order. Exact up to `index.knn.exactUpTo` distinct
 * vectors (50,000 by default), seeded NN-descent above (`approximate` in the step's counts). One graph serves every
 * step that consumes the artifact: the composer makes this step with the largest k they ask for, and each takes the
 * first k of each row (`knnGraphOfRows`); on the exact graph that prefix is exactly the graph a smaller k would have
 * built, since both rank by score, then index. Stored as one blob ({@link chunkKnnBlobKey}) of typed arrays.
 */
export function createChunkKnnStep(k: number, knn: { exactUpTo?: number | undefined } = {}): PipelineStep {
  // `exactUpTo` only when set, so that an index built with the default keeps its settings and is not rebuilt.
  const settings = { k, ...(knn.exactUpTo === undefined ? {} : { exactUpTo: knn.exactUpTo }) };
  return {
    name: 'chunk-knn',
    version: 1,
    reads: ['embed-chunks'],
    settings: () => settings,

    async run(context) {
      const { store } = context;
      const [chunks, loaded] = await Promise.all([store.table('chunks').pick(['id']), store.vectors('chunks').load()]);
      const chunkIds = chunks.map((chunk) => chunk.id);
      const { dimensions } = loaded;
      const neighbours = Math.max(0, Math.min(k, chunkIds.length - 1));
      // A chunk without a vector (none after embed-chunks) keeps a zero row.
      const built =
        dimensions > 0 && neighbours > 0
          ? await knnGraphBySize({ rows: chunkIds.length, cols: dimensions, data: matrixInRowOrder(loaded, chunkIds) }, neighbours, { exactUpTo: knn.exactUpTo, signal: context.signal })
          : { n: chunkIds.length, k: 0, indices: new Int32Array(0), similarities: new Float32Array(0), exact: true };
      context.progress(1, 1, 'graphs');
      const bytes = encodeChunkKnnGraph({ chunkIds, graph: { n: built.n, k: built.k, indices: built.indices, similarities: built.similarities }, exact: built.exact });
      return {
        counts: { chunks: chunkIds.length, neighbours: built.k, approximate: built.exact ? 0 : 1 },
        outputVersion: sha256(bytes).slice(0, 32),
        async write(tx) {
          await tx.setBlob(chunkKnnBlobKey, bytes);
        },
      };
    },
  };
}

/** The provider of the `chunk-knn` artifact for the composer, with the index's kNN options (`index.knn`). */
export function chunkKnnProvider(knn: { exactUpTo?: number | undefined } = {}): ArtifactProvider {
  return {
    artifact: chunkKnnArtifact,
    step: 'chunk-knn',
    create: (params) => createChunkKnnStep(params['k'] ?? 0, knn),
  };
}

/** The stored chunk kNN graph, for a step that consumes it (and so ran after `chunk-knn`). */
export async function readChunkKnn(store: Store): Promise<ChunkKnnGraph> {
  const blob = await store.getBlob(chunkKnnBlobKey);
  if (!blob) {
    throw new KgragError('the chunk kNN graph is missing although the step that consumes it runs after it', {
      code: 'PIPELINE_UNKNOWN_STEP',
      category: 'internal',
      hint: 'run kgrag index again; the chunk-knn step rebuilds it',
    });
  }
  return decodeChunkKnnGraph(blob);
}
