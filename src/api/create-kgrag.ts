import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { appendAll } from '../core/append-all.js';
import { sanitizeForTerminal } from '../core/sanitize-for-terminal.js';
import { selectDocuments } from './select-documents.js';
import { openWorkspaceStorage, postgresWorkspaceName } from './open-workspace-storage.js';
import type { PrefetchQueue } from './workers/prefetch-queue.js';
import type { LocalIndexWorkers } from './workers/start-index-workers.js';
import { stepSettingsFingerprint } from './workers/step-settings-fingerprint.js';
import { createGraphBrowser } from './create-graph-browser.js';
import type { GraphBrowser } from './graph-browser.js';
import { sha256 } from '../core/ids.js';
import { forgetCachedCalls } from '../store/forget-cached-calls.js';
import type { KgragConfig, KgragConfigInput } from '../core/config/config-schema.js';
import { loadConfig } from '../core/config/load-config.js';
import { KgragError } from '../core/errors.js';
import type { RunUsage } from '../core/types.js';
import type { IndexDryRun } from '../pipeline/estimate/dry-run-index.js';
import { embedderStateKey, embedderStateOf } from '../pipeline/steps/embed-chunks-step.js';
import type { IndexInputs, InputDocument, PipelineEvent, PipelineStep } from '../pipeline/pipeline-step.js';
import { runPipeline, type PipelineSummary, type RunPipelineOptions } from '../pipeline/run-pipeline.js';
import { loadWorkspacePrompts } from '../core/workspace-prompts.js';
import { assignOpenieDocs } from '../extract/triples/assign-openie-docs.js';
import { parseOpenieFile, type SkippedOpenieRecord } from '../extract/triples/parse-openie-file.js';
import { promptTemplates } from './prompt-templates.js';
import { methodConfigSchemas, registeredMethods, selectMethods } from './registered-methods.js';
import { builtMethods, builtMode, recordBuiltMethods } from '../pipeline/built-methods.js';
import { parseMethodConfigs } from '../methods/method-config.js';
import type { PromptLibrary } from '../core/prompt-library.js';
import { createQueryEngine, type QueryEngine, type QueryRequest, type QueryResult, type RetrievalResult } from '../methods/query-engine.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import { resolveEmbedder, type EmbedderInput } from '../providers/embed/resolve-embedder.js';
import { isCorpusFitted, type Embedder } from '../providers/embed/embedder.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { createTotMethod, type KnowledgeGraph } from '../methods/tot/index.js';
import type { RetryEvent } from '../providers/llm/retry-policy.js';
import type { LanguageModel } from '../providers/llm/language-model.js';
import { mergeModelPrices, priceSettings, resolveModelPrice } from '../providers/llm/model-prices.js';
import { createUsageMeter, type UsageMeter, type UsageSnapshot } from '../providers/llm/usage-meter.js';
import { resolveLanguageModel, type LanguageModelInput } from '../providers/llm/resolve-language-model.js';
import { publishedStoreView } from '../store/published-store-view.js';
import type { ExportOptions, ExportSummary } from './export-index.js';
import type { CancellableWriteOptions, WriterLockOptions } from './write-options.js';

export type { CancellableWriteOptions, WriterLockOptions } from './write-options.js';
import { importedIndexSource, importedIndexUpdateError, type GraphragImportSummary, type ImportGraphragOptions } from './import-graphrag.js';
import { singleStoreWorkspace } from '../store/single-store-workspace.js';
import { createStoreLlmCache } from '../store/store-llm-cache.js';
import type { Store } from '../store/store.js';
import type { WorkspaceStatus, WorkspaceStorage, WriterHolder, WriteSession } from '../store/workspace-storage.js';
import type { LlmResponseCache } from '../providers/llm/llm-response-cache.js';
import { errorMessage } from '../core/error-message.js';
import { createTokenizer, type Tokenizer } from '../text/tokenizer.js';

/** Options of {@link createKgrag}. */
export interface KgragOptions {
  /** Workspace folder: holds `kgrag.yaml` and the index database. @default process.cwd() */
  workspace?: string;
  /** Configuration values that win over `kgrag.yaml` and the environment. */
  config?: KgragConfigInput;
  /** An explicit configuration file instead of `<workspace>/kgrag.yaml`. */
  configFile?: string;
  /** Environment variables. @default process.env */
  env?: Record<string, string | undefined>;
  /**
   * A chat model to use instead of the configured one: any AI SDK language model (`ollama('qwen3')`), which gets the
   * configured cache, retries, limits and timeout, or kgrag's own `LanguageModel` (e.g. the scripted fake in tests).
   */
  llm?: LanguageModelInput;
  /** An embedder to use instead of the configured one: any AI SDK embedding model, or kgrag's own `Embedder`. */
  embedder?: EmbedderInput;
  /** A store to use instead of the workspace's SQLite file. */
  store?: Store;
  /** `fetch` used by the HTTP providers (tests, proxies). */
  fetch?: typeof fetch;
  /**
   * Knowledge graphs by name for the `tot` method (its `graphs` parameter names them); one named like a
   * `knowledgeGraphs` entry of the configuration, or `index`, replaces it.
   */
  knowledgeGraphs?: Record<string, KnowledgeGraph>;
  /**
   * Called before every retry of a failed LLM or embedding call (429, 5xx, timeouts, a refused connection), with
   * the attempt, the reason and the wait: a long run that is retrying should say so rather than fall silent.
   */
  onRetry?: (event: RetryEvent) => void;
}

/** Options of {@link Kgrag.index}. */
export interface IndexOptions extends CancellableWriteOptions {
  /** Overrides `index.mode`. */
  mode?: 'fast' | 'standard';
  /**
   * The methods to build the index for, instead of `pipeline.methods`; the steps of methods built earlier are
   * kept up to date too, so `['ppr']` builds only what `ppr` still lacks.
   */
  methods?: readonly string[];
  onEvent?: (event: PipelineEvent) => void;
  /** Cancels the run now; its draft is kept, and the next run resumes it (the step in progress is redone). */
  signal?: AbortSignal;
  /**
   * Stops the run once the step in progress has finished: that step is kept in the draft, no further step
   * starts, and `index` rejects with `PIPELINE_STOPPED`; the next run resumes at the following step.
   */
  stopAfterStep?: AbortSignal;
  /**
   * Remove the indexed documents under the given paths that this run did not find (their file or record is gone,
   * or now excluded); a file that could not be read keeps its documents. Without it they are kept, with a warning.
   */
  prune?: boolean;
}

