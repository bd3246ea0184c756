import type { EntityEditRequest } from '../extract/entity-edits/entity-edit-rules.js';
import type { KgragConfig } from '../core/config/config-schema.js';
import type { PromptLibrary } from '../core/prompt-library.js';
import type { RunRecord, RunUsage } from '../core/types.js';
import type { Embedder } from '../providers/embed/embedder.js';
import type { LanguageModel } from '../providers/llm/language-model.js';
import type { TableName } from '../store/schema.js';
import type { Store } from '../store/store.js';
import type { Tokenizer } from '../text/tokenizer.js';

/**
 * The name of a pipeline step: one of {@link sharedStepNames}, or a step a method contributes (its plugin declares
 * it in `QueryMethod.provides`). Open, since the pipeline names no method: the composer checks the names.
 */
export type StepName = string;

/** The shared steps' names, in SPEC §4.3 order (fast mode's `nlp-extract`, standard mode's LLM graph, triples), and the shared artifacts' (`chunk-knn`). */
export const sharedStepNames = [
  'load',
  'chunk',
  'statistics',
  'entity-edits',
  'embed-chunks',
  'nlp-extract',
  'llm-extract',
  'resolve-entities',
  'summarize',
  'claims',
  'communities',
  'reports',
  'embed-entities',
  'embed-reports',
  'triples',
  'embed-triples',
  'chunk-knn',
] as const;

/** What a step asks of a shared artifact: its name and the parameters it needs, each a number ("at least this"). */
export interface ArtifactRequest {
  readonly artifact: string;
  readonly params: Readonly<Record<string, number>>;
}

/** A document handed to `index` directly instead of a path. */
export interface InputDocument {
  title: string;
  text: string;
  /** Stable origin; documents with the same source replace each other. @default `inline:<title>` */
  source?: string;
  metadata?: Record<string, unknown>;
}

/** What one `index` (or `delete`) call was asked to add and remove. */
export interface IndexInputs {
  paths: readonly string[];
  documents: readonly InputDocument[];
  /** Ids of documents to remove from the index (`kgrag delete`). */
  remove?: readonly string[];
  /**
   * Remove the indexed documents whose source lies under one of `paths` but which this run did not load (their file
   * or record is gone, or is now excluded); a file that could not be read this run keeps its documents. Without it,
   * such documents are kept and the run warns about them.
   */
  prune?: boolean;
  /** Refit the corpus statistics in this run whatever the drift (`kgrag index --refresh`; see `index.refreshShare`). */
  refresh?: boolean;
  /** An entity merge, split or undo to record before the graph is built again (`Kgrag.editEntities`). */
  entityEdit?: EntityEditRequest;
  /**
   * The source a file of `paths` is stored under instead of its path (records of it get `<label>#…`): `kgrag serve`
   * stores an upload as `upload:<name>`, the same on every server whatever folder keeps the file, so an edited upload
   * through any server replaces the document. A document stored under the path itself before is replaced too.
   */
  sourceLabels?: Readonly<Record<string, string>>;
}

/** A problem with one input that did not stop the run. */
export interface PipelineWarning {
  step: StepName;
  code: string;
  message: string;
  source?: string;
}

/** Progress of the pipeline, for progress bars and logs. */
export type PipelineEvent =
  | { type: 'pipeline-start'; steps: StepName[] }
  | { type: 'step-start'; step: StepName; index: number; count: number }
  | { type: 'step-progress'; step: StepName; done: number; total: number; unit: string; usage: RunUsage }
  | { type: 'step-skip'; step: StepName; reason: 'up-to-date' }
  | { type: 'step-end'; step: StepName; durationMs: number; counts: Record<string, number>; usage: RunUsage }
  | { type: 'warning'; warning: PipelineWarning }
  | { type: 'pipeline-end'; durationMs: number; usage: RunUsage };

/** What besides the configuration can change a step's output. */
export interface StepEnvironment {
  readonly prompts: PromptLibrary;
  /** `provider:model` of the chat model, or undefined without one. */
  readonly llmModel: string | undefined;
}

