import { KgragError } from '../../../core/errors.js';
import { contentId, sha256 } from '../../../core/ids.js';
import { createRandom } from '../../../core/random.js';
import type { ExtractionRecord, KeywordChunkRecord, KeywordEdgeRecord, KeywordRecord } from '../../../core/types.js';
import { buildKeywordGraph } from './build-keyword-graph.js';
import { clusterChunkEmbeddings, type ChunkClustering } from './cluster-chunk-embeddings.js';
import { clusterTfidfKeywords, type PhraseOccurrence } from './cluster-tfidf-keywords.js';
import { extractLlmKeywords, paperTokenBound, type LlmKeywordCall } from './extract-llm-keywords.js';
import { autoKgKeywordTemplates } from './keyword-prompts.js';
import { selectClusterChunks } from './select-cluster-chunks.js';
import { extractNounPhrases, nounPhraseExtractorVersion, primeNounPhraseExtractor, type PhraseExtraction } from '../../../extract/nlp-graph/noun-phrase-extractor.js';
import { decodeChunkKnnGraph } from './chunk-knn-graph-codec.js';
import { embedInBatches } from '../../../providers/embed/embed-in-batches.js';
import type { PipelineStep, StepContext, StepCostInput } from '../../../pipeline/pipeline-step.js';
import { chunkKnnGraphBlobKey } from './knn-graph-step.js';
import { autokgIndexSettings, type AutokgConfig } from '../config.js';
import { estimateKeywordsCost } from './estimate-keywords-cost.js';
import { promptsHash } from '../../../pipeline/steps/llm-extract-step.js';
import { nounPhraseExtractor } from '../../../pipeline/steps/nlp-extract-step.js';

/** The index settings of `autokg`: what the `knn-graph` and `keywords` steps are built with. */
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
 * chunk graph of `knn-graph`, and writes:
 *  - `keywords` {id, text}, id = content hash of the text's lower case;
 *  - `keyword_chunks` {keywordId, chunkId, score}: the member chunks with their Laplace score u (≥ 0.5, or ≥ 5/40 with
 *    membership `balanced`);
 *  - `keyword_edges` {a, b, weight}: W = PᵀP − diag, weight = shared chunks, stored in both directions
 *    (a row of W is `where('a', [keyword])`);
 *  - vectors `keywords`.
 * The LLM run (its replies and keywords) is kept in `extractions` under {@link autoKgKeywordsExtractor},
 * keyed by a hash of the prompts, model, settings and chunk graph, so a re-run with another kernel or cap
 * calls no model; calls of an interrupted run are in the LLM cache as they complete.
 */
