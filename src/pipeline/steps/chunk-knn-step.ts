import { runTask } from '../../core/cooperative-task.js';
import { KgragError } from '../../core/errors.js';
import { sha256 } from '../../core/ids.js';
import type { DenseMatrix } from '../../math/dense-matrix.js';
import { identicalRowGroups } from '../../math/identical-row-groups.js';
import { knnGraphBySize, knnGraphBySizeDefaults } from '../../math/knn-graph-by-size.js';
import type { KnnGraph } from '../../math/knn-graph.js';
import type { Store } from '../../store/store.js';
import { matrixInRowOrder } from '../../store/matrix-in-row-order.js';
import type { ArtifactProvider } from '../compose-pipeline.js';
import { recordStatisticsEpoch, statisticsEpochOf } from '../corpus-statistics.js';
import type { PipelineStep } from '../pipeline-step.js';
import { decodeChunkKnnGraph, encodeChunkKnnGraph, knnListsWithReserve, type ChunkKnnGraph, type KnnReserve } from './chunk-knn-graph-codec.js';
import { finishKnnGraphUpdateTask, knnGraphUpdateScores, planKnnGraphUpdate, type UpdatedKnnGraph } from './update-knn-graph.js';
import { positionsOf } from '../../core/positions-of.js';

/** The artifact's name, as steps request it: `{ artifact: chunkKnnArtifact, params: { k } }`. */
export const chunkKnnArtifact = 'chunk-knn';

/** Store blob holding the chunk kNN graph (`readChunkKnn` reads it). */
export const chunkKnnBlobKey = 'chunk-knn';

/** Meta key of the embedder id of the vectors the stored graph was computed from. */
const chunkKnnEmbedderKey = 'chunk-knn:embedder';

/**
 * `chunk-knn`: the kNN graph of every chunk's vector by cosine similarity, k other chunks per chunk (fewer when the
 * index has fewer chunks), the most similar first, ties by chunk order. Exact up to `index.knn.exactUpTo` distinct
 * vectors (50,000 by default), seeded NN-descent above (`approximate` in the step's counts). One graph serves every
 * step that consumes the artifact: the composer makes this step with the largest k they ask for, and each takes the
 * first k of each row (`knnGraphOfRows`); on the exact graph that prefix is exactly the graph a smaller k would have
 * built, since both rank by score, then index. Stored as one blob ({@link chunkKnnBlobKey}) of typed arrays.
 *
 * Updates cost the change: chunk vectors stay as they are until the embedder changes (its id names the local
 * embedder's fitted state, so a refresh that refits it changes every vector, and the graph is searched afresh), so the
 * stored graph is updated (`update-knn-graph.ts`): new chunks are scored against all, kept chunks take them in where
 * they rank, and a list that held a removed chunk takes the next neighbours from its reserve (the exact graph stores
 * each row's next k neighbours too, {@link reservePerRow}); only a row that lost more than its reserve holds is scored
 * again. On the exact graph that is the exact graph, bit for bit; a refresh (the statistics epoch) searches afresh so
 * that the reserves are a fresh build's too. The NN-descent graph (above `exactUpTo`) is updated the same way between
 * refreshes — new and rescored lists exact, kept lists NN-descent's with the new chunks merged in, so no list loses
 * recall — and searched afresh at a refresh (the statistics epoch), which is what a fresh build gives.
 */