/** Everything a step may use. Steps read freely and write only inside `commit`. */
export interface StepContext {
  readonly store: Store;
  readonly config: KgragConfig;
  readonly tokenizer: Tokenizer;
  readonly embedder: Embedder;
  readonly llm: LanguageModel | undefined;
  /** Prompt texts, with the workspace's overrides applied. */
  readonly prompts: PromptLibrary;
  readonly inputs: IndexInputs;
  readonly signal: AbortSignal | undefined;
  /** The steps of this run, in order (what the run builds, for estimates); undefined when a step runs alone. */
  readonly steps?: readonly StepName[];
  /**
   * The keys of the rows of `table` this run wrote (upserted or deleted) before this step, when those are all the rows
   * that changed in it since this step last ran: its last run succeeded, and every step it reads had then the output it
   * had when this run began. (A step skipped as up to date misses no row: a write that keeps its step's output version
   * changes only records no later step reads, `StepOutput.changedRecords`.) An update can then look at these rows
   * instead of comparing every row with what it stored.
   * The set may name rows written with the content they had, or gone since. Undefined when that is not known: the
   * step's first run, a changed setting, a run resumed after a crash, a table written other than by key (a clear, a
   * delete by another column, a plugin's table) or in more than 50,000 rows; the step then compares every row. Absent where no runner records
   * writes (a step run alone).
   */
  changedKeys?(table: TableName): ReadonlySet<string> | undefined;
  /** Reports items done out of total; cheap to call often (the runner throttles nothing, renderers do). */
  progress(done: number, total: number, unit?: string): void;
  warn(code: string, message: string, source?: string): void;
}

/** What a step computed: counts for the run record, a version hash of its output, and its writes. */
export interface StepOutput {
  /**
   * What the step did, by name. A step that calls the LLM reports `llmCriticalPath`: the calls on its
   * longest chain of calls that each wait for an earlier one (a conversation's turns, a report after its
   * sub-communities' reports), so its wall time can be judged against `llmCriticalPath × latency` as well as
   * `calls × latency / concurrency` (bench/llm-throughput.ts, which checks the claim against the chains of dependent
   * requests in the mock server's log).
   */
  counts: Record<string, number>;
  /** Hash of the step's output; steps that read it include it in their fingerprint. */
  outputVersion: string;
  /**
   * The write changes records although `outputVersion` is the same, because no later step reads what changed (a moved
   * file's document takes its new source): the run still publishes, and the steps that read this one stay skipped.
   * @default false
   */
  changedRecords?: boolean;
  /**
   * Writes the step's tables. The runner calls it inside one transaction together with the run
   * record, so a crash leaves either the old state or the complete new one.
   */
  write(tx: Store): Promise<void>;
}

/**
 * One named, idempotent pipeline step. A step whose fingerprint (its configuration and the output
 * versions of the steps it reads) matches the last successful run is skipped.
 */