/** Options of {@link Kgrag.delete}. */
export interface DeleteOptions extends CancellableWriteOptions {
  /** The mode of the run that brings the index up to date. @default a configured `index.mode`, else the mode the index's graph was built in */
  mode?: 'fast' | 'standard';
  /**
   * Keep the cached LLM replies of the deleted documents' calls, so that indexing them again costs no call. By
   * default they are deleted with everything else derived from the documents.
   */
  keepCache?: boolean;
  /** The folder a relative path among the selectors is relative to. @default process.cwd() */
  cwd?: string;
  onEvent?: (event: PipelineEvent) => void;
  signal?: AbortSignal;
  stopAfterStep?: AbortSignal;
}

/** One indexed document, as {@link Kgrag.documents} lists it. */
export interface IndexedDocument {
  id: string;
  title: string;
  /** Where it came from: an absolute file path, `file#record` of a data file, or `inline:<title>`. */
  source: string;
  chunks: number;
  /** ISO-8601 time the document (this version of it) was first indexed. */
  indexedAt: string;
  /**
   * `indexed`, or `source-missing` when its source is a file that no longer exists (`kgrag index <folder> --prune`
   * removes such documents).
   */
  status: 'indexed' | 'source-missing';
}

/** What {@link Kgrag.delete} removed. */
export interface DeleteSummary {
  deleted: IndexedDocument[];
  /** The run that brought the index up to date without them. */
  run: PipelineSummary;
  /** Cached LLM replies of the deleted documents' calls: removed (`kept: false`) or kept (`--keep-cache`). */
  cache: { kept: boolean; removedEntries: number };
}

/** What {@link Kgrag.delete} with `dryRun` predicts, changing nothing. */
export interface DeleteDryRun extends IndexDryRun {
  /** The documents the selectors choose. */
  deleting: IndexedDocument[];
}

/** Options of {@link Kgrag.estimateIndex}. */
export interface EstimateIndexOptions {
  /** Overrides `index.mode`. */
  mode?: 'fast' | 'standard';
  /** The methods to estimate an index for, as {@link IndexOptions.methods}. */
  methods?: readonly string[];
  /** Progress of loading and chunking the inputs, and warnings about them. */
  onEvent?: (event: PipelineEvent) => void;
  signal?: AbortSignal;
}

/** A workspace: index documents, then query them with any method. */
export interface Kgrag {
  readonly workspace: string;
  readonly config: KgragConfig;
  /**
   * The published index, read-only: every call reads the newest generation (an index run publishes its
   * work atomically when it completes). Writing goes through `index` and the other writing operations.
   */
  readonly store: Store;
  /**
   * Browsing the published index's graph: entity search by name, an entity with its sources and communities,
   * neighbourhoods, communities with their reports, chunks, and a slice of the graph for a viewer.
   */
  readonly graph: GraphBrowser;
  /** Where the index lives, and who writes it: the published generation, a running writer, an unfinished run. */
  status(): Promise<WorkspaceStatus>;
  readonly engine: QueryEngine;
  /** The configured chat model, or undefined when none is configured (fast mode, extractive answers). */
  readonly llm: LanguageModel | undefined;
  /** The prompts in use: the workspace's edited copies (`prompts/`), else the built-in texts. */
  readonly prompts: PromptLibrary;
  /**
   * What the user should know about the workspace, found when it opened, that did not stop it: files in the
   * prompts folder that match no prompt and were ignored. The command line prints each on stderr.
   */
  readonly warnings: readonly string[];
  /** Adds or updates documents from files, folders, or in-memory documents, then brings the index up to date. */
  index(inputs: readonly string[] | Partial<IndexInputs> | readonly InputDocument[], options?: IndexOptions): Promise<PipelineSummary>;
  /**
   * What `index(inputs, options)` would cost in LLM calls, tokens and USD, step by step, without calling the
   * model or changing the workspace (`kgrag index --dry-run`). Extraction calls are exact; later steps are
   * estimated (see `estimateIndexCost`).
   */
  estimateIndex(inputs: readonly string[] | Partial<IndexInputs> | readonly InputDocument[], options?: EstimateIndexOptions): Promise<IndexDryRun>;
  query(question: string, options?: Omit<QueryRequest, 'question'>): Promise<QueryResult>;
  retrieve(question: string, options?: Omit<QueryRequest, 'question' | 'contextOnly' | 'onText'>): Promise<RetrievalResult>;
  /**
   * Imports a HippoRAG OpenIE file (`openie_*_results_ner_*.json`): its triples replace extraction for the
   * chunks of the documents whose `title + "\n" + text` is one of its passages. The file is stored in the
   * workspace, so later index runs keep using it; an import that differs from the stored one makes the next
   * run rebuild the triples and everything after them. Then brings the index up to date (`index` with no new
   * inputs), unless `index: false` or the workspace has no documents yet.
   */
  importOpenie(file: string, options?: ImportOpenieOptions): Promise<OpenieImportSummary>;
  /**
   * Imports the output folder of a Microsoft GraphRAG index (its parquet tables, 1.x or 2.x) as a standard-mode
   * index: documents, text units, entities, relationships, communities, reports and claims as GraphRAG made them,
   * GraphRAG's ids kept beside kgrag's. Then builds what kgrag adds (vectors with the workspace's embedder, triples,
   * the methods' graphs), LLM-free unless an LLM is configured, so that every method answers. The workspace must
   * be empty or hold an earlier import; an imported index is updated by importing again, not by `index`.
   */
  importGraphrag(directory: string, options?: ImportGraphragOptions): Promise<GraphragImportSummary>;
  /**
   * Writes the published index in another tool's format: `graphrag` (GraphRAG 2.x parquet tables), `graphml` (Gephi,
   * Cytoscape, networkx) or `neo4j` (CSV files for `neo4j-admin database import` and a Cypher script).
   */
  export(options: ExportOptions): Promise<ExportSummary>;
  /** The documents of the published index, in index order; with `ids`, only those of them that exist. */
  documents(ids?: readonly string[]): Promise<IndexedDocument[]>;
  /**
   * Removes documents chosen by selectors (an id or unique id prefix, a source path or folder, a title, or a glob over
   * sources: see `selectDocuments`) and everything derived only from them, then brings the index up to date and
   * publishes it. A selector that chooses nothing fails the call before anything is removed
   * (`DELETE_NO_MATCH`).
   */
  delete(selectors: readonly string[], options?: DeleteOptions): Promise<DeleteSummary>;
  /**
   * Drops the draft an unfinished index run left (interrupted, failed or killed), so that the next run starts again
   * from the published index instead of resuming it: what a cancel does for a run that could not do it itself. Takes
   * the writer lock, waiting like `index`; true when there was such a draft.
   */
  discardDraft(options?: WriterLockOptions): Promise<boolean>;
  /** What `delete(selectors)` would remove and redo, and its LLM cost, without changing anything. */
  estimateDelete(selectors: readonly string[], options?: EstimateIndexOptions & Pick<DeleteOptions, 'cwd'>): Promise<DeleteDryRun>;
  /**
   * Works as an indexing worker of this workspace until `signal` aborts (`kgrag worker`): takes the shards of LLM
   * work that index runs on the same Postgres database hand out (`workers`), one at a time, and makes their calls into
   * the running index's LLM cache. Needs the postgres backend and the configuration the index run uses.
   */
  work(options?: WorkOptions): Promise<WorkSummary>;
  /** LLM usage and cost since the workspace was opened. */
  usage(): UsageSnapshot;
  /** Row counts of the main index tables. */
  stats(): Promise<IndexStats>;
  close(): Promise<void>;
}

