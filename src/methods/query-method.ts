import type { ChatMessage } from '../providers/llm/language-model.js';
import type { z } from 'zod';
import type { ContextChunk, Citation, Answer } from '../answer/answer-types.js';
import type { KgragConfig } from '../core/config/config-schema.js';
import type { PromptLibrary, PromptTemplate } from '../core/prompt-library.js';
import type { CommunityRecord, EntityRecord, RelationRecord } from '../core/types.js';
import type { PipelineStep, StepName } from '../pipeline/pipeline-step.js';
import type { Embedder } from '../providers/embed/embedder.js';
import type { LanguageModel } from '../providers/llm/language-model.js';
import type { PluginTables } from '../store/store-extensions.js';
import type { Store } from '../store/store.js';
import type { Tokenizer } from '../text/tokenizer.js';

/** The version of the {@link QueryMethod} contract this kgrag implements (`QueryMethod.specificationVersion`). */
export const methodSpecificationVersion = 'kgrag-method-v1';

/** One timed step of a query, for the trace. */
export interface TraceStep {
  name: string;
  ms: number;
  detail?: Record<string, unknown>;
}

/** Records what a method did. */
export interface QueryTrace {
  steps: TraceStep[];
  /** Runs `fn` and records its duration under `name`. */
  time<R>(name: string, fn: () => Promise<R>, detail?: (result: R) => Record<string, unknown>): Promise<R>;
}

/** Progress of a long query step (Tree-of-Traversals' expansions), for a progress line. */
export interface QueryProgress {
  /** The step, named as in the trace (`tot-search`). */
  step: string;
  done: number;
  /** The most `done` can reach, when known. */
  total?: number;
  /** One line for people: what is happening. */
  message: string;
}

/** What a method may use. */
export interface MethodContext {
  readonly store: Store;
  readonly config: KgragConfig;
  readonly embedder: Embedder;
  readonly tokenizer: Tokenizer;
  readonly llm: LanguageModel | undefined;
  /** Prompt texts with the workspace's overrides. */
  readonly prompts: PromptLibrary;
  readonly signal: AbortSignal | undefined;
  readonly trace: QueryTrace;
  /**
   * The caller asked for the context without an LLM call (`--context-only`). `llm` is then a model whose every
   * call fails (`noCallsModel`), so a method must check this flag before it would call: optional LLM helpers
   * (query NER, reranking) take their LLM-free path, and a method whose context the LLM itself chooses refuses
   * (`contextOnlyUnsupported`).
   */
  readonly contextOnly: boolean;
  /** Earlier turns of the conversation, for the answering call ({@link QueryRequest.history}); empty for one question. */
  readonly history: readonly ChatMessage[];
  /** Adds a line to the result's `warnings`: something the reader should know about how this answer was made. */
  warn(message: string): void;
  /**
   * Fails with the engine's "index not ready" error unless `steps` have run: for requirements that depend on
   * the parameters, which `QueryMethod.requires` cannot express. `hint` adds another way out.
   */
  requireSteps(steps: readonly StepName[], hint?: string): Promise<void>;
  /** Reports progress of a long step to the caller (`QueryRequest.onProgress`); cheap when nobody listens. */
  progress(event: QueryProgress): void;
  /** Embeds a question in the chunk vector space (cached per question). */
  embedQuery(text: string): Promise<Float32Array>;
  /**
   * A value derived from the index (lookup maps, adjacency, loaded vectors), built on first use and shared by
   * every query of this workspace until the index changes. `key` names the value; use one key per shape.
   */
  memo<T>(key: string, build: () => Promise<T>): Promise<T>;
  /** Hydrates chunk ids into context chunks (with document titles), keeping the given order and scores. */
  chunks(hits: ReadonlyArray<{ id: string; score: number; scores?: Record<string, number> }>): Promise<ContextChunk[]>;
}

/** A subgraph for the trace and the web explorer (query node, seeds, expansions, passages). */
export interface QuerySubgraph {
  nodes: Array<{ id: string; label: string; kind: string; score?: number }>;
  edges: Array<{ source: string; target: string; kind: string; weight?: number }>;
}

/**
 * How a method's ranked passages relate to the method, for evaluation reports: `native` — the method ranks
 * passages itself; `proxy` — it answers from something else (reports, a local search) and the passages are a
 * stand-in ranking; `fallback` — the method could not run as asked (no LLM) and another procedure ranked them.
 */
export interface RankingInfo {
  kind: 'native' | 'proxy' | 'fallback';
  /** Why, in a few words for report footnotes, e.g. "no LLM: kg-tfidf instead of the agent". */
  note?: string;
}

/**
 * What a method retrieved. `chunks` are the ranked passages evaluation scores; `state` is what the method's
 * own `answer` needs from this retrieval (the context it built, the search it ran), passed back to it as is.
 */
export interface Retrieval<State = undefined> {
  chunks: ContextChunk[];
  /** How `chunks` were ranked. @default { kind: 'native' } */
  ranking?: RankingInfo;
  entities?: EntityRecord[];
  relations?: RelationRecord[];
  communities?: CommunityRecord[];
  keywords?: Array<{ id: string; text: string; score: number }>;
  subgraph?: QuerySubgraph;
  state: State;
}

/** Output of a method's own answerer (methods without one use the engine's default). */
export interface MethodAnswer {
  answer: Answer;
  citations: Citation[];
  /** The packed context given to the LLM, and its size. */
  contextText: string;
  contextTokens: number;
  /** Tokens of every LLM call the answer made (map, reduce, …); omitted when it made none. */
  usage?: { inputTokens: number; outputTokens: number };
  /** LLM calls the answer paid for (cache hits excluded). */
  llmCalls?: number;
  /** Distinct `[Data: …]` references to ids the context did not contain. */
  unknownReferences?: number;
}

