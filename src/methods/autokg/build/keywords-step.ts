import { KgragError } from '../../../core/errors.js';
import { contentId, sha256 } from '../../../core/ids.js';
import { createRandom } from '../../../core/random.js';
import type { ExtractionRecord, KeywordChunkRecord, KeywordEdgeRecord, KeywordRecord } from '../../../core/types.js';
import { buildKeywordGraph } from './build-keyword-graph.js';
import { clusterChunkEmbeddings, type ChunkClustering } from './cluster-chunk-embeddings.js';
import { clusterTfidfKeywordsOfTable } from './cluster-tfidf-keywords.js';
import { decodePhraseTable, encodePhraseTable, phraseTableKey, phraseTableRows, type PhraseTable } from './phrase-table.js';
import { extractLlmKeywords, paperTokenBound, type LlmKeywordCall, type LlmKeywordResult, type NamedCluster, type RewrittenList } from './extract-llm-keywords.js';
import { autoKgKeywordTemplates } from './keyword-prompts.js';
import { selectClusterChunks } from './select-cluster-chunks.js';
import { nounPhraseExtractorVersion } from '../../../extract/nlp-graph/noun-phrase-extractor.js';
import { chunkNounPhrases, staleNounPhraseRecords } from './chunk-noun-phrases.js';
import { encodeKeywordClusterState, keywordClusterStateKey, readKeywordClusterState, type KeywordClusterState, type StoredKeywordClustering } from './keyword-cluster-state.js';
import { updateChunkClustering } from './update-chunk-clustering.js';
import { updateLlmKeywords } from './update-llm-keywords.js';
import { decodeChunkKnnGraph } from '../../../pipeline/steps/chunk-knn-graph-codec.js';
import { embedInBatches } from '../../../providers/embed/embed-in-batches.js';
import type { PipelineStep, StepCostInput } from '../../../pipeline/pipeline-step.js';
import { chunkKnnGraphBlobKey } from './chunk-graph-step.js';
import { autokgIndexSettings, type AutokgConfig } from '../config.js';
import { estimateKeywordsCost } from './estimate-keywords-cost.js';
import { promptsHash } from '../../../pipeline/steps/llm-extract-step.js';
import { matrixInRowOrder } from '../../../store/matrix-in-row-order.js';
import { recordStatisticsEpoch, statisticsEpochOf } from '../../../pipeline/corpus-statistics.js';
import type { Store } from '../../../store/store.js';
import { storedKeywordRows, writeKeywordDifference } from './write-keyword-difference.js';
import type { KeptKeyword } from './build-keyword-graph.js';
import { positionsOf } from '../../../core/positions-of.js';

/** The index settings of `autokg`: what the `chunk-graph` and `keywords` steps are built with. */
export type AutokgIndexSettings = Pick<AutokgConfig, (typeof autokgIndexSettings)[number]>;

/** `extractor` of the stored AutoKG keyword extraction in the `extractions` table. */
export const autoKgKeywordsExtractor = 'autokg-keywords';

/** `chunkId` of that record: the extraction reads clusters of the whole corpus, not one chunk. */
const corpusChunkId = 'autokg:corpus';

/** What the LLM keyword extraction stores (the replies themselves are in `raw`). */
export interface StoredKeywordExtraction {
  keywords: string[];
  byMethod: Record<string, string[]>;
  calls: Array<Omit<LlmKeywordCall, 'reply'>>;
  inputTokens: number;
  outputTokens: number;
  finalPassTokens: number;
  skippedChunks: number;
}