export interface PipelineStep {
  readonly name: StepName;
  /** Bumped when the step's code changes what it produces. */
  readonly version: number;
  /** Steps whose output this one reads (the steps of the artifacts it consumes among them). */
  readonly reads: readonly StepName[];
  /**
   * Shared artifacts the step reads, with the parameters it needs (`chunk-knn` with `{ k: 10 }`): the composer builds
   * each artifact once per index, at the largest value of each parameter any step asks for, and the step takes its
   * share (the first k of each row). See `ArtifactProvider` (`compose-pipeline.ts`).
   */
  readonly consumes?: readonly ArtifactRequest[];
  /** The configuration that changes this step's output (JSON-serializable): settings, model, prompts. */
  settings(config: KgragConfig, environment: StepEnvironment): unknown;
  /** Whether the step must run even when its fingerprint is unchanged (e.g. `load` with new inputs). */
  mustRun?(context: StepContext): boolean;
  /**
   * Whether its last successful run, `previous`, left work undone that a later run must try again although nothing it
   * reads changed (entity-resolution groups the LLM could not decide): the step then runs again, and is not
   * predicted up to date by the dry run. @default false
   */
  unfinished?(previous: RunRecord): boolean;
  run(context: StepContext): Promise<StepOutput>;
  /**
   * Makes the LLM calls that `run` would make for the items `shard` owns, through `context.llm`, and throws the
   * results away: they land in the LLM response cache, so the `run` that follows finds every one of them there.
   * This is how the calls of one step are spread over worker processes (see "Spreading LLM work over workers" in
   * docs/ARCHITECTURE.md). Only steps whose LLM calls are independent per item define it.
   *
   * The contract, which every step that defines it keeps:
   * - it makes exactly the requests `run` would make for those items (same prompts, turns in the same order, same
   *   settings), and none for items `run` would reuse (stored extractions, remembered summaries, kept reports);
   * - it writes nothing to the store but the LLM cache's entries (the cache is the store's when `llm.cache` is on;
   *   without a cache a prefetch is wasted work);
   * - it reads the store as `run` does, so it is called only when every step this one reads has committed, that is
   *   right before `run` (`RunPipelineOptions.beforeStep`), with a context made from the same configuration, prompts
   *   and chat model as the coordinator's;
   * - it may be called again for the same shard (a worker died): the calls it finished are cache hits, and only
   *   the calls it had not finished are paid again.
   *
   * A call that fails for good (the provider is down) rejects, as it would fail `run`; an unusable reply is handled
   * as `run` handles it (its repair turn included), so it is cached too.
   */
  prefetch?(context: StepContext, shard: StepShard): Promise<StepPrefetchResult>;
  /**
   * How many rounds the prefetch of this step takes, for a step whose calls for an item depend on the replies of
   * other items of the same step: a community report reads its sub-communities' reports, so a report's round is
   * its height in the community tree (0 for a community without sub-communities), and round r's shards may start
   * only once every shard of round r − 1 has finished. The rounds are counted from what the committed steps wrote,
   * like `run`'s items. Without it a step prefetches in one round, 0. A step that has nothing to prefetch (no LLM)
   * returns 0.
   */
  prefetchRounds?(context: StepContext): Promise<number>;
  /**
   * Whether, with these settings, the step analyses text with an English-only model (wink-nlp's English
   * parser): before the first such step runs, the pipeline warns once when chunks are in a language it cannot
   * read (Chinese, Japanese, Korean), naming every such step. @default false
   */
  englishOnly?(context: StepContext): boolean;
  /**
   * The LLM calls and tokens the step would take, for the dry run (`kgrag index --dry-run`); only steps that
   * call the model and are contributed by a method define it (the shared steps are estimated by the dry run).
   */
  estimateCost?(input: StepCostInput): StepCostDraft;
}

/**
 * Which of a step's items one `prefetch` call owns: item `id` belongs to shard `shardOfItem(id, count)` (a hash of
 * the id modulo `count`, `owns-item.ts`), the same in every process, so the `count` shards of a round partition the
 * step's items exactly, whoever runs them.
 */
export interface StepShard {
  /** This shard, 0 ≤ index < count. */
  index: number;
  /** How many shards the step's items are split into (≥ 1). */
  count: number;
  /** The round, 0 ≤ round < `PipelineStep.prefetchRounds` (steps without rounds: 0). @default 0 */
  round?: number;
}

/** What one `prefetch` call did, for the coordinator's progress and logs. */
export interface StepPrefetchResult {
  /** The shard's items of this round that `run` would not reuse: those it made (or found cached) the calls of. */
  items: number;
  /**
   * Requests it sent through the model, answered from the cache or not (its usage meter tells the paid ones). A
   * report's prefetch counts the replays of the sub-reports its context needs, which earlier rounds cached.
   */
  calls: number;
}

/** What a step's cost estimate may read: the chunks the index will hold and the prompts the run would send. */
export interface StepCostInput {
  chunks: ReadonlyArray<{ id: string; text: string }>;
  /** Tokens of all those chunks. */
  chunkTokens: number;
  tokenizer: Tokenizer;
  prompts: PromptLibrary;
  mode: 'fast' | 'standard';
  /** Set when the run updates an existing index: how many of its chunks the run adds and removes, and how many it had. */
  update?: { addedChunks: number; removedChunks: number; previousChunks: number };
}

/** The LLM cost of one step before pricing: calls (the most; `minCalls` the fewest), prompt and reply tokens. */
export interface StepCostDraft {
  step: StepName;
  calls: number;
  minCalls?: number;
  inputTokens: number;
  outputTokens: number;
  /** True when `calls` follows from the chunks and settings alone. */
  exact: boolean;
  /** One line saying how the numbers were obtained. */
  basis: string;
}