/** Options of {@link Kgrag.work}. */
export interface WorkOptions {
  /** Stops taking shards; the shard in progress is abandoned (another worker takes it after its lease). */
  signal?: AbortSignal;
  /** Called after each shard. */
  onShard?: (shard: { step: string; round: number; index: number; count: number; items: number; calls: number }) => void;
}

/** What {@link Kgrag.work} did. */
export interface WorkSummary {
  shards: number;
  calls: number;
}

/** Options of {@link Kgrag.importOpenie}. */
export interface ImportOpenieOptions extends WriterLockOptions {
  /** Bring the index up to date after storing the import. @default true */
  index?: boolean;
  /** Overrides `index.mode` for that run. */
  mode?: 'fast' | 'standard';
  onEvent?: (event: PipelineEvent) => void;
  signal?: AbortSignal;
}

/** What an OpenIE import holds and how much of it matches the workspace's documents. */
export interface OpenieImportSummary {
  /** Usable passages in the file. */
  docs: number;
  /** Passages matched to an indexed document, and the rest. */
  matched: number;
  unmatched: number;
  /** Triples and entities of the matched passages (what the index uses). */
  triples: number;
  entities: number;
  /** The first unmatched passages (position in the file and title), for messages. */
  unmatchedDocs: Array<{ index: number; title: string }>;
  /** Records of the file that could not be used, with their position and why. */
  skipped: SkippedOpenieRecord[];
  /** Triples that were not three non-empty strings, and entities that were not strings. */
  droppedTriples: number;
  droppedEntities: number;
  /** False when the workspace already held this import. */
  changed: boolean;
  /** The index run that followed, if one was made. */
  indexed: PipelineSummary | undefined;
}

/** Size of an index. */
export interface IndexStats {
  documents: number;
  chunks: number;
  entities: number;
  relations: number;
  communities: number;
}

/** The options with `signal` also aborted by `cancelSignal`: every part of the run stops on either. */
function withCancelSignal<O extends { signal?: AbortSignal; cancelSignal?: AbortSignal }>(options: O): O {
  if (options.cancelSignal === undefined) return options;
  return { ...options, signal: options.signal === undefined ? options.cancelSignal : AbortSignal.any([options.signal, options.cancelSignal]) };
}

function lockSignal(signal: AbortSignal | undefined, stopAfterStep: AbortSignal | undefined): { signal?: AbortSignal } {
  if (signal === undefined) return stopAfterStep === undefined ? {} : { signal: stopAfterStep };
  return { signal: stopAfterStep === undefined ? signal : AbortSignal.any([signal, stopAfterStep]) };
}

function toRunUsage(snapshot: UsageSnapshot): RunUsage {
  const byModel: RunUsage['byModel'] = {};
  for (const [model, totals] of Object.entries(snapshot.byModel)) {
    byModel[model] = { calls: totals.calls, inputTokens: totals.inputTokens, outputTokens: totals.outputTokens, costUsd: totals.costUsd };
  }
  return { llmCalls: snapshot.calls, inputTokens: snapshot.inputTokens, outputTokens: snapshot.outputTokens, costUsd: snapshot.costUsd, byModel };
}

/** The documents of an index with their chunk counts, and whether their source file still exists. */
async function listDocuments(from: Store, ids?: readonly string[]): Promise<IndexedDocument[]> {
  const only = ids === undefined ? undefined : { column: 'documentId' as const, values: ids };
  const chunkCounts = new Map<string, number>();
  for (const { documentId } of await from.table('chunks').pick(['documentId'], only)) chunkCounts.set(documentId, (chunkCounts.get(documentId) ?? 0) + 1);
  const documents = await from.table('documents').pick(['id', 'title', 'source', 'createdAt'], ids === undefined ? undefined : { column: 'id', values: ids });
  return documents.map((document) => ({
    id: document.id,
    title: document.title,
    source: document.source,
    chunks: chunkCounts.get(document.id) ?? 0,
    indexedAt: document.createdAt,
    status: sourceFileMissing(document.source) ? 'source-missing' : 'indexed',
  }));
}

/** Meta key of the chunk-text hashes whose cached LLM replies a `delete --keep-cache` kept. */
const keptCacheSourcesKey = 'llm-cache:kept-sources';

/**
 * Forgets the cached LLM replies tagged with a chunk text the index no longer holds (an unchanged chunk of an edited
 * document keeps its replies), except those an earlier `delete --keep-cache` kept; with `keep`, keeps these ones
 * too instead. Works from what the index holds rather than from what this run removed, so a delete resumed after
 * an interruption forgets as much as an undisturbed one. Returns how many entries it removed.
 */