/**
 * `keywords` (AutoKG, Chen & Bertozzi arXiv 2311.14740; wispcarey/AutoKG `autoKG_full.py`): clusters the
 * chunk embeddings twice (spectral clustering on the K = 20 graph, then k-means), names each cluster's
 * themes as keywords — with the LLM in standard mode (extract-llm-keywords.ts), from
 * distinctive noun phrases otherwise (cluster-tfidf-keywords.ts) — embeds the keywords into the `keywords`
 * space with the workspace embedder, assigns chunks to every keyword by Laplace learning on the K = 30
 * chunk graph of `chunk-graph`, and writes:
 *  - `keywords` {id, text}, id = content hash of the text's lower case;
 *  - `keyword_chunks` {keywordId, chunkId, score}: the member chunks with their Laplace score u (≥ 0.5, or ≥ 5/40 with
 *    membership `balanced`);
 *  - `keyword_edges` {a, b, weight}: W = PᵀP − diag, weight = shared chunks, stored in both directions
 *    (a row of W is `where('a', [keyword])`);
 *  - vectors `keywords`.
 * The LLM run (its replies and keywords) is kept in `extractions` under {@link autoKgKeywordsExtractor},
 * keyed by a hash of the prompts, model, settings and chunk graph; calls of an interrupted run are in the LLM cache
 * as they complete. The clusters and their keywords are kept in the blob {@link keywordClusterStateKey}, so a re-run
 * with another kernel or cap calls no model, and a change of the chunks keeps the clustering
 * (update-chunk-clustering.ts) and names again only the clusters whose members changed (update-llm-keywords.ts,
 * or c-TF-IDF for those clusters) — until more than `reclusterShare` of the chunks of the last full clustering
 * were added or removed since, when the step clusters and names everything from scratch, as a fresh build does.
 */