export function createChunkKnnStep(k: number, knn: { exactUpTo?: number | undefined } = {}): PipelineStep {
  // `exactUpTo` only when set, so that an index built with the default keeps its settings and is not rebuilt.
  const settings = { k, ...(knn.exactUpTo === undefined ? {} : { exactUpTo: knn.exactUpTo }) };
  return {
    name: 'chunk-knn',
    version: 1,
    // The statistics epoch only for the NN-descent graph: right after a refresh it is searched afresh (see the header).
    reads: ['embed-chunks', 'statistics'],
    settings: () => settings,

    async run(context) {
      const { store } = context;
      const [chunks, info, stored, storedEmbedder] = await Promise.all([
        store.table('chunks').pick(['id']),
        store.vectors('chunks').info(),
        store.getBlob(chunkKnnBlobKey),
        store.getMeta<string>(chunkKnnEmbedderKey),
      ]);
      const chunkIds = chunks.map((chunk) => chunk.id);
      const dimensions = info?.dimensions ?? 0;
      const neighbours = Math.max(0, Math.min(k, chunkIds.length - 1));
      // The vectors are read only to score rows: a delete whose lists keep enough neighbours in reserve reads none.
      let matrix: DenseMatrix | undefined;
      const matrixOf = async (): Promise<DenseMatrix> => (matrix ??= { rows: chunkIds.length, cols: dimensions, data: matrixInRowOrder(await store.vectors('chunks').load(), chunkIds) });
      const embedderId = info?.embedderId ?? '';
      const { epoch, incremental } = await statisticsEpochOf(context, 'chunk-knn');
      // A chunk without a vector (none after embed-chunks) keeps a zero row.
      let built: { graph: KnnGraph; exact: boolean } = { graph: { n: chunkIds.length, k: 0, indices: new Int32Array(0), similarities: new Float32Array(0) }, exact: true };
      let update: UpdatedKnnGraph | undefined;
      if (dimensions > 0 && neighbours > 0) {
        const previous = stored !== undefined && storedEmbedder === embedderId ? decodeChunkKnnGraph(stored) : undefined;
        const exact = await freshGraphIsExact(chunkIds.length, matrixOf, knn.exactUpTo);
        // Only exact lists keep a reserve: an NN-descent list past its k would not be the next neighbours.
        const reserve = exact ? reservePerRow(k) : 0;
        // A refresh searches afresh, so that the reserves too are what a fresh build stores.
        if (previous && previous.graph.k === neighbours && (previous.exact !== false) === exact && incremental) {
          const rowOf = positionsOf(previous.chunkIds);
          const previousRowOf = Int32Array.from(chunkIds, (id) => rowOf.get(id) ?? -1);
          // Updating an NN-descent graph pays only for what is far cheaper than its search.
          const plan = planKnnGraphUpdate(knnListsWithReserve(previous), previousRowOf, neighbours, exact ? { reserve } : { maxScoredShare: 1 / 32 });
          if (plan) {
            const rows = knnGraphUpdateScores(plan) ? await matrixOf() : { rows: chunkIds.length, cols: dimensions, data: new Float32Array(0) };
            update = await runTask(finishKnnGraphUpdateTask(plan, rows), { signal: context.signal });
          }
        }
        if (update) built = { graph: update.graph, exact };
        else {
          const { n, k: searched, indices, similarities, exact: searchedExactly } = await knnGraphBySize(await matrixOf(), exact ? neighbours + reserve : neighbours, { exactUpTo: knn.exactUpTo, signal: context.signal });
          built = { graph: { n, k: searched, indices, similarities }, exact: searchedExactly };
        }
      }
      context.progress(1, 1, 'graphs');
      const split = splitReserve(built.graph, Math.min(neighbours, built.graph.k));
      const bytes = encodeChunkKnnGraph({ chunkIds, graph: split.graph, exact: built.exact, reserve: split.reserve });
      return {
        counts: {
          chunks: chunkIds.length,
          neighbours: split.graph.k,
          approximate: built.exact ? 0 : 1,
          updated: update ? 1 : 0,
          addedRows: update?.addedRows ?? chunkIds.length,
          rescoredRows: update?.rescoredRows ?? 0,
        },
        // The graph without its reserve: an update that only shortens reserves changes nothing its readers see.
        outputVersion: sha256(encodeChunkKnnGraph({ chunkIds, graph: split.graph, exact: built.exact })).slice(0, 32),
        async write(tx) {
          await tx.setBlob(chunkKnnBlobKey, bytes);
          await tx.setMeta(chunkKnnEmbedderKey, embedderId);
          await recordStatisticsEpoch(tx, 'chunk-knn', epoch);
        },
      };
    },
  };
}

/**
 * Neighbours kept per row past the first k of an exact graph. A row of the exact graph that loses up to this many to a
 * delete takes the next ones from its reserve rather than being scored against every chunk again.
 */
function reservePerRow(k: number): number {
  return k;
}

/** Lists of `lists.k` neighbours cut into the graph of their first `k` and the reserve of the rest. */
function splitReserve(lists: KnnGraph, k: number): { graph: KnnGraph; reserve: KnnReserve } {
  const { n } = lists;
  const width = lists.k - k;
  if (width === 0) return { graph: lists, reserve: { width: 0, indices: new Int32Array(0), similarities: new Float32Array(0) } };
  const graph = { n, k, indices: new Int32Array(n * k), similarities: new Float32Array(n * k) };
  const reserve = { width, indices: new Int32Array(n * width), similarities: new Float32Array(n * width) };
  for (let row = 0; row < n; row++) {
    const start = row * lists.k;
    graph.indices.set(lists.indices.subarray(start, start + k), row * k);
    graph.similarities.set(lists.similarities.subarray(start, start + k), row * k);
    reserve.indices.set(lists.indices.subarray(start + k, start + lists.k), row * width);
    reserve.similarities.set(lists.similarities.subarray(start + k, start + lists.k), row * width);
  }
  return { graph, reserve };
}

/**
 * Whether {@link knnGraphBySize} would build the exact graph of the `rows` vectors: it searches at most `exactUpTo` rows
 * (past that the vectors are read, to count the distinct ones).
 */
async function freshGraphIsExact(rows: number, matrixOf: () => Promise<DenseMatrix>, exactUpTo: number | undefined): Promise<boolean> {
  const limit = exactUpTo ?? knnGraphBySizeDefaults.exactUpTo;
  if (rows <= limit) return true;
  const matrix = await matrixOf();
  const groups = identicalRowGroups(matrix.data, matrix.rows, matrix.cols);
  return groups.count <= matrix.rows * knnGraphBySizeDefaults.groupBelowDistinctShare && groups.count <= limit;
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