/** Options the engine passes to answerers. */
export interface AnswerOptions {
  onText?: (delta: string) => void;
  contextOnly: boolean;
}

/**
 * A method's configuration schema: a zod object (`z.object({...})`, refinements allowed), whose public `shape` names
 * its keys for messages, `-k` and the configuration template.
 */
export type MethodSchema<Config = Record<string, unknown>> = z.ZodType<Config> & { readonly shape: Readonly<Record<string, z.ZodType>> };

/** What a method's index steps are made from. */
export interface MethodBuild<Config> {
  /** The method's configuration (`methods.<name>` of kgrag.yaml, validated by its schema). */
  readonly config: Config;
  readonly mode: 'fast' | 'standard';
  /** The step whose output is the finished entity graph in this mode: `nlp-extract` (fast) or `summarize` (standard). */
  readonly graphStep: StepName;
  /** How chunk kNN graphs are built (`index.knn` of kgrag.yaml): `exactUpTo` unset keeps the builder's default. */
  readonly knn: { readonly exactUpTo?: number | undefined };
}

/**
 * A query method as a plugin: what it adds to the index, how it retrieves, and optionally how it answers.
 * Everything of one method lives in its folder `methods/<name>/`; the pipeline of an index is the union of
 * the steps its methods require and contribute.
 */
export interface QueryMethod<Config extends Record<string, unknown> = Record<string, unknown>, State = undefined> {
  /**
   * The version of this contract the method implements. A method from outside kgrag (a plugin) must say
   * `kgrag-method-v1`; a later kgrag that changes the contract refuses a plugin written for another version
   * instead of calling it wrongly. The built-in methods implement the current version and say so like any plugin.
   */
  readonly specificationVersion: typeof methodSpecificationVersion;
  readonly name: string;
  readonly description: string;
  /** Named variants (`basic:bm25`); the first is the default. Empty when the method has none. */
  readonly variants: readonly string[];
  /**
   * One schema for the method's index settings and query parameters, with the paper's names and defaults. It
   * validates `methods.<name>` when the configuration is loaded, and each query's parameters over that.
   */
  readonly config: MethodSchema<Config>;
  /** Keys of `config` that shape the index: set in kgrag.yaml, since a query cannot change what was built. */
  readonly indexSettings?: readonly string[];
  /** Keys of `config` a request may not set although they shape no index: endpoints the server would call. */
  readonly configOnly?: readonly string[];
  /** The parameter, or parameters, a request's `topK` (CLI `-k`) sets. @default 'k' */
  readonly topKParam?: string | readonly string[];
  /**
   * How the passages of its retrieval relate to its answer, for evaluation: `native` when the method ranks
   * passages itself, `proxy` when it answers from something else and ranks passages as a stand-in. A retrieval
   * that falls back to another procedure says so in `Retrieval.ranking`.
   */
  readonly ranking: RankingInfo;
  /**
   * The method cannot answer without a chat model (DRIFT's follow-up searches, Tree-of-Traversals' walk): clients mark
   * it before a question is sent, not after it fails. A method that only answers better with one (an LLM-free
   * fallback, extractive answers) leaves it unset. @default false
   */
  readonly needsLlm?: boolean;
  /** Index steps whose output the method reads: shared ones and those it contributes. */
  readonly requires: readonly StepName[];
  /**
   * The names of the index steps `indexSteps` returns, declared up front so that a clash with another method's or a
   * shared step is found when the workspace opens, not when an index is built. Required of a plugin that has steps.
   */
  readonly provides?: readonly StepName[];
  /** The store's vector spaces its steps write besides the shared ones (lower-case names no built-in space uses). */
  readonly vectorSpaces?: readonly string[];
  /**
   * The store tables its steps write besides the shared ones, by name, each a spec like the schema's (`AnyTableSpec`);
   * the workspace's storage creates them beside the built-in tables.
   */
  readonly tables?: PluginTables;
  /**
   * Shared steps an index built for this method must run when that depends on its configuration (tot walks the
   * workspace graph only when `graphs` names `index`); `requires` when absent. Queries check `requires`.
   */
  indexRequires?(config: Config): readonly StepName[];
  /**
   * The pipeline steps this method adds to an index built for it (besides the shared ones it requires). A
   * promise, so that a method loads its index code only when an index is built, never for a query.
   */
  indexSteps?(build: MethodBuild<Config>): Promise<readonly PipelineStep[]>;
  /** The prompts the method sends, which a workspace may override (`kgrag init` writes them). */
  readonly prompts?: readonly PromptTemplate[];
  /**
   * Starts work a question will need that needs neither the index nor the configuration (loading a model on
   * another thread), for a caller that knows the question before it opens the workspace (the command line).
   */
  prepare?(question: string): void;
  retrieve(context: MethodContext, question: string, config: Config, variant: string | undefined): Promise<Retrieval<State>>;
  answer?(context: MethodContext, question: string, retrieval: Retrieval<State>, config: Config, options: AnswerOptions): Promise<MethodAnswer>;
}

/**
 * A method of any configuration and state, as registries and the engine hold them: the engine validates each
 * method's configuration with the method's own schema and hands its retrieval back to the same method.
 */
export type AnyQueryMethod = QueryMethod<any, any>;