export function createKeywordsStep(mode: 'fast' | 'standard', config: AutokgConfig): PipelineStep {
  const useLlm = mode === 'standard';
  // Only the index settings change what the step writes; the search parameters of the same schema do not.
  const settings = Object.fromEntries(autokgIndexSettings.map((key) => [key, config[key]])) as AutokgIndexSettings;
  // The recluster rule only chooses, on a later change, between keeping the clusters and clustering again; a run from
  // the same state writes the same with any share, so changing it re-runs nothing.
  const { reclusterShare, ...fingerprinted } = settings;
  return {
    name: 'keywords',
    // 2: LLM-free keywords drop non-name single words and need two chunks of the cluster.
    version: 2,
    // The statistics epoch: a refresh of the corpus statistics clusters the LLM-free keywords again and solves every keyword.
    reads: ['embed-chunks', 'chunk-graph', 'statistics'],
    settings: (workspaceConfig, environment) => ({
      autokg: fingerprinted,
      seed: workspaceConfig.seed,
      keywords: useLlm ? { model: environment.llmModel, prompts: promptsHash(environment.prompts, autoKgKeywordTemplates, null) } : { nounPhrases: nounPhraseExtractorVersion },
    }),
    // The LLM-free keywords are English noun phrases.
    englishOnly: () => !useLlm,

    async run(context) {
      const { store, config, embedder } = context;
      const blob = await store.getBlob(chunkKnnGraphBlobKey);
      if (!blob) {
        throw new KgragError('The AutoKG chunk graph is missing from the index', { code: 'INDEX_KNN_GRAPH_MISSING', category: 'internal', hint: 'run `kgrag index` again so the chunk-graph step rebuilds it' });
      }
      const { chunkIds, graph } = decodeChunkKnnGraph(blob);
      const llm = useLlm ? context.llm : undefined;
      // The LLM's prompts quote every chunk; c-TF-IDF reads the texts of the chunks whose phrases it reads (textsOf).
      const [chunkRows, loaded] = await Promise.all([llm ? store.table('chunks').pick(['id', 'text']) : Promise.resolve([]), store.vectors('chunks').load()]);
      const textOf = new Map(chunkRows.map((chunk) => [chunk.id, chunk.text]));
      const chunkTexts = chunkIds.map((id) => textOf.get(id) ?? '');
      const textsOf = async (ids: readonly string[]): Promise<Map<string, string>> => {
        const rows = ids.length * 2 > chunkIds.length ? await store.table('chunks').pick(['id', 'text']) : await store.table('chunks').pick(['id', 'text'], { column: 'id', values: ids });
        return new Map(rows.map((chunk) => [chunk.id, chunk.text]));
      };
      const rowOf = positionsOf(chunkIds);
      const dimensions = loaded.dimensions;
      const data = matrixInRowOrder(loaded, chunkIds);
      const chunkVectors = { rows: chunkIds.length, cols: dimensions, data };
      const total = 4;
      const started = performance.now();
      const naming = llm ? 'llm' : 'tfidf';

      // The clusters of the last run are kept while the corpus has moved little since its last full clustering.
      const { embeddings } = config;
      const stateSettings = contentId(
        'autokg-keyword-state',
        JSON.stringify({
          naming,
          autokg: Object.fromEntries(keywordStateSettings.map((key) => [key, settings[key]])),
          seed: config.seed,
          embeddings: { provider: embeddings.provider, model: embeddings.model, dimensions: embeddings.dimensions ?? null, documentPrefix: embeddings.documentPrefix },
          keywords: llm ? { model: llm.modelId, prompts: promptsHash(context.prompts, autoKgKeywordTemplates, null) } : { nounPhrases: nounPhraseExtractorVersion },
        }),
      );
      const previous = usableState(await readKeywordClusterState(store), stateSettings, naming);
      const { epoch, incremental } = await statisticsEpochOf(context, 'keywords');
      let update: { previous: KeywordClusterState; changed: Uint8Array[]; added: number; removed: number } | undefined;
      let clusterings: ChunkClustering[] = [];
      // LLM-free clusters are cheap to name again: they follow the statistics, so that a refresh is a fresh build. The LLM's
      // are kept until `reclusterShare`, which spares the calls.
      if (previous && chunkIds.length > 0 && dimensions > 0 && (llm !== undefined || incremental)) {
        const current = new Set(chunkIds);
        const before = new Set(previous.chunkIds);
        const added = chunkIds.filter((id) => !before.has(id)).length;
        const removed = previous.chunkIds.filter((id) => !current.has(id)).length;
        if ((previous.changedChunks + added + removed) / Math.max(1, previous.baseChunks) <= reclusterShare) {
          const updated = previous.clusterings.map((stored) => updateChunkClustering({ ...stored, chunkIds: previous.chunkIds }, chunkIds, chunkVectors));
          if (updated.every((entry) => entry !== undefined)) {
            clusterings = updated.map((entry) => entry.clustering);
            update = { previous, changed: updated.map((entry) => entry.changed), added, removed };
          }
        }
      }
      if (!update && chunkIds.length > 0 && dimensions > 0) {
        // Spectral first, as in the reference notebook: the avoid lists and the union order follow it.
        const clusterOptions = { clusters: settings.clusters, spectralNeighbours: Math.min(settings.spectralNeighbours, settings.neighbours), seed: config.seed };
        // k-means first: its restarts go to worker threads while the spectral embedding is computed here.
        const kMeansClustering = clusterChunkEmbeddings('k-means', chunkVectors, undefined, clusterOptions);
        clusterings = await Promise.all([clusterChunkEmbeddings('spectral', chunkVectors, graph, clusterOptions), kMeansClustering]);
      }
      const clusterMs = performance.now() - started;
      context.progress(1, total, 'phases');

      const renamed = update ? update.changed.reduce((sum, flags) => sum + flags.reduce((count, flag) => count + flag, 0), 0) : clusterings.reduce((sum, clustering) => sum + clustering.clusters, 0);
      const counts: Record<string, number> = {
        chunks: chunkIds.length,
        clusters: clusterings.reduce((sum, clustering) => sum + clustering.clusters, 0),
        reclustered: update ? 0 : 1,
        addedChunks: update?.added ?? 0,
        removedChunks: update?.removed ?? 0,
        renamedClusters: renamed,
      };
      let keywords: string[];
      let named: StatePart[] = clusterings.map(() => ({}));
      let final: RewrittenList | undefined;
      let created: ExtractionRecord[] = [];
      let staleIds: string[] = [];
      let phraseTable: PhraseTable | undefined;
      const keywordStart = performance.now();
      if (llm) {
        const extraction = {
          topic: settings.topic,
          clusters: settings.clusters,
          chunksPerCluster: settings.chunksPerCluster,
          sampling: settings.sampling,
          keywordsPerCluster: settings.keywordsPerCluster,
          maxWords: settings.maxWords,
          avoidSample: settings.avoidSample,
          language: settings.language,
          maxPromptTokens: settings.maxPromptTokens,
          spectralNeighbours: settings.spectralNeighbours,
          seed: config.seed,
          model: llm.modelId,
          embedder: embedder.id,
          graph: sha256(blob).slice(0, 32),
        };
        const hash = promptsHash(context.prompts, autoKgKeywordTemplates, extraction);
        const storedRecords = await store.table('extractions').where('extractor', [autoKgKeywordsExtractor]);
        const callInput = {
          chunkTexts,
          chunkSources: chunkTexts.map((text) => sha256(text)),
          tokenizer: context.tokenizer,
          prompts: context.prompts,
          settings: {
            topic: settings.topic,
            keywordsPerCluster: settings.keywordsPerCluster,
            maxWords: settings.maxWords,
            avoidSample: settings.avoidSample,
            language: settings.language,
            maxPromptTokens: settings.maxPromptTokens,
          },
          seed: config.seed,
          ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
        };
        const selectionsOf = (): Int32Array[][] => {
          const random = createRandom(config.seed);
          return clusterings.map((clustering) => selectClusterChunks(clustering, { perCluster: settings.chunksPerCluster, sampling: settings.sampling, random }));
        };
        const reused = update ? undefined : storedRecords.find((record) => record.promptHash === hash);
        let stored: StoredKeywordExtraction;
        let result: LlmKeywordResult | undefined;
        if (update && renamed === 0) {
          // Nothing the keywords were named from changed (another kernel, cap or membership rule): no call.
          const { previous: state } = update;
          keywords = state.keywords;
          named = state.clusterings.map((clustering) => ({ named: remapShown(clustering.named ?? [], state.chunkIds, rowOf), list: clustering.list as RewrittenList }));
          final = state.final;
          stored = (storedRecords[0]?.parsed as StoredKeywordExtraction | undefined) ?? { keywords, byMethod: {}, calls: [], inputTokens: 0, outputTokens: 0, finalPassTokens: 0, skippedChunks: 0 };
          counts.llmCalls = 0;
          counts.llmCriticalPath = 0;
          counts.reusedCalls = storedRecords.reduce((sum, record) => sum + (record.parsed as StoredKeywordExtraction).calls.length, 0);
        } else if (update) {
          const { previous: state, changed } = update;
          const selections = selectionsOf();
          result = await updateLlmKeywords(llm, {
            ...callInput,
            clusterings: clusterings.map((clustering, index) => {
              const storedClustering = state.clusterings[index] as StoredKeywordClustering;
              const kept = remapShown(storedClustering.named ?? [], state.chunkIds, rowOf);
              return {
                method: clustering.method,
                clusters: Array.from({ length: clustering.clusters }, (_, cluster) =>
                  (changed[index] as Uint8Array)[cluster] === 1 ? { show: (selections[index] as Int32Array[])[cluster] ?? new Int32Array(0) } : { kept: kept[cluster] as NamedCluster },
                ),
                list: storedClustering.list as RewrittenList,
              };
            }),
            final: state.final as RewrittenList,
          });
        } else if (reused) {
          // The stored replies of this very graph: keywords without a call (the clusters' own keywords are not in the record).
          stored = reused.parsed as StoredKeywordExtraction;
          keywords = stored.keywords;
          staleIds = storedRecords.filter((record) => record.promptHash !== hash).map((record) => record.id);
          counts.llmCalls = 0;
          counts.llmCriticalPath = 0;
          counts.reusedCalls = stored.calls.length;
        } else {
          const selections = selectionsOf();
          result = await extractLlmKeywords(llm, { ...callInput, selections: clusterings.map((clustering, index) => ({ method: clustering.method, clusters: selections[index] as Int32Array[] })) });
        }
        if (result) {
          const { calls, criticalPath, named: namedClusters, lists, final: finalList, ...rest } = result;
          stored = { ...rest, calls: calls.map(({ reply: _reply, ...call }) => call) };
          keywords = result.keywords;
          named = namedClusters.map((entries, index) => ({ named: entries, list: lists[index] as RewrittenList }));
          final = finalList;
          // The replies of this run replace the stored ones. An update that asked nothing still drops them when chunks
          // changed: a removed chunk's text may be in a reply, and the keywords are kept in the cluster state.
          if (calls.length > 0) {
            created = [
              {
                id: contentId('extraction', corpusChunkId, autoKgKeywordsExtractor, hash),
                chunkId: corpusChunkId,
                extractor: autoKgKeywordsExtractor,
                model: llm.modelId,
                promptHash: hash,
                raw: JSON.stringify(calls.map((call) => call.reply)),
                parsed: stored,
              },
            ];
          }
          staleIds = storedRecords.filter((record) => calls.length === 0 || record.promptHash !== hash).map((record) => record.id);
          counts.llmCalls = calls.length;
          counts.llmCriticalPath = criticalPath;
          counts.reusedCalls = 0;
        }
        stored ??= { keywords: [], byMethod: {}, calls: [], inputTokens: 0, outputTokens: 0, finalPassTokens: 0, skippedChunks: 0 };
        keywords ??= [];
        const longestChunk = chunkTexts.reduce((longest, text) => Math.max(longest, context.tokenizer.count(text)), 0);
        counts.tokensUsed = stored.inputTokens + stored.outputTokens;
        counts.tokenBound = paperTokenBound({
          clusters: settings.clusters,
          perCluster: settings.chunksPerCluster,
          chunkTokens: longestChunk,
          avoidSample: settings.avoidSample,
          keywordsPerCluster: settings.keywordsPerCluster,
          maxWords: settings.maxWords,
          finalPassTokens: stored.finalPassTokens,
        });
        counts.skippedChunks = stored.skippedChunks;
      } else if (update && renamed === 0) {
        keywords = update.previous.keywords;
        named = update.previous.clusterings.map((clustering) => ({ tfidf: clustering.tfidf ?? [] }));
        // The phrase table drops the chunks that left (with their words), and is read again for those that came.
        const storedTable = decodePhraseTable(await store.getBlob(phraseTableKey));
        if (storedTable && storedTable.chunkIds.join('\n') !== chunkIds.join('\n')) phraseTable = phraseTableRows(storedTable, chunkIds);
      } else {
        // Between refreshes the last run's phrase table stands for the chunks it holds; a refresh reads every chunk's.
        const storedTable = incremental ? decodePhraseTable(await store.getBlob(phraseTableKey)) : undefined;
        const phrases = await chunkNounPhrases(store, chunkIds, textsOf, storedTable, context.signal);
        created = phrases.created;
        staleIds = phrases.staleIds;
        phraseTable = phrases.table;
        const previousClusterings = update?.previous.clusterings;
        const result = clusterTfidfKeywordsOfTable(
          phrases.table,
          clusterings.map((clustering, index) => {
            const changed = update?.changed[index];
            const stored = previousClusterings?.[index]?.tfidf;
            if (changed === undefined || stored === undefined) return clustering;
            return { ...clustering, kept: stored.map((pairs, cluster) => (changed[cluster] === 1 ? undefined : pairs.map(([key, surface]) => ({ key, surface })))) };
          }),
          { keywordsPerCluster: settings.keywordsPerCluster, maxWords: settings.maxWords },
        );
        keywords = result.keywords;
        named = result.byCluster.map((clusters) => ({ tfidf: clusters.map((entries) => entries.map((entry): [string, string] => [entry.key, entry.surface])) }));
        counts.parsedChunks = created.length;
        counts.phraseChunksRead = phrases.readChunks;
      }
      // This step's noun phrases of chunks that are gone go with them, whatever named the clusters.
      if (llm || (update && renamed === 0)) staleIds = [...staleIds, ...(await staleNounPhraseRecords(store, chunkIds))];
      // The LLM reads no phrase table: one left by LLM-free keywords is emptied, its chunks' words with it.
      const clearTable = llm !== undefined && ((await store.getBlob(phraseTableKey))?.length ?? 0) > 0;
      const state: KeywordClusterState = {
        version: 1,
        settings: stateSettings,
        naming,
        baseChunks: update ? update.previous.baseChunks : chunkIds.length,
        changedChunks: update ? update.previous.changedChunks + update.added + update.removed : 0,
        chunkIds,
        clusterings: clusterings.map((clustering, index) => ({ method: clustering.method, clusters: clustering.clusters, assignments: Array.from(clustering.assignments), ...named[index] })),
        ...(final === undefined ? {} : { final }),
        keywords,
      };
      const keywordMs = performance.now() - keywordStart;
      context.progress(2, total, 'phases');
      const embedded = keywords.length > 0 ? await embedInBatches(embedder, keywords, { batchSize: Math.min(config.embeddings.batchSize, embedder.maxBatchSize), inputType: 'document', ...(context.signal === undefined ? {} : { abortSignal: context.signal }) }) : [];
      const keywordVectors = new Float32Array(keywords.length * dimensions);
      embedded.forEach((vector, index) => keywordVectors.set(vector.subarray(0, dimensions), index * dimensions));
      context.progress(3, total, 'phases');

      const graphStart = performance.now();
      const kept = update && incremental ? await keptKeywords(store, update.previous, keywords, chunkIds, rowOf) : undefined;
      const keywordGraph = await buildKeywordGraph(graph, chunkVectors, { rows: keywords.length, cols: dimensions, data: keywordVectors }, {
        ...(kept ?? {}),
        neighbours: settings.neighbours,
        kernel: settings.kernel,
        positives: settings.positives,
        negatives: settings.negatives,
        cap: settings.cap,
        membership: settings.membership,
      });
      const graphMs = performance.now() - graphStart;
      state.seeds = keywordGraph.seeds.map((seed) => [Array.from(seed.positives), Array.from(seed.negatives)]);
      context.progress(4, total, 'phases');

      // An update compares with what the tables hold and writes the keywords whose rows changed (on Postgres, a
      // rewrite of the three tables and the space was 11,900 of the 13,000 rows a one-document add to 2Wiki wrote).
      const stored = update ? await storedKeywordRows(store) : undefined;
      const keywordRecords: KeywordRecord[] = keywords.map((text) => ({ id: contentId('keyword', text.toLowerCase()), text }));
      const memberRecords: KeywordChunkRecord[] = [];
      keywordGraph.members.forEach((members, keyword) => {
        const keywordId = (keywordRecords[keyword] as KeywordRecord).id;
        members.chunks.forEach((chunk, index) => memberRecords.push({ keywordId, chunkId: chunkIds[chunk] as string, score: members.scores[index] as number }));
      });
      const edgeRecords: KeywordEdgeRecord[] = keywordGraph.edges.flatMap(({ a, b, weight }) => {
        const idA = (keywordRecords[a] as KeywordRecord).id;
        const idB = (keywordRecords[b] as KeywordRecord).id;
        return [
          { a: idA, b: idB, weight },
          { a: idB, b: idA, weight },
        ];
      });
      Object.assign(counts, {
        keywords: keywords.length,
        memberships: memberRecords.length,
        edges: keywordGraph.edges.length,
        cappedKeywords: keywordGraph.cappedKeywords,
        keywordsWithoutChunks: keywordGraph.members.filter((members) => members.chunks.length === 0).length,
        cgIterations: keywordGraph.iterations,
        solvedKeywords: keywordGraph.solved,
        reseededKeywords: keywordGraph.reseeded,
        clusterMs: Math.round(clusterMs),
        keywordMs: Math.round(keywordMs),
        graphMs: Math.round(graphMs),
      });
      return {
        counts,
        outputVersion: contentId(
          'keywords',
          embedder.id,
          keywordRecords.map((record) => record.id),
          memberRecords.map((record) => `${record.keywordId}:${record.chunkId}:${record.score.toFixed(6)}`),
        ),
        async write(tx) {
          await tx.table('extractions').upsert(created);
          await tx.table('extractions').deleteWhere('id', staleIds);
          await tx.setBlob(keywordClusterStateKey, encodeKeywordClusterState(state));
          if (phraseTable) await tx.setBlob(phraseTableKey, encodePhraseTable(phraseTable));
          else if (clearTable) await tx.setBlob(phraseTableKey, new Uint8Array(0));
          await recordStatisticsEpoch(tx, 'keywords', epoch);
          const vectorItems = keywordRecords.map((record, index) => ({ id: record.id, vector: embedded[index] as Float32Array }));
          const vectors = tx.vectors('keywords');
          if (stored) {
            await writeKeywordDifference(tx, stored, { keywords: keywordRecords, members: memberRecords, edges: edgeRecords });
            // Between refreshes a keyword's text embeds to the vector it had: only new keywords' vectors are written.
            const space = await vectors.info();
            if (incremental && space?.embedderId === embedder.id) {
              const next = new Set(keywordRecords.map((record) => record.id));
              await vectors.delete(stored.keywords.filter((record) => !next.has(record.id)).map((record) => record.id));
              const had = new Set(stored.keywords.map((record) => record.id));
              const fresh = vectorItems.filter((item) => !had.has(item.id));
              if (fresh.length > 0) await vectors.upsert(fresh, embedder.id);
              return;
            }
          } else {
            await tx.table('keywords').clear();
            await tx.table('keywordChunks').clear();
            await tx.table('keywordEdges').clear();
            await tx.table('keywords').upsert(keywordRecords);
            await tx.table('keywordChunks').upsert(memberRecords);
            await tx.table('keywordEdges').upsert(edgeRecords);
          }
          await vectors.clear();
          if (keywords.length > 0) await vectors.upsert(vectorItems, embedder.id);
        },
      };
    },
    // Only the LLM keywords of standard mode cost calls.
    ...(useLlm ? { estimateCost: (input: StepCostInput) => estimateKeywordsCost(settings, input) } : {}),
  };
}

