import { sha256 } from '../../../core/ids.js';
import { autokgChunkGraph, type AutokgChunkGraphOptions } from './autokg-chunk-graph.js';
import { decodeChunkKnnGraph, encodeChunkKnnGraph, knnListsWithReserve } from '../../../pipeline/steps/chunk-knn-graph-codec.js';
import { chunkKnnArtifact, readChunkKnn } from '../../../pipeline/steps/chunk-knn-step.js';
import type { PipelineStep } from '../../../pipeline/pipeline-step.js';
import type { AutokgConfig } from '../config.js';
import { matrixInRowOrder } from '../../../store/matrix-in-row-order.js';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import { chunkGraphFromShared } from './chunk-graph-from-shared.js';

/** Store blob holding AutoKG's chunk graph (`decodeChunkKnnGraph` reads it). */
export const chunkKnnGraphBlobKey = 'autokg-knn-graph';

/** Meta key of the chunks the stored graph left out as near-duplicates, with what they were found with. */
const leftOutKey = 'autokg:left-out';

/** What {@link leftOutKey} holds. */
interface LeftOutChunks {
  embedderId: string;
  duplicateDistance: number;
  chunkIds: string[];
}

/**
 * `chunk-graph` (AutoKG `make_graph(30)`, wispcarey/AutoKG `autoKG_full.py`): the kNN graph of the chunk
 * embeddings by cosine similarity, K − 1 other chunks per chunk for `methods.autokg.neighbours` = K (graphlearning
 * counts the chunk itself; AutoKG's K = 30 is 29 neighbours), exact rather than Annoy (10 trees) so that it does not
 * depend on a random forest. Near-duplicate chunks (cosine distance < `methods.autokg.duplicateDistance` to a shorter
 * chunk, AutoKG's `remove_same_text`) are left out of the graph, and so out of clustering, keywords and search: the
 * blob's chunk ids are the kept chunks. The neighbours come from the index's shared chunk kNN graph (`chunk-knn`,
 * which KGP's passage graph reads too): each kept chunk keeps its first K − 1 kept neighbours there, which is the exact
 * graph of the kept chunks; a chunk that lost neighbours to a left-out twin takes the next ones from the shared graph's
 * reserve, and only one that lost more is scored again (`knnGraphOfRows`). Above `index.knn.exactUpTo` chunks the shared graph is NN-descent's, and so is this one
 * (`approximate` in the step's counts). Stored as one blob ({@link chunkKnnGraphBlobKey}); similarities are stored,
 * not kernel weights, so the kernel can change without rebuilding the graph. While the chunk vectors are unchanged (the
 * same embedder), an update searches for near-duplicates only around the new chunks and those left out before
 * (`near-duplicates-around.ts`), which finds what a search of all chunks finds.
 */