async function forgetCachedCallsOfGoneChunks(store: Store, keep: boolean): Promise<number> {
  const tagged = new Set((await store.table('llmCacheSources').pick(['source'])).map((row) => row.source));
  if (tagged.size === 0) return 0;
  for (const chunk of await store.table('chunks').pick(['text'])) tagged.delete(sha256(chunk.text));
  const kept = new Set(await store.getMeta<string[]>(keptCacheSourcesKey));
  // Sources that are not chunk texts (a given store's query replies: `kgrag:query`) are not the index's to forget.
  const gone = [...tagged].filter((source) => !kept.has(source) && !source.includes(':'));
  if (keep) {
    if (gone.length > 0) await store.setMeta(keptCacheSourcesKey, [...kept, ...gone].sort());
    return 0;
  }
  return forgetCachedCalls(store, gone);
}

/** Documents a run removed or replaced by another version. */
function removedDocuments(summary: PipelineSummary): number {
  const load = summary.counts.load ?? {};
  return (load['removed'] ?? 0) + (load['replaced'] ?? 0);
}

/** Whether a source names a file (absolute path, or `file#record`) that no longer exists. */
function sourceFileMissing(source: string): boolean {
  if (!isAbsolute(source) || existsSync(source)) return false;
  const hash = source.lastIndexOf('#');
  return hash < 0 || !existsSync(source.slice(0, hash));
}

function requireSelectors(selectors: readonly string[]): void {
  if (selectors.length === 0 || selectors.some((selector) => selector.trim().length === 0)) {
    throw new KgragError('no documents to delete: give document ids, source paths, titles or globs', {
      code: 'DELETE_NO_SELECTORS',
      category: 'input',
      hint: '`kgrag documents` lists the indexed documents; e.g. `kgrag delete docs/old.md` or `kgrag delete "**/drafts/*"`',
    });
  }
}

function noMatchError(unmatched: readonly string[], documents: number): KgragError {
  const names = unmatched.map((selector) => `"${sanitizeForTerminal(selector)}"`).join(', ');
  return new KgragError(`${unmatched.length === 1 ? 'selector' : 'selectors'} ${names} ${unmatched.length === 1 ? 'matches' : 'match'} none of the ${documents} indexed documents, so nothing was deleted`, {
    code: 'DELETE_NO_MATCH',
    category: 'input',
    hint: '`kgrag documents` lists ids, titles and sources; a path is matched as indexed (absolute) or relative to the current directory, and a glob (*, **) over sources',
    details: { unmatched: [...unmatched] },
  });
}

function normalizeInputs(inputs: readonly string[] | Partial<IndexInputs> | readonly InputDocument[]): IndexInputs {
  if (Array.isArray(inputs)) {
    if (inputs.every((item) => typeof item === 'string')) return { paths: inputs as string[], documents: [] };
    return { paths: [], documents: inputs as InputDocument[] };
  }
  const partial = inputs as Partial<IndexInputs>;
  return {
    paths: partial.paths ?? [],
    documents: partial.documents ?? [],
    ...(partial.remove === undefined ? {} : { remove: partial.remove }),
    ...(partial.prune === undefined ? {} : { prune: partial.prune }),
  };
}

/**
 * Opens a workspace: resolves the configuration (defaults < kgrag.yaml < KGRAG_* < options), opens the
 * store, and builds the providers. Nothing is indexed or called until `index` or `query`.
 */