/** Index settings that do not shape a stored clustering or its keywords: the kernel, the memberships, the recluster rule. */
const notKeywordState = new Set<string>(['kernel', 'positives', 'negatives', 'cap', 'membership', 'reclusterShare']);

/** The keyword-shaping settings a stored clustering was made with. */
const keywordStateSettings = autokgIndexSettings.filter((key) => !notKeywordState.has(key));

/** What the state keeps of one clustering's naming: the LLM's clusters and list, or the c-TF-IDF keywords. */
type StatePart = Pick<StoredKeywordClustering, 'named' | 'list' | 'tfidf'>;

/** The stored state when an update can build on it: same settings and naming, both clusterings with their keywords. */
function usableState(state: KeywordClusterState | undefined, settings: string, naming: KeywordClusterState['naming']): KeywordClusterState | undefined {
  if (state === undefined || state.settings !== settings || state.naming !== naming || state.clusterings.length !== 2) return undefined;
  const complete = state.clusterings.every((clustering) =>
    naming === 'llm'
      ? clustering.named?.length === clustering.clusters && clustering.list !== undefined && clustering.named.every((entry) => entry.shown.every((chunk) => chunk < state.chunkIds.length))
      : clustering.tfidf?.length === clustering.clusters,
  );
  return complete && (naming === 'tfidf' || state.final !== undefined) ? state : undefined;
}