export function createChunkGraphStep(config: Pick<AutokgConfig, 'neighbours' | 'spectralNeighbours' | 'duplicateDistance'>, knn: { exactUpTo?: number | undefined } = {}): PipelineStep {
  // `exactUpTo` only when set, so that an index built with the default keeps its settings and is not rebuilt.
  const graphSettings: AutokgChunkGraphOptions = {
    neighbours: Math.max(config.neighbours, config.spectralNeighbours),
    duplicateDistance: config.duplicateDistance,
    ...(knn.exactUpTo === undefined ? {} : { exactUpTo: knn.exactUpTo }),
  };
  return {
    name: 'chunk-graph',
    // 2: near-duplicate chunks left out.
    version: 2,
    reads: ['embed-chunks', 'chunk-knn'],
    consumes: [{ artifact: chunkKnnArtifact, params: { k: graphSettings.neighbours - 1 } }],
    settings: () => graphSettings,

    async run(context) {
      const { store } = context;
      const [chunks, info, shared, stored, leftOut] = await Promise.all([
        store.table('chunks').pick(['id', 'nTokens']),
        store.vectors('chunks').info(),
        readChunkKnn(store),
        store.getBlob(chunkKnnGraphBlobKey),
        store.getMeta<LeftOutChunks>(leftOutKey),
      ]);
      const embedderId = info?.embedderId ?? '';
      const chunkIds = chunks.map((chunk) => chunk.id);
      const lengths = chunks.map((chunk) => chunk.nTokens);
      // Rows in chunk order; a chunk without a vector (none after embed-chunks) keeps a zero row.
      let whole: DenseMatrix | undefined;
      const allVectors = async (): Promise<DenseMatrix> => {
        if (whole) return whole;
        const loaded = await store.vectors('chunks').load();
        return (whole = { rows: chunkIds.length, cols: loaded.dimensions, data: matrixInRowOrder(loaded, chunkIds) });
      };
      const sameRows = shared.chunkIds.length === chunkIds.length && shared.chunkIds.every((id, row) => id === chunkIds[row]);
      const candidates = stored && leftOut?.embedderId === embedderId && leftOut.duplicateDistance === graphSettings.duplicateDistance ? nearDuplicateCandidates(chunkIds, decodeChunkKnnGraph(stored).chunkIds, leftOut.chunkIds) : undefined;
      const allRows = sameRows ? knnListsWithReserve(shared) : undefined;
      // An update reads the vectors of the rows near its candidates only, when the shared graph is exact.
      const fromShared =
        allRows && candidates && shared.exact !== false && info !== undefined && info.dimensions > 0
          ? await chunkGraphFromShared(
              {
                rows: chunkIds.length,
                lengths,
                shared: allRows,
                candidates,
                vectorsOf: async (rows) => {
                  const ids = rows.map((row) => chunkIds[row] as string);
                  const loaded = await store.vectors('chunks').load(ids);
                  return { rows: ids.length, cols: loaded.dimensions, data: matrixInRowOrder(loaded, ids) };
                },
                allVectors,
              },
              graphSettings,
              context.signal,
            )
          : undefined;
      const { kept, duplicates, graph, exact, searchedRows } =
        fromShared ??
        (await autokgChunkGraph(await allVectors(), lengths, graphSettings, {
          signal: context.signal,
          onProgress: (done, total) => context.progress(done, total, 'vectors'),
          ...(allRows ? { allRows: { graph: allRows, exact: shared.exact !== false } } : {}),
          ...(candidates ? { nearDuplicateCandidates: candidates } : {}),
        }));
      const keptIds = new Set(Array.from(kept, (row) => chunkIds[row] as string));
      const nowLeftOut: LeftOutChunks = { embedderId, duplicateDistance: graphSettings.duplicateDistance, chunkIds: chunkIds.filter((id) => !keptIds.has(id)) };
      context.progress(1, 1, 'graphs');
      const bytes = encodeChunkKnnGraph({ chunkIds: Array.from(kept, (row) => chunkIds[row] as string), graph });
      return {
        counts: {
          chunks: kept.length,
          duplicates,
          neighbours: graph.k,
          edges: graph.indices.filter((index) => index >= 0).length,
          approximate: exact ? 0 : 1,
          duplicateCandidates: candidates?.length ?? chunkIds.length,
          searchedRows,
          vectorsRead: whole ? chunkIds.length : 0,
        },
        outputVersion: sha256(bytes).slice(0, 32),
        async write(tx) {
          await tx.setBlob(chunkKnnGraphBlobKey, bytes);
          await tx.setMeta(leftOutKey, nowLeftOut);
        },
      };
    },
  };
}

/**
 * The rows of `chunkIds` that every pair of near-duplicates touches, given the chunks the stored graph kept and left
 * out: of two kept chunks within the distance, the later one visited would have been left out, so every pair holds a
 * chunk left out before or a new one.
 */
function nearDuplicateCandidates(chunkIds: readonly string[], keptBefore: readonly string[], leftOutBefore: readonly string[]): number[] {
  const kept = new Set(keptBefore);
  const leftOut = new Set(leftOutBefore);
  const candidates: number[] = [];
  chunkIds.forEach((id, row) => {
    if (!kept.has(id) || leftOut.has(id)) candidates.push(row);
  });
  return candidates;
}
