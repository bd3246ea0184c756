import type { KgragConfig, KgragConfigInput } from '../core/config/config-schema.js';
import type { KgragError } from '../core/errors.js';
import type { StoreConnections } from '../store/workspace-storage.js';
import type { SharedJobStore } from '../store/shared-job-store.js';
import type { PromptLibrary } from '../core/prompt-library.js';
import type { EntityEdit, EntityEditRequest } from '../extract/entity-edits/entity-edit-rules.js';
import type { SkippedOpenieRecord } from '../extract/triples/parse-openie-file.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import type { QueryEngine, QueryRequest, QueryResult, RetrievalResult } from '../methods/query-engine.js';
import type { IndexDryRun } from '../pipeline/estimate/dry-run-index.js';
import type { IndexInputs, InputDocument, PipelineEvent } from '../pipeline/pipeline-step.js';
import type { PipelineSummary } from '../pipeline/run-pipeline.js';
import type { EmbedderInput } from '../providers/embed/resolve-embedder.js';
import type { KnowledgeGraph } from '../methods/tot/index.js';
import type { LanguageModel } from '../providers/llm/language-model.js';
import type { LanguageModelInput } from '../providers/llm/resolve-language-model.js';
import type { RetryEvent } from '../providers/llm/retry-policy.js';
import type { UsageSnapshot } from '../providers/llm/usage-meter.js';
import type { Store } from '../store/store.js';
import type { WorkspaceStatus } from '../store/workspace-storage.js';
import type { WorkspaceStorageOpener } from './built-in-stores.js';
import type { ExportOptions, ExportSummary } from './export-index.js';
import type { IndexExporter } from './index-exporter.js';
import type { GraphBrowser } from './graph-browser.js';
import type { GraphragImportSummary, ImportGraphragOptions } from './import-graphrag.js';
import type { CancellableWriteOptions, WriterLockOptions } from './write-options.js';

/**
 * Options of {@link createKgrag}. `Methods` is the list of query methods given as `methods`, whose names and schemas
 * type `config.methods` (the built-ins by default).
 */
export interface KgragOptions<Methods extends readonly AnyQueryMethod[] = any> {
  /** Workspace folder: holds `kgrag.yaml` and the index database. @default process.cwd() */
  workspace?: string;
  /** Configuration values that win over `kgrag.yaml` and the environment. */
  config?: KgragConfigInput<Methods>;
  /** An explicit configuration file instead of `<workspace>/kgrag.yaml`. */
  configFile?: string;
  /**
   * A configuration file beneath the workspace's own: `kgrag serve --workspaces <folder>` opens every tenant on the
   * folder's `kgrag.yaml` (its `store:`, `llm:`, …), which a tenant's own file may override.
   */
  baseConfigFile?: string;
  /** Environment variables. @default process.env */
  env?: Record<string, string | undefined>;
  /**
   * The workspace's query methods, in the order their steps run in an index built for all of them: the built-ins
   * (`builtInMethods`) by default; pass `[...builtInMethods, myMethod]` to add one. Methods that are not built-ins are
   * plugins, checked against the method contract (`specificationVersion: 'kgrag-method-v1'`, see docs/ARCHITECTURE.md
   * "Writing a method"); the plugins `kgrag.yaml` lists are added after them.
   */
  methods?: Methods;
  /**
   * A chat model to use instead of the configured one: any AI SDK language model (`ollama('qwen3')`), which gets the
   * configured cache, retries, limits and timeout, or kgrag's own `LanguageModel` (e.g. the scripted fake in tests).
   */
  llm?: LanguageModelInput;
  /** An embedder to use instead of the configured one: any AI SDK embedding model, or kgrag's own `Embedder`. */
  embedder?: EmbedderInput;
  /**
   * The storage backends by `store.backend` name: `builtInStores` (sqlite, postgres) by default; add one with
   * `{ ...builtInStores, mine: (config, workspace) => openMyStorage(...) }`.
   */
  stores?: Readonly<Record<string, WorkspaceStorageOpener>>;
  /** The export formats of `Kgrag.export`: `builtInExporters` (graphrag, graphml, neo4j) by default. */
  exporters?: readonly IndexExporter[];
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

/** What `Kgrag.editEntities` did: the edit as recorded, and the index run that applied it. */
export interface EntityEditSummary {
  edit: EntityEdit;
  run: PipelineSummary;
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
  /**
   * Refit the corpus-wide statistics in this run (`kgrag index --refresh`): the index then equals a fresh build of the
   * same documents. Without it they are refitted once the drift passes `index.refreshShare`.
   */
  refresh?: boolean;
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
// The default `any` lets a function that takes any workspace (`Kgrag`) take one whose methods are typed.
export interface Kgrag<Methods extends readonly AnyQueryMethod[] = any> {
  readonly workspace: string;
  /** The resolved configuration; `config.methods.<name>` is typed by the schema of each of `Methods`. */
  readonly config: KgragConfig<Methods>;
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
  /**
   * Merges entities into one, splits an alias off an entity into an entity of its own, or undoes such an edit, then
   * brings the index up to date (an index run with no new documents; fast mode builds its entity graph again, standard
   * mode resolves its entities again, reusing the LLM's cached replies). Entities are named by id, name or alias.
   * Edits are kept with the index, apply to every later run and a fresh build alike, and stay listed when undone
   * (`entityEdits`).
   */
  editEntities(edit: EntityEditRequest, options?: IndexOptions): Promise<EntityEditSummary>;
  /** The entity edits of the published index, oldest first, undone ones included. */
  entityEdits(): Promise<EntityEdit[]>;
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
  /** The database connections the workspace's store holds now (Postgres), or undefined for a store without a pool. */
  storeConnections(): StoreConnections | undefined;
  /**
   * The workspace's index jobs in its database, which every server and indexer worker on it shares (Postgres), or
   * undefined for a store whose jobs are one server's files (SQLite).
   */
  sharedJobs(): SharedJobStore | undefined;
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
  /**
   * Called when this worker refuses a shard it cannot do as the index run would (`WORKER_CONFIG_MISMATCH`,
   * `WORKER_CANNOT_PREFETCH`): the shard goes back to the queue for another worker, or to the run itself.
   */
  onRefused?: (refusal: { step: string; round: number; index: number; count: number; error: KgragError }) => void;
  /**
   * Called when the queue's database cannot be reached (at start, or while waiting for shards): the worker keeps
   * trying, with a growing pause, instead of exiting. `retryInSeconds` is set when it waits before the next attempt.
   */
  onStoreError?: (error: KgragError, retryInSeconds?: number) => void;
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
  /** When the corpus-wide statistics were last fitted, and how far the corpus has drifted since (absent before a first build). */
  statistics?: StatisticsDrift;
}

/** The corpus statistics of an index and their drift (see `index.refreshShare`). */
export interface StatisticsDrift {
  /** ISO-8601 time of the last refresh. */
  fittedAt: string;
  /** Documents and chunks at the last refresh. */
  documents: number;
  chunks: number;
  /** Chunks added or removed since (a changed chunk counts twice). */
  changedChunks: number;
  /** `changedChunks` over `chunks`: the next update past `refreshShare` refits. */
  changedShare: number;
  refreshShare: number;
}