/** Stored clusters with their shown chunks moved from the stored chunk order to the current one (−1: gone). */
function remapShown(named: ReadonlyArray<{ keywords: string[]; shown: number[] }>, storedIds: readonly string[], rowOf: ReadonlyMap<string, number>): NamedCluster[] {
  return named.map((entry) => ({ keywords: entry.keywords, shown: entry.shown.map((chunk) => rowOf.get(storedIds[chunk] as string) ?? -1) }));
}

/**
 * What the keyword graph keeps of the last run (`BuildKeywordGraphOptions.kept`): for every keyword it wrote that is
 * still a keyword, its seeds and members moved to the current chunks (a chunk that is gone: −1, so the seeds differ),
 * and which chunks are new. Undefined when the state holds no seeds (written before they were kept).
 */
async function keptKeywords(store: Store, previous: KeywordClusterState, keywords: readonly string[], chunkIds: readonly string[], rowOf: ReadonlyMap<string, number>): Promise<{ kept: Array<KeptKeyword | undefined>; newChunks: Uint8Array } | undefined> {
  const { seeds } = previous;
  if (seeds === undefined || seeds.length !== previous.keywords.length) return undefined;
  const rowOfStored = (chunk: number): number => rowOf.get(previous.chunkIds[chunk] as string) ?? -1;
  const indexOf = positionsOf(previous.keywords);
  const ids = keywords.map((keyword) => contentId('keyword', keyword.toLowerCase()));
  const rows = await store.table('keywordChunks').where('keywordId', [...new Set(ids)]);
  const membersOf = new Map<string, Array<[number, number]>>();
  for (const row of rows) {
    const chunk = rowOf.get(row.chunkId);
    if (chunk === undefined) continue;
    const list = membersOf.get(row.keywordId) ?? [];
    list.push([chunk, row.score]);
    membersOf.set(row.keywordId, list);
  }
  const kept = keywords.map((keyword, index): KeptKeyword | undefined => {
    const stored = indexOf.get(keyword);
    if (stored === undefined) return undefined;
    const [positives, negatives] = seeds[stored] as [number[], number[]];
    const members = (membersOf.get(ids[index] as string) ?? []).sort((left, right) => left[0] - right[0]);
    return {
      seeds: { positives: Int32Array.from(positives, rowOfStored), negatives: Int32Array.from(negatives, rowOfStored) },
      members: { chunks: Int32Array.from(members, ([chunk]) => chunk), scores: Float64Array.from(members, ([, score]) => score), capped: false },
    };
  });
  const before = new Set(previous.chunkIds);
  return { kept, newChunks: Uint8Array.from(chunkIds, (id) => (before.has(id) ? 0 : 1)) };
}