export async function createKgrag(options: KgragOptions = {}): Promise<Kgrag> {
  const loaded = await loadConfig({
    workspace: options.workspace ?? process.cwd(),
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.config === undefined ? {} : { overrides: options.config }),
    methods: methodConfigSchemas,
  });
  const { config, workspace } = loaded;
  const modeConfigured = loaded.isSet(['index', 'mode']);
  // Every method's section is validated now, with the rest of the configuration, not at its first query.
  parseMethodConfigs(config.methods, registeredMethods);
  selectMethods(config.pipeline.methods, 'pipeline.methods');
  const tokenizer: Tokenizer = await createTokenizer(config.tokenizer.encoding);
  // `store.path: ':memory:'` (tests, one-off runs) is one in-memory store that queries read as it is written.
  const givenStore = options.store ?? (config.store.path === ':memory:' ? openSqliteStore(':memory:') : undefined);
  const storage: WorkspaceStorage = givenStore
    ? singleStoreWorkspace(givenStore)
    : await openWorkspaceStorage(config, workspace);
  const store = givenStore ?? publishedStoreView(storage);
  const prices = priceSettings(config);
  const meter: UsageMeter = createUsageMeter({
    prices: mergeModelPrices(prices.prices),
    ...(config.llm.pricePerMillionTokens ? { pricePerMillionTokens: config.llm.pricePerMillionTokens } : {}),
  });
  /** The draft's cache while this process writes the index (paid indexing calls survive a crash with it); else the query cache. */
  let writeCache: LlmResponseCache | undefined;
  const llmCache: LlmResponseCache = {
    get: async (key) => (writeCache ? await writeCache.get(key) : undefined) ?? (await storage.queryCache.get(key)),
    set: (key, value, sources) => (writeCache ?? storage.queryCache).set(key, value, sources),
    addSources: (key, sources) => (writeCache ?? storage.queryCache).addSources(key, sources),
  };
  const llm = resolveLanguageModel(options.llm, config.llm, {
    ...(config.llm.cache ? { cache: llmCache } : {}),
    meter,
    countTokens: (text: string) => tokenizer.count(text),
    env: {},
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
  });
  const embedderDependencies = options.onRetry === undefined ? {} : { onRetry: options.onRetry };
  /**
   * An embedder for the index in `from`. A corpus-fitted one (the local embedder) gets its own instance with
   * that index's fitted state, so that a query of one generation never embeds with another one's statistics —
   * nor with the statistics an index run is fitting right now.
   */
  const embedderFor = async (from: Store): Promise<Embedder> => {
    const embedder = resolveEmbedder(options.embedder, config, options.fetch, embedderDependencies);
    if (isCorpusFitted(embedder)) {
      const state = await from.getBlob(embedderStateKey);
      if (state) embedder.importState(embedderStateOf(state));
    }
    return embedder;
  };
  const workspacePrompts = loadWorkspacePrompts(
    isAbsolute(config.prompts.directory) ? config.prompts.directory : join(workspace, config.prompts.directory),
    promptTemplates,
  );
  const prompts: PromptLibrary = { text: (template) => workspacePrompts.text(template) };
  const warnings = workspacePrompts.warning === undefined ? [] : [workspacePrompts.warning];
  const engine = createQueryEngine({
    prompts,
    index: storage,
    config,
    embedder: resolveEmbedder(options.embedder, config, options.fetch, embedderDependencies),
    embedderFor,
    tokenizer,
    ...(llm === undefined ? {} : { llm }),
    // Graph instances reach tot through a tot of their own, which replaces the built-in one.
    methods: options.knowledgeGraphs === undefined ? registeredMethods : registeredMethods.map((method) => (method.name === 'tot' ? createTotMethod({ knowledgeGraphs: options.knowledgeGraphs }) : method)),
    costOf: (usage) => {
      const price = llm ? resolveModelPrice(llm.modelId, prices) : undefined;
      return price ? (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1e6 : 0;
    },
  });

  const stepEnvironment = { prompts, llmModel: llm ? `${llm.provider}:${llm.modelId}` : undefined };

  /** Opens a draft generation another process writes, for a worker; only a Postgres workspace has them. */
  const requireDistributedStorage = (command: string): ((generation: number) => Promise<Store>) => {
    const openDraft = storage.openDraft?.bind(storage);
    if (config.store.backend !== 'postgres' || !openDraft) {
      throw new KgragError(`${command} needs the index in a Postgres database that the index run and its workers share`, {
        code: 'WORKERS_NEED_POSTGRES',
        category: 'config',
        hint: 'set store.backend: postgres and store.url (or KGRAG_DATABASE_URL) in the workspace configuration; with SQLite, index without workers',
      });
    }
    return openDraft;
  };

  /** The workspace's queue of prefetch shards; its supervisor (the indexing process) hands a killed worker's shard on. */
  const openWorkspaceQueue = async (supervise: boolean): Promise<PrefetchQueue> => {
    const { openPrefetchQueue } = await import('./workers/prefetch-queue.js');
    return openPrefetchQueue({
      url: config.store.url ?? '',
      schema: config.store.schema,
      workspace: postgresWorkspaceName(config, workspace),
      leaseSeconds: config.workers.leaseSeconds,
      supervise,
    });
  };

  /** The prefetch queue and local worker processes of an index run, when `workers` asks for them. */
  const startIndexWorkers = async (): Promise<{ queue: PrefetchQueue; stop(): Promise<void> } | undefined> => {
    if (config.workers.local === 0 && !config.workers.remote) return undefined;
    requireDistributedStorage(config.workers.local > 0 ? `workers.local: ${config.workers.local}` : 'workers.remote');
    if (config.workers.local > 0 && options.llm) {
      throw new KgragError('local index workers make their own LLM client from the configuration, and this workspace was given one in code', {
        code: 'WORKERS_NEED_CONFIGURED_LLM',
        category: 'config',
        hint: 'configure the model with llm.* (or KGRAG_LLM_* variables) instead of passing `llm` to createKgrag, or index without workers',
      });
    }
    const queue = await openWorkspaceQueue(true);
    let local: LocalIndexWorkers | undefined;
    try {
      if (config.workers.local > 0) {
        const { startLocalIndexWorkers } = await import('./workers/start-index-workers.js');
        local = await startLocalIndexWorkers({
          count: config.workers.local,
          workspace,
          ...(options.config === undefined ? {} : { config: options.config }),
          ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
          ...(options.env === undefined ? {} : { env: options.env }),
        });
      }
    } catch (error) {
      await queue.stop();
      throw error;
    }
    return {
      queue,
      async stop() {
        try {
          await local?.stop();
        } finally {
          await queue.stop();
        }
      },
    };
  };

  /**
   * Runs `work` as the workspace's one writer, on a draft of the index, and publishes the draft when `work`
   * changed it. A run that fails or is interrupted keeps its draft for the next one to resume, and readers
   * keep the last published index meanwhile.
   */
  const write = async <R extends { changed: boolean }>(
    lockOptions: CancellableWriteOptions & { signal?: AbortSignal; stopAfterStep?: AbortSignal },
    work: (session: WriteSession, embedder: Embedder, currentStep: (step: string) => void) => Promise<R>,
  ): Promise<R> => {
    const session = await storage.beginWrite({
      command: lockOptions.command ?? 'index',
      ...(lockOptions.wait === undefined ? {} : { wait: lockOptions.wait }),
      ...(lockOptions.onWait === undefined ? {} : { onWait: lockOptions.onWait }),
      // Waiting for another writer is not a step: a request to stop after the current step ends the wait too.
      ...lockSignal(lockOptions.signal, lockOptions.stopAfterStep),
    });
    let step: string | null = null;
    try {
      writeCache = config.llm.cache ? createStoreLlmCache(session.store) : undefined;
      const result = await work(session, await embedderFor(session.store), (name) => {
        step = name;
      });
      if (result.changed || session.resumed) await session.publish();
      else await session.discard();
      await session.end();
      return result;
    } catch (error) {
      const interrupted = lockOptions.signal?.aborted === true || (lockOptions.stopAfterStep?.aborted === true && KgragError.isInstance(error) && error.code === 'PIPELINE_STOPPED');
      if (lockOptions.cancelSignal?.aborted === true) {
        await session.discard();
        await session.end();
        throw error;
      }
      await session.end({ status: interrupted ? 'interrupted' : 'failed', step, error: interrupted ? null : errorMessage(error) });
      throw error;
    } finally {
      writeCache = undefined;
    }
  };

  /** The methods an index run builds for: those asked for, and those the index was built for before. */
  const methodsToBuild = async (target: Store, asked: readonly string[] | undefined): Promise<{ methods: AnyQueryMethod[]; previous: string[] | undefined }> => {
    const requested = selectMethods(asked ?? config.pipeline.methods, asked ? 'the methods to index for' : 'pipeline.methods');
    const previous = await builtMethods(target);
    // An index from before methods were chosen holds the steps of every method.
    const earlier = previous ?? ((await target.table('runs').count()) > 0 ? registeredMethods.map((method) => method.name) : []);
    const names = new Set([...earlier, ...requested.map((method) => method.name)]);
    return { methods: registeredMethods.filter((method) => names.has(method.name)), previous };
  };

  /** Runs pipeline steps on a writer's `target` with the workspace's providers, naming each step as it starts. */
  const runSteps = (
    target: Store,
    embedder: Embedder,
    steps: PipelineStep[],
    runOptions: Pick<IndexOptions, 'signal' | 'stopAfterStep' | 'onEvent'> & { beforeStep?: RunPipelineOptions['beforeStep'] },
    currentStep: (step: string) => void,
    inputs?: IndexInputs,
  ): Promise<PipelineSummary> =>
    runPipeline({
      ...(runOptions.beforeStep === undefined ? {} : { beforeStep: runOptions.beforeStep }),
      steps,
      prompts,
      store: target,
      config,
      tokenizer,
      embedder,
      ...(llm === undefined ? {} : { llm }),
      ...(inputs === undefined ? {} : { inputs }),
      ...(runOptions.signal === undefined ? {} : { signal: runOptions.signal }),
      ...(runOptions.stopAfterStep === undefined ? {} : { stopAfterStep: runOptions.stopAfterStep }),
      onEvent: (event) => {
        if (event.type === 'step-start') currentStep(event.step);
        runOptions.onEvent?.(event);
      },
      usage: () => toRunUsage(meter.snapshot()),
    });

  const runIndex = async (
    target: Store,
    embedder: Embedder,
    inputs: IndexInputs,
    indexOptions: IndexOptions,
    currentStep: (step: string) => void,
    workers?: { queue: PrefetchQueue; generation: number },
  ): Promise<PipelineSummary> => {
    // Unless a mode is asked for or configured, an update keeps the mode the index's graph was built in: a plain
    // `kgrag index docs/` on a standard index must not rebuild its graph in fast mode.
    const imported = await importedIndexSource(target);
    if (imported !== undefined) throw importedIndexUpdateError(imported, inputs.remove === undefined ? 'index' : 'delete');
    const mode = indexOptions.mode ?? (modeConfigured ? config.index.mode : ((await builtMode(target)) ?? config.index.mode));
    if (inputs.paths.length === 0 && inputs.documents.length === 0 && (await target.table('documents').count()) === 0) {
      throw new KgragError('nothing to index: the workspace holds no documents yet, and no files or folders were given', {
        code: 'INDEX_NO_INPUTS',
        category: 'input',
        hint: 'pass files or folders, e.g. `kgrag index docs/`',
      });
    }
    const { methods } = await methodsToBuild(target, indexOptions.methods);
    // Recorded before the steps run: an interrupted run's draft then tells the run resuming it which methods it
    // builds (a draft with steps but no methods would read as an index from before methods were chosen: all).
    const methodsChanged = await recordBuiltMethods(target, methods.map((method) => method.name));
    const { indexPipeline } = await import('./index-pipeline.js');
    const distribution = workers
      ? await (await import('./workers/distribute-prefetch.js')).startPrefetchDistribution(workers.queue, {
          workspace: postgresWorkspaceName(config, workspace),
          generation: workers.generation,
          mode,
          methods: methods.map((method) => method.name),
          shardsPerRound: config.workers.shardsPerRound,
          fingerprintOf: (step) => stepSettingsFingerprint(step, config, stepEnvironment),
          workOnShards: config.workers.local === 0,
        })
      : undefined;
    const summary = await runSteps(
      target,
      embedder,
      await indexPipeline({ config, mode, hasLlm: llm !== undefined, methods }),
      { ...indexOptions, ...(distribution === undefined ? {} : { beforeStep: distribution.beforeStep }) },
      currentStep,
      inputs,
    );
    if (methodsChanged) summary.changed = true;
    return summary;
  };

  /**
   * Refuses, before anything is stored, an OpenIE file that holds no usable passage, or none of whose
   * passages matches a document of an indexed workspace: storing it would replace a useful import by one
   * that changes nothing. A workspace with no index yet keeps the file for the corpus indexed later.
   */
  const refuseUnusableImport = async (file: string, parsed: Awaited<ReturnType<typeof parseOpenieFile>>): Promise<void> => {
    if (parsed.docs.length === 0) {
      const [first] = parsed.skipped;
      throw new KgragError(
        `OpenIE file ${file} holds no usable passage${parsed.skipped.length === 0 ? ': its "docs" list is empty' : `: all ${parsed.skipped.length} records were skipped (docs[${first?.index}]: ${first?.problem})`}`,
        { code: 'OPENIE_NO_PASSAGES', category: 'input', hint: 'pass the openie_*_results_ner_*.json file HippoRAG wrote, whose docs have "passage", "extracted_entities" and "extracted_triples"', details: { file, skipped: parsed.skipped.length } },
      );
    }
    const snapshot = await storage.snapshot();
    if (snapshot === undefined) return;
    try {
      const documents = await snapshot.store.table('documents').pick(['id', 'title', 'text']);
      if (documents.length === 0) return;
      const assignment = assignOpenieDocs(parsed.docs, documents, await snapshot.store.table('chunks').pick(['id', 'documentId', 'ordinal', 'text']));
      if (assignment.matched > 0) return;
      const passages = parsed.docs.slice(0, 2).map((doc) => `docs[${doc.index}] "${doc.title ?? doc.passage.split('\n', 1)[0] ?? ''}"`);
      const titles = documents.slice(0, 2).map((document) => `"${document.title}"`);
      throw new KgragError(
        `0 of the ${parsed.docs.length} passages of OpenIE file ${file} match one of the ${documents.length} documents of ${workspace} (passages: ${passages.join(', ')}${parsed.docs.length > 2 ? ', …' : ''}; documents: ${titles.join(', ')}${documents.length > 2 ? ', …' : ''}), so nothing was imported`,
        {
          code: 'OPENIE_NOTHING_MATCHED',
          category: 'input',
          hint: 'a passage matches a document whose title, a line break and text (or whose text) equal it, spacing aside: import the file into the workspace of the corpus it was made from (check --workspace), or index that corpus with the same titles and texts',
          details: { file, passages: parsed.docs.length, documents: documents.length },
        },
      );
    } finally {
      snapshot.release();
    }
  };

  const kgrag: Kgrag = {
    workspace,
    config,
    store,
    graph: createGraphBrowser(store),
    engine,
    llm,
    prompts,
    warnings,
    async discardDraft(options = {}) {
      const session = await storage.beginWrite({
        command: options.command ?? 'discard the draft',
        ...(options.wait === undefined ? {} : { wait: options.wait }),
        ...(options.onWait === undefined ? {} : { onWait: options.onWait }),
      });
      const resumed = session.resumed;
      await session.discard();
      await session.end();
      return resumed;
    },
    async index(inputs, asked = {}) {
      const indexOptions = withCancelSignal(asked);
      // Validate the mode and methods before taking the lock: a configuration error should not wait for another writer.
      const { indexPipeline } = await import('./index-pipeline.js');
      await indexPipeline({ config, mode: indexOptions.mode ?? config.index.mode, hasLlm: llm !== undefined, methods: selectMethods(indexOptions.methods ?? config.pipeline.methods, indexOptions.methods ? 'the methods to index for' : 'pipeline.methods') });
      const workers = await startIndexWorkers();
      try {
        const normalized = normalizeInputs(inputs);
        const withPrune = indexOptions.prune === undefined ? normalized : { ...normalized, prune: indexOptions.prune };
        const summary = await write(indexOptions, async (session, embedder, currentStep) => {
          const run = await runIndex(session.store, embedder, withPrune, indexOptions, currentStep, workers && { queue: workers.queue, generation: session.generation });
          await forgetCachedCallsOfGoneChunks(session.store, false);
          return run;
        });
        if (removedDocuments(summary) > 0) await storage.clearQueryCache();
        return summary;
      } finally {
        await workers?.stop();
        // The same store (a single-store workspace) may have changed in place.
        engine.invalidate();
      }
    },
    status: () => storage.status(),
    async estimateIndex(inputs, estimateOptions = {}) {
      const snapshot = await storage.snapshot();
      const current = snapshot?.store ?? openSqliteStore(':memory:');
      const mode = estimateOptions.mode ?? (modeConfigured ? config.index.mode : ((await builtMode(current)) ?? config.index.mode));
      try {
        const { dryRunIndex } = await import('../pipeline/estimate/dry-run-index.js');
        const { indexPipeline } = await import('./index-pipeline.js');
        const { methods } = await methodsToBuild(current, estimateOptions.methods);
        return await dryRunIndex({
          store: current,
          config,
          tokenizer,
          embedder: await embedderFor(current),
          prompts,
          mode,
          // The step list only tells which steps would run; no model is needed to read it.
          steps: await indexPipeline({ config, mode, hasLlm: true, methods }),
          llm,
          inputs: normalizeInputs(inputs),
          ...(estimateOptions.signal === undefined ? {} : { signal: estimateOptions.signal }),
          ...(estimateOptions.onEvent === undefined ? {} : { onEvent: estimateOptions.onEvent }),
        });
      } finally {
        if (snapshot) snapshot.release();
        else await current.close();
      }
    },
    query(question, queryOptions = {}) {
      return engine.query({ ...queryOptions, question });
    },
    retrieve(question, retrieveOptions = {}) {
      return engine.retrieve({ ...retrieveOptions, question });
    },
    async work(workOptions = {}) {
      const target = requireDistributedStorage('kgrag worker');
      const queue = await openWorkspaceQueue(false);
      const summary: WorkSummary = { shards: 0, calls: 0 };
      const { indexPipeline } = await import('./index-pipeline.js');
      await queue.work(async (job) => {
        const draft = await target(job.generation);
        writeCache = config.llm.cache ? createStoreLlmCache(draft) : undefined;
        try {
          const steps = await indexPipeline({ config, mode: job.mode, hasLlm: llm !== undefined, methods: selectMethods(job.methods, 'the methods of the index run') });
          const step = steps.find((candidate) => candidate.name === job.step);
          if (!step?.prefetch || !llm) {
            throw new KgragError(`this worker cannot make the calls of step ${job.step}${llm ? '' : ': it has no LLM configured'}`, {
              code: 'WORKER_CANNOT_PREFETCH',
              category: 'config',
              hint: 'give the worker the workspace configuration and LLM settings the index run uses',
            });
          }
          if (stepSettingsFingerprint(step, config, stepEnvironment) !== job.fingerprint) {
            throw new KgragError(`this worker's settings for step ${job.step} differ from the index run's (model, prompts or extraction options)`, {
              code: 'WORKER_CONFIG_MISMATCH',
              category: 'config',
              hint: 'run the worker with the same kgrag.yaml, prompts folder and KGRAG_* variables as `kgrag index`',
            });
          }
          const result = await step.prefetch(
            {
              store: draft,
              config,
              tokenizer,
              embedder: await embedderFor(draft),
              llm,
              prompts,
              inputs: { paths: [], documents: [] },
              signal: workOptions.signal,
              progress: () => undefined,
              warn: () => undefined,
            },
            { ...job.shard, round: job.round },
          );
          summary.shards++;
          summary.calls += result.calls;
          workOptions.onShard?.({ step: job.step, round: job.round, ...job.shard, ...result });
          return result;
        } finally {
          writeCache = undefined;
          await draft.close();
        }
      });
      try {
        // Without a signal a worker works until the process ends.
        await new Promise<void>((resolve) => {
          if (workOptions.signal?.aborted) resolve();
          else workOptions.signal?.addEventListener('abort', () => resolve(), { once: true });
        });
      } finally {
        await queue.stop();
      }
      return summary;
    },
    usage: () => meter.snapshot(),
    async stats() {
      const snapshot = await storage.snapshot();
      if (!snapshot) return { documents: 0, chunks: 0, entities: 0, relations: 0, communities: 0 };
      try {
        const published = snapshot.store;
        return {
          documents: await published.table('documents').count(),
          chunks: await published.table('chunks').count(),
          entities: await published.table('entities').count(),
          relations: await published.table('relations').count(),
          communities: await published.table('communities').count(),
        };
      } finally {
        snapshot.release();
      }
    },
    async importOpenie(file, importOptions = {}) {
      const parsed = await parseOpenieFile(file);
      await refuseUnusableImport(file, parsed);
      const imported = await write({ ...importOptions, command: importOptions.command ?? 'import openie' }, async (session, embedder, currentStep) => {
        const { saveOpenieImport } = await import('../pipeline/steps/triples-step.js');
        const { changed } = await saveOpenieImport(session.store, parsed, file);
        const hasDocuments = (await session.store.table('documents').count()) > 0;
        const indexed =
          importOptions.index !== false && hasDocuments
            ? await runIndex(session.store, embedder, { paths: [], documents: [] }, importOptions, currentStep)
            : undefined;
        return { changed: changed || indexed?.changed === true, importChanged: changed, indexed };
      });
      engine.invalidate();
      const snapshot = await storage.snapshot();
      const published = snapshot?.store ?? store;
      try {
        const assignment = assignOpenieDocs(
          parsed.docs,
          await published.table('documents').pick(['id', 'title', 'text']),
          await published.table('chunks').pick(['id', 'documentId', 'ordinal', 'text']),
        );
        return {
          docs: parsed.docs.length,
          matched: assignment.matched,
          unmatched: assignment.unmatched.length,
          triples: assignment.triples,
          entities: assignment.entities,
          unmatchedDocs: assignment.unmatched.slice(0, 10).map((doc) => ({ index: doc.index, title: doc.title ?? doc.passage.split('\n', 1)[0] ?? '' })),
          skipped: parsed.skipped,
          droppedTriples: parsed.droppedTriples,
          droppedEntities: parsed.droppedEntities,
          changed: imported.importChanged,
          indexed: imported.indexed,
        };
      } finally {
        snapshot?.release();
      }
    },
    async importGraphrag(directory, importOptions = {}) {
      const { importGraphragInto } = await import('./import-graphrag.js');
      try {
        return await write({ ...importOptions, command: importOptions.command ?? 'import graphrag' }, (session, embedder, currentStep) =>
          importGraphragInto(session.store, directory, {
            config,
            hasLlm: llm !== undefined,
            countTokens: (text) => tokenizer.count(text),
            embedderId: embedder.id,
            run: (steps) => runSteps(session.store, embedder, steps, importOptions, currentStep),
          }),
        );
      } finally {
        engine.invalidate();
      }
    },
    async export(exportOptions) {
      const snapshot = await storage.snapshot();
      if (!snapshot) {
        throw new KgragError(`${workspace} holds no index to export`, { code: 'EXPORT_NO_INDEX', category: 'input', hint: 'index documents first (`kgrag index <paths>`) or import one (`kgrag import graphrag <dir>`)' });
      }
      try {
        const { exportIndex } = await import('./export-index.js');
        return await exportIndex(snapshot.store, exportOptions);
      } finally {
        snapshot.release();
      }
    },
    async documents(ids) {
      const snapshot = await storage.snapshot();
      if (!snapshot) return [];
      try {
        return await listDocuments(snapshot.store, ids);
      } finally {
        snapshot.release();
      }
    },
    async delete(selectors, asked = {}) {
      const deleteOptions = withCancelSignal(asked);
      requireSelectors(selectors);
      const result = await write({ ...deleteOptions, command: deleteOptions.command ?? 'delete' }, async (session, embedder, currentStep) => {
        const present = await listDocuments(session.store);
        const selection = selectDocuments(present, selectors, deleteOptions.cwd);
        const deleted = [...selection.documents];
        if (selection.unmatched.length > 0 && session.resumed) {
          // An interrupted delete's draft has removed some documents already: the published index still names them.
          const previous = await storage.snapshot();
          if (previous) {
            try {
              const earlier = selectDocuments(await listDocuments(previous.store), selection.unmatched, deleteOptions.cwd);
              const presentIds = new Set(present.map((document) => document.id));
              appendAll(deleted, earlier.documents.filter((document) => !presentIds.has(document.id)));
              selection.unmatched = earlier.unmatched;
            } finally {
              previous.release();
            }
          }
        }
        if (selection.unmatched.length > 0) throw noMatchError(selection.unmatched, present.length);
        // Before the draft changes: should this process be killed, readers are told what answers may still cite.
        await session.recordDeletion(deleted);
        // A deletion updates the methods the index was built for and builds nothing new (its mode follows `runIndex`'s rule).
        const methods = await builtMethods(session.store);
        const run = await runIndex(
          session.store,
          embedder,
          { paths: [], documents: [], remove: deleted.map((document) => document.id) },
          { ...deleteOptions, ...(methods === undefined ? {} : { methods }) },
          currentStep,
        );
        const removedEntries = await forgetCachedCallsOfGoneChunks(session.store, deleteOptions.keepCache === true);
        return { changed: true, deleted, run, cache: { kept: deleteOptions.keepCache === true, removedEntries } };
      });
      engine.invalidate();
      // After the publish: a query answered meanwhile from the old index may have cached the deleted text again.
      if (deleteOptions.keepCache !== true) await storage.clearQueryCache();
      return { deleted: result.deleted, run: result.run, cache: result.cache };
    },
    async estimateDelete(selectors, estimateOptions = {}) {
      requireSelectors(selectors);
      const snapshot = await storage.snapshot();
      const [present, methods] = snapshot
        ? await Promise.all([listDocuments(snapshot.store), builtMethods(snapshot.store)]).finally(() => snapshot.release())
        : [[], undefined];
      const selection = selectDocuments(present, selectors, estimateOptions.cwd);
      if (selection.unmatched.length > 0) throw noMatchError(selection.unmatched, present.length);
      const estimate = await kgrag.estimateIndex(
        { paths: [], documents: [], remove: selection.documents.map((document) => document.id) },
        { ...estimateOptions, ...(methods === undefined ? {} : { methods }) },
      );
      return { ...estimate, deleting: selection.documents };
    },
    async close() {
      await storage.close();
      if (givenStore) await givenStore.close();
    },
  };
  return kgrag;
}