export function createKeywordsStep(mode: 'fast' | 'standard', config: AutokgConfig): PipelineStep {
  const useLlm = mode === 'standard';
  // Only the index settings change what the step writes; the search parameters of the same schema do not.
  const settings = Object.fromEntries(autokgIndexSettings.map((key) => [key, config[key]])) as AutokgIndexSettings;
  return {
    name: 'keywords',
    // 2: LLM-free keywords drop non-name single words and need two chunks of the cluster.
    version: 2,
    reads: ['embed-chunks', 'knn-graph'],
    settings: (workspaceConfig, environment) => ({
      autokg: settings,
      seed: workspaceConfig.seed,
      keywords: useLlm ? { model: environment.llmModel, prompts: promptsHash(environment.prompts, autoKgKeywordTemplates, null) } : { nounPhrases: nounPhraseExtractorVersion },
    }),
    // The LLM-free keywords are English noun phrases.
    englishOnly: () => !useLlm,

    async run(context) {
      const { store, config, embedder } = context;
      const blob = await store.getBlob(chunkKnnGraphBlobKey);
      if (!blob) {
        throw new KgragError('The AutoKG chunk graph is missing from the index', { code: 'INDEX_KNN_GRAPH_MISSING', category: 'internal', hint: 'run `kgrag index` again so the knn-graph step rebuilds it' });
      }
      const { chunkIds, graph } = decodeChunkKnnGraph(blob);
      const [chunkRows, loaded] = await Promise.all([store.table('chunks').pick(['id', 'text']), store.vectors('chunks').load()]);
      const textOf = new Map(chunkRows.map((chunk) => [chunk.id, chunk.text]));
      const chunkTexts = chunkIds.map((id) => textOf.get(id) ?? '');
      const rowOf = new Map(chunkIds.map((id, index) => [id, index]));
      const dimensions = loaded.dimensions;
      const data = new Float32Array(chunkIds.length * dimensions);
      loaded.ids.forEach((id, row) => {
        const index = rowOf.get(id);
        if (index !== undefined) data.set(loaded.matrix.subarray(row * dimensions, (row + 1) * dimensions), index * dimensions);
      });
      const chunkVectors = { rows: chunkIds.length, cols: dimensions, data };
      const total = 4;
      const started = performance.now();

      // Spectral first, as in the reference notebook: the avoid lists and the union order follow it.
      const clusterOptions = { clusters: settings.clusters, spectralNeighbours: Math.min(settings.spectralNeighbours, settings.neighbours), seed: config.seed };
      const clusterings: ChunkClustering[] =
        chunkIds.length > 0 && dimensions > 0 ? [clusterChunkEmbeddings('spectral', chunkVectors, graph, clusterOptions), clusterChunkEmbeddings('k-means', chunkVectors, undefined, clusterOptions)] : [];
      const clusterMs = performance.now() - started;
      context.progress(1, total, 'phases');

      const counts: Record<string, number> = { chunks: chunkIds.length, clusters: clusterings.reduce((sum, clustering) => sum + clustering.clusters, 0) };
      let keywords: string[];
      let created: ExtractionRecord | undefined;
      let staleIds: string[] = [];
      const keywordStart = performance.now();
      if (useLlm && context.llm) {
        const llm = context.llm;
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
        const reused = storedRecords.find((record) => record.promptHash === hash);
        staleIds = storedRecords.filter((record) => record.promptHash !== hash).map((record) => record.id);
        let stored: StoredKeywordExtraction;
        if (reused) {
          stored = reused.parsed as StoredKeywordExtraction;
          counts.llmCalls = 0;
          counts.llmCriticalPath = 0;
          counts.reusedCalls = stored.calls.length;
        } else {
          const random = createRandom(config.seed);
          const selections = clusterings.map((clustering) => ({
            method: clustering.method,
            clusters: selectClusterChunks(clustering, { perCluster: settings.chunksPerCluster, sampling: settings.sampling, random }),
          }));
          const result = await extractLlmKeywords(llm, {
            selections,
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
          });
          const { calls, criticalPath, ...rest } = result;
          stored = { ...rest, calls: calls.map(({ reply: _reply, ...call }) => call) };
          created = {
            id: contentId('extraction', corpusChunkId, autoKgKeywordsExtractor, hash),
            chunkId: corpusChunkId,
            extractor: autoKgKeywordsExtractor,
            model: llm.modelId,
            promptHash: hash,
            raw: JSON.stringify(calls.map((call) => call.reply)),
            parsed: stored,
          };
          counts.llmCalls = calls.length;
          counts.llmCriticalPath = criticalPath;
          counts.reusedCalls = 0;
        }
        keywords = stored.keywords;
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
      } else {
        keywords = clusterTfidfKeywords(await chunkPhrases(context, chunkIds, chunkTexts), clusterings, { keywordsPerCluster: settings.keywordsPerCluster, maxWords: settings.maxWords, texts: chunkTexts });
      }
      const keywordMs = performance.now() - keywordStart;
      context.progress(2, total, 'phases');

      const embedded = keywords.length > 0 ? await embedInBatches(embedder, keywords, { batchSize: Math.min(config.embeddings.batchSize, embedder.maxBatchSize), inputType: 'document', ...(context.signal === undefined ? {} : { abortSignal: context.signal }) }) : [];
      const keywordVectors = new Float32Array(keywords.length * dimensions);
      embedded.forEach((vector, index) => keywordVectors.set(vector.subarray(0, dimensions), index * dimensions));
      context.progress(3, total, 'phases');

      const graphStart = performance.now();
      const keywordGraph = buildKeywordGraph(graph, chunkVectors, { rows: keywords.length, cols: dimensions, data: keywordVectors }, {
        neighbours: settings.neighbours,
        kernel: settings.kernel,
        positives: settings.positives,
        negatives: settings.negatives,
        cap: settings.cap,
        membership: settings.membership,
      });
      const graphMs = performance.now() - graphStart;
      context.progress(4, total, 'phases');

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
          if (created) await tx.table('extractions').upsert([created]);
          await tx.table('extractions').deleteWhere('id', staleIds);
          await tx.table('keywords').clear();
          await tx.table('keywordChunks').clear();
          await tx.table('keywordEdges').clear();
          await tx.table('keywords').upsert(keywordRecords);
          await tx.table('keywordChunks').upsert(memberRecords);
          await tx.table('keywordEdges').upsert(edgeRecords);
          const vectors = tx.vectors('keywords');
          await vectors.clear();
          if (keywords.length > 0) await vectors.upsert(keywordRecords.map((record, index) => ({ id: record.id, vector: embedded[index] as Float32Array })), embedder.id);
        },
      };
    },
    // Only the LLM keywords of standard mode cost calls.
    ...(useLlm ? { estimateCost: (input: StepCostInput) => estimateKeywordsCost(settings, input) } : {}),
  };
}

/**
 * Noun phrases of every chunk: the ones nlp-extract stored when it ran (fast mode) with the current
 * extractor version, else extracted here (not stored: the extractions belong to nlp-extract).
 */
async function chunkPhrases(context: StepContext, chunkIds: readonly string[], chunkTexts: readonly string[]): Promise<PhraseOccurrence[][]> {
  const version = String(nounPhraseExtractorVersion);
  const stored = new Map<string, PhraseExtraction>();
  for (const record of await context.store.table('extractions').where('extractor', [nounPhraseExtractor])) {
    if (record.promptHash === version) stored.set(record.chunkId, record.parsed as PhraseExtraction);
  }
  const missing = chunkIds.flatMap((id, index) => (stored.has(id) ? [] : [chunkTexts[index] as string]));
  if (missing.length > 0) primeNounPhraseExtractor(missing);
  return chunkIds.map((id, index) => {
    const extraction = stored.get(id) ?? extractNounPhrases(chunkTexts[index] as string);
    return extraction.mentions.map((mention) => ({ key: mention.key, surface: mention.surface, kind: mention.kind }));
  });
}
