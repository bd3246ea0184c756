import type { ChatMessage } from '../providers/llm/language-model.js';
import type { Answer, Citation, ContextChunk } from '../answer/answer-types.js';
import { packSourcesTable } from '../answer/pack-context.js';
import { closestWord } from '../core/closest-word.js';
import type { KgragConfig } from '../core/config/config-schema.js';
import { KgragError } from '../core/errors.js';
import { builtInPrompts, type PromptLibrary } from '../core/prompt-library.js';
import type { Embedder } from '../providers/embed/embedder.js';
import type { LanguageModel } from '../providers/llm/language-model.js';
import { describeHolder } from '../store/describe-holder.js';
import { describeUnpublishedRun } from '../store/describe-unpublished-run.js';
import { builtMethods } from '../pipeline/built-methods.js';
import { singleStoreWorkspace } from '../store/single-store-workspace.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { IndexSnapshot, RunDocument, WorkspaceStatus, WorkspaceStorage } from '../store/workspace-storage.js';
import type { Tokenizer } from '../text/tokenizer.js';
import { lineCachedTokenizer } from '../text/line-cached-tokenizer.js';
import type { StepName } from '../pipeline/pipeline-step.js';
import { condenseQuestion, condenseQuestionPrompt } from '../answer/condense-question.js';
import { answerFromContext } from './shared/answer-from-context.js';
import type { AnswerOptions, AnyQueryMethod, MethodAnswer, MethodContext, QueryProgress, QueryTrace, RankingInfo, Retrieval, TraceStep } from './query-method.js';
import { configKeysOf } from './config-shape.js';
import { indexMatchedEmbedder } from './index-matched-embedder.js';
import { noCallsModel } from './no-calls-model.js';

/**
 * LightRAG's query modes, which its users type as method names, with the kgrag method that does the same (or the
 * closest). kgrag's own `basic:hybrid` is BM25 plus dense search over chunks, not LightRAG's hybrid.
 */
const lightRagModes: Readonly<Record<string, string>> = {
  naive: "LightRAG's naive mode is vector search over chunks: basic:dense here. ",
  hybrid: "LightRAG's hybrid mode retrieves by entities and by relations: local (entities with their relations and text units) or relations here; basic:hybrid is BM25 plus dense search over chunks. ",
  mix: "LightRAG's mix mode joins the graph with chunk vectors: local, whose context holds entities, relations and their text units, is the closest here. ",
  bypass: "LightRAG's bypass mode sends the question to the LLM without retrieval; every kgrag method retrieves. ",
};

/** The words of the warning a result carries when the conversation before its question went unused. */
export const lastQuestionAlone = 'answered the last question alone';

/** One question to answer. */
export interface QueryRequest {
  question: string;
  /** `name` or `name:variant`, e.g. `basic:bm25`. @default config `query.method` */
  method?: string;
  /** Method parameters; override `methods.<name>` of the configuration. */
  params?: Record<string, unknown>;
  /**
   * How many items the method retrieves: sets the method's top-k parameters ({@link QueryMethod.topKParam}),
   * e.g. passages for `basic` and `relations`, matched entities for `local`. An explicit value in `params`
   * wins; a method without such a parameter ignores it with a warning.
   */
  topK?: number;
  /** Return the assembled context without calling the LLM. */
  contextOnly?: boolean;
  /**
   * Earlier turns of a conversation (user and assistant messages, oldest first): the answering LLM reads them before
   * the question, so a follow-up ("and when was it built?") is answered in context. Retrieval uses the question.
   */
  history?: readonly ChatMessage[];
  /** Receives the generated answer as it streams. */
  onText?: (delta: string) => void;
  /** Receives progress of long steps (e.g. each Tree-of-Traversals expansion). */
  onProgress?: (event: QueryProgress) => void;
  signal?: AbortSignal;
}

/** Token, cost and time of one query. */
export interface QueryUsage {
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  latencyMs: number;
}

/** Which published index answered, for results and logs. */
export interface AnsweredFrom {
  /** The index generation (each completed index run publishes the next). */
  generation: number;
  publishedAt: string | null;
}

/** The result shape of SPEC §4.5. */
export interface QueryResult {
  question: string;
  method: string;
  variant: string | undefined;
  answer: Answer;
  citations: Citation[];
  context: Omit<Retrieval<unknown>, 'chunks' | 'state'> & { chunks: ContextChunk[]; text: string; tokens: number };
  trace: { steps: TraceStep[]; params: Record<string, unknown>; unknownReferences: number };
  usage: QueryUsage;
  index: AnsweredFrom;
  /**
   * What the reader should know about the index besides the answer: an index run in progress or one that
   * failed, whose changes the answer does not include yet.
   */
  warnings: string[];
}

/** Retrieval only, for evaluation. */
export interface RetrievalResult {
  method: string;
  variant: string | undefined;
  /** The method's retrieval, without its private `state`. */
  retrieval: Omit<Retrieval<unknown>, 'state'>;
  trace: TraceStep[];
  latencyMs: number;
  /** How the passages were ranked: the method's own ranking, a proxy for what it answers from, or a fallback. */
  ranking: RankingInfo;
  index: AnsweredFrom;
  warnings: string[];
}

/** The published index a query engine reads: a workspace's storage, or one store. */
export type IndexSource = Pick<WorkspaceStorage, 'snapshot' | 'status' | 'location'>;

/** Dependencies of {@link createQueryEngine}. */
export interface QueryEngineOptions {
  /**
   * Where the published index comes from; each query reads the newest generation, and what the engine derived
   * from an older one is dropped. Give `store` instead to query one store as it is.
   */
  index?: IndexSource;
  store?: Store;
  config: KgragConfig;
  embedder: Embedder;
  /**
   * The embedder for one published index, when vectors depend on it (a corpus-fitted embedder's state is part
   * of the index). Called once per generation. @default `embedder` for every generation
   */
  embedderFor?: (store: Store) => Promise<Embedder>;
  tokenizer: Tokenizer;
  llm?: LanguageModel;
  methods: readonly AnyQueryMethod[];
  /** Prompt texts with the workspace's overrides. @default the built-in prompts */
  prompts?: PromptLibrary;
  /** USD cost of a call's usage (from the price table). @default 0 */
  costOf?: (usage: { inputTokens: number; outputTokens: number }) => number;
}

/** What the engine derives from one published generation: method memos, the steps it has, its query embedder. */
interface GenerationDerived {
  generation: number | undefined;
  /** The store it was read from: one generation opened twice is two stores, and each closes on its own. */
  store?: Store;
  memos: Map<string, Promise<unknown>>;
  readySteps?: Set<string>;
  embedder?: Promise<Embedder>;
}

/** Answers questions with any registered method over one index. */
export interface QueryEngine {
  query(request: QueryRequest): Promise<QueryResult>;
  retrieve(request: Omit<QueryRequest, 'contextOnly' | 'onText'>): Promise<RetrievalResult>;
  /** Registered methods, for `--method` help and evaluation. */
  readonly methods: readonly AnyQueryMethod[];
  /**
   * Forgets what was derived from the index (memoized values, finished steps). A new published generation does
   * this by itself; call it after changing a store in place.
   */
  invalidate(): void;
}

function createTrace(): QueryTrace {
  const steps: TraceStep[] = [];
  return {
    steps,
    async time(name, fn, detail) {
      const started = performance.now();
      const result = await fn();
      const step: TraceStep = { name, ms: performance.now() - started };
      if (detail) step.detail = detail(result);
      steps.push(step);
      return result;
    },
  };
}

/** Creates the query engine. Method and parameter problems are reported as config/input errors. */
export function createQueryEngine(options: QueryEngineOptions): QueryEngine {
  const { config, embedder, llm } = options;
  // Contexts are rows that recur from query to query: their token counts are remembered.
  const tokenizer = lineCachedTokenizer(options.tokenizer);
  const source: IndexSource = options.index ?? singleStoreWorkspace(requireStore(options.store));
  const byName = new Map(options.methods.map((method) => [method.name, method]));
  const costOf = options.costOf ?? (() => 0);
  const prompts = options.prompts ?? builtInPrompts;
  /**
   * What was derived from the newest generation a query opened. Each query keeps the one of its own generation: a
   * query still running on the previous index must not leave what it derived (from a store that is closed once it
   * ends) to the queries of the new one.
   */
  let derived: GenerationDerived = { generation: undefined, memos: new Map() };
  /** Stands in for the index while a workspace has published none; a method that reads anything fails with "no index". */
  let emptyIndex: Store | undefined;

  const assertVariant = (method: AnyQueryMethod, variant: string | undefined): void => {
    if (variant === undefined || method.variants.includes(variant)) return;
    throw new KgragError(`method "${method.name}" has no variant "${variant}"`, {
      code: 'QUERY_UNKNOWN_VARIANT',
      category: 'input',
      hint: method.variants.length > 0 ? `choose one of: ${method.variants.map((item) => `${method.name}:${item}`).join(', ')}` : `use "${method.name}"`,
    });
  };

  const resolveMethod = (spec: string | undefined): { method: AnyQueryMethod; variant: string | undefined } => {
    const [name = '', variant] = (spec ?? config.query.method).split(':');
    const method = byName.get(name);
    if (!method) {
      const names = [...byName.keys()];
      const lightRag = lightRagModes[name.toLowerCase()];
      const nearest = lightRag === undefined ? closestWord(name, names) : undefined;
      throw new KgragError(`unknown method "${name}"`, {
        code: 'QUERY_UNKNOWN_METHOD',
        category: 'input',
        hint: `${lightRag ?? (nearest === undefined ? '' : `did you mean ${nearest}? `)}choose one of: ${names.join(', ')}`,
      });
    }
    assertVariant(method, variant);
    return { method, variant };
  };

  const resolveParams = (method: AnyQueryMethod, variant: string | undefined, params: Record<string, unknown> | undefined, topK: number | undefined) => {
    const keys = configKeysOf(method);
    const topKParams = [method.topKParam ?? 'k'].flat().filter((key) => keys.includes(key));
    const indexSettings = new Set(method.indexSettings ?? []);
    const misplaced = Object.keys(params ?? {}).filter((key) => indexSettings.has(key));
    if (misplaced.length > 0) {
      throw new KgragError(`${misplaced.map((key) => `"${key}"`).join(', ')} of method "${method.name}" ${misplaced.length === 1 ? 'is an index setting' : 'are index settings'}: ${misplaced.length === 1 ? 'it shapes' : 'they shape'} what the index holds, so a query cannot change ${misplaced.length === 1 ? 'it' : 'them'}`, {
        code: 'QUERY_INDEX_SETTING',
        category: 'input',
        hint: `set methods.${method.name}.${misplaced[0]} in kgrag.yaml and run \`kgrag index\` again`,
        details: { settings: misplaced },
      });
    }
    const configOnly = new Set(method.configOnly ?? []);
    const fromConfig = Object.keys(params ?? {}).filter((key) => configOnly.has(key));
    if (fromConfig.length > 0) {
      throw new KgragError(`"${fromConfig[0]}" of method "${method.name}" is set in the configuration only, not by a request`, {
        code: 'QUERY_CONFIG_ONLY_PARAM',
        category: 'input',
        hint: `set methods.${method.name}.${fromConfig[0]} in kgrag.yaml`,
        details: { settings: fromConfig },
      });
    }
    const raw: Record<string, unknown> = {
      ...(keys.includes('k') ? { k: config.query.topK } : {}),
      ...config.methods[method.name],
      ...(topK === undefined ? {} : Object.fromEntries(topKParams.map((key) => [key, topK]))),
      ...params,
    };
    const configuredVariant = typeof raw.variant === 'string' ? raw.variant : undefined;
    delete raw.variant;
    const parsed = method.config.safeParse(raw);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `methods.${method.name}.${issue.path.join('.') || '(all)'}: ${issue.message}`);
      const validKeys = keys.filter((key) => !indexSettings.has(key));
      const misspelt = Object.keys(params ?? {}).filter((key) => !keys.includes(key));
      const suggestions = misspelt.flatMap((key) => {
        const nearest = closestWord(key, validKeys);
        return nearest === undefined ? [] : [`"${key}": did you mean ${nearest}?`];
      });
      throw new KgragError(`invalid parameters for method "${method.name}": ${problems.join('; ')}`, {
        code: 'QUERY_INVALID_PARAMS',
        category: 'input',
        hint: `${suggestions.length > 0 ? `${suggestions.join('; ')} ` : ''}valid keys: ${validKeys.join(', ') || 'none'}`,
        details: { problems },
      });
    }
    const chosenVariant = variant ?? configuredVariant ?? method.variants[0];
    assertVariant(method, chosenVariant);
    // A top-k the method has no parameter for would otherwise be dropped without a word. The warning reaches every
    // surface (CLI, HTTP, MCP, explorer), so it names the request's field and the method's keys, not a flag.
    const ignoredTopK =
      topK !== undefined && topKParams.length === 0
        ? `topK does not apply to method "${method.name}", which has no top-k parameter, so it was ignored; set one of its parameters instead: ${keys.filter((key) => !indexSettings.has(key)).join(', ') || 'none'}`
        : undefined;
    return { params: parsed.data as Record<string, unknown>, variant: chosenVariant, ignoredTopK };
  };

  /** Fails unless every step in `steps` has run (done steps are read once, until the next index run). */
  const ensureIndexed = async (store: Store, generation: GenerationDerived, methodName: string, steps: readonly StepName[], hint?: string): Promise<void> => {
    if (store === emptyIndex && steps.length > 0) throw noIndexError(source.location, await source.status(), hint);
    generation.readySteps ??= new Set((await store.table('runs').all()).filter((run) => run.status === 'done').map((run) => run.step));
    const ready = generation.readySteps;
    const missing = steps.filter((step) => !ready.has(step));
    if (missing.length > 0) {
      const built = await builtMethods(store);
      if (built !== undefined && !built.includes(methodName)) {
        throw new KgragError(`this index was not built for method "${methodName}": it lacks step ${missing.join(', ')} (built for ${built.join(', ') || 'no method'})`, {
          code: 'QUERY_METHOD_NOT_BUILT',
          category: 'input',
          hint: `run \`kgrag index --methods ${methodName}\` to build only what it needs${hint === undefined ? '' : `, ${hint}`}`,
          details: { missing, built },
        });
      }
      throw new KgragError(`the index is not ready for method "${methodName}": step ${missing.join(', ')} has not run`, {
        code: 'QUERY_INDEX_NOT_READY',
        category: 'input',
        hint: `run \`kgrag index <paths>\` first (an interrupted run resumes where it stopped)${hint === undefined ? '' : `, ${hint}`}`,
        details: { missing },
      });
    }
  };

  const createContext = (
    store: Store,
    generation: GenerationDerived,
    embedder: Embedder,
    methodName: string,
    request: Pick<QueryRequest, 'signal' | 'onProgress' | 'contextOnly' | 'history'>,
    trace: QueryTrace,
    warnings: string[],
    historyUse: { read: boolean } = { read: false },
  ): MethodContext => {
    const queryVectors = new Map<string, Promise<Float32Array>>();
    const { signal, onProgress } = request;
    const { memos } = generation;
    const memo = <T>(key: string, build: () => Promise<T>): Promise<T> => {
      let value = memos.get(key) as Promise<T> | undefined;
      if (!value) {
        value = build();
        memos.set(key, value);
        // A failed build (an abort, a missing table) is retried by the next query rather than remembered.
        value.catch(() => {
          if (memos.get(key) === value) memos.delete(key);
        });
      }
      return value;
    };
    const contextOnly = request.contextOnly === true;
    return {
      store,
      config,
      embedder,
      tokenizer,
      llm: llm && contextOnly ? noCallsModel(llm, methodName) : llm,
      prompts,
      signal,
      trace,
      contextOnly,
      // Read by the answering call of the methods that pass the conversation on; a method that never reads it
      // answered without it, and the result says so.
      get history() {
        historyUse.read = true;
        return request.history ?? [];
      },
      warn(message) {
        if (!warnings.includes(message)) warnings.push(message);
      },
      progress(event) {
        onProgress?.(event);
      },
      requireSteps(steps, hint) {
        return ensureIndexed(store, generation, methodName, steps, hint);
      },
      memo,
      embedQuery(text) {
        let vector = queryVectors.get(text);
        if (!vector) {
          vector = trace.time('embed-query', async () => {
            const [embedded] = await embedder.embed([text], { inputType: 'query', ...(signal === undefined ? {} : { abortSignal: signal }) });
            return embedded as Float32Array;
          });
          queryVectors.set(text, vector);
        }
        return vector;
      },
      async chunks(hits) {
        // The documents' titles and sources are read once per index rather than after each chunk read: on a
        // remote store that second read was a round trip of its own in every query.
        const [chunkRows, documents] = await Promise.all([store.table('chunks').get(hits.map((hit) => hit.id)), memo('engine:document-labels', async () => new Map((await store.table('documents').pick(['id', 'title', 'source'])).map((document) => [document.id, document])))]);
        const rows = new Map(chunkRows.map((chunk) => [chunk.id, chunk]));
        return hits.flatMap((hit) => {
          const chunk = rows.get(hit.id);
          if (!chunk) return [];
          const document = documents.get(chunk.documentId);
          return [
            {
              id: chunk.id,
              hid: chunk.hid ?? 0,
              documentId: chunk.documentId,
              documentTitle: document?.title ?? '',
              source: document?.source ?? '',
              text: chunk.text,
              score: hit.score,
              scores: hit.scores ?? {},
            },
          ];
        });
      },
    };
  };

  const defaultAnswer = (context: MethodContext, question: string, retrieval: Retrieval, options: AnswerOptions): Promise<MethodAnswer> => {
    const packed = packSourcesTable(retrieval.chunks, tokenizer, config.query.maxContextTokens);
    return answerFromContext(context, { question, contextText: packed.text, contextTokens: packed.tokens, passages: packed.included }, options);
  };

  /** The newest published index, with what a reader should know about runs that have not published. */
  const openSnapshot = async (): Promise<{ snapshot: IndexSnapshot; embedder: Embedder; warnings: string[]; derived: GenerationDerived }> => {
    // Two independent reads, together: a remote store pays a round trip for each.
    const [status, published] = await Promise.all([source.status(), source.snapshot()]);
    // Without a published index, methods that need none (tot over remote graphs) still run, on an empty one.
    emptyIndex ??= openSqliteStore(':memory:');
    const snapshot = published ?? { store: emptyIndex, generation: -1, publishedAt: null, release: () => undefined };
    // A query of an older generation than the newest one seen (it opened its snapshot first) derives for itself.
    if (derived.generation !== snapshot.generation || derived.store !== snapshot.store) derived = { generation: snapshot.generation, store: snapshot.store, memos: new Map() };
    const current = derived;
    if (!current.embedder) {
      const store = snapshot.store;
      const building = (options.embedderFor ? options.embedderFor(store) : Promise.resolve(embedder)).then((built) => indexMatchedEmbedder(built, store));
      current.embedder = building;
      building.catch(() => {
        if (current.embedder === building) delete current.embedder;
      });
    }
    try {
      return { snapshot, embedder: await current.embedder, warnings: statusWarnings(status, snapshot), derived: current };
    } catch (error) {
      snapshot.release();
      throw error;
    }
  };

  /** Validates the request and sets up the method, its parameters and a fresh trace, on the newest published index. */
  const prepare = async (request: Omit<QueryRequest, 'onText'>) => {
    if (request.question.trim().length === 0) {
      throw new KgragError('the question is empty', { code: 'QUERY_EMPTY', category: 'input', hint: 'pass the question as text, e.g. kgrag query "Who founded …?"' });
    }
    const started = performance.now();
    const { method, variant: requested } = resolveMethod(request.method);
    const { params, variant, ignoredTopK } = resolveParams(method, requested, request.params, request.topK);
    const { snapshot, embedder: queryEmbedder, warnings, derived: generation } = await openSnapshot();
    if (ignoredTopK !== undefined) warnings.push(ignoredTopK);
    try {
      await ensureIndexed(snapshot.store, generation, method.name, method.requires);
      const trace = createTrace();
      const historyUse = { read: false };
      const context = createContext(snapshot.store, generation, queryEmbedder, method.name, request, trace, warnings, historyUse);
      const index: AnsweredFrom = { generation: snapshot.generation, publishedAt: snapshot.publishedAt };
      return { method, params, variant, trace, context, started, snapshot, index, warnings, historyUse };
    } catch (error) {
      snapshot.release();
      throw error;
    }
  };

  return {
    methods: options.methods,

    invalidate() {
      derived = { generation: undefined, memos: new Map() };
    },

    async retrieve(request) {
      const { method, params, variant, trace, context, started, snapshot, index, warnings } = await prepare(request);
      try {
        const retrieval = await method.retrieve(context, request.question, params, variant);
        const ranking = retrieval.ranking ?? method.ranking;
        return { method: method.name, variant, retrieval: { ...withoutState(retrieval), ranking }, ranking, trace: trace.steps, latencyMs: performance.now() - started, index, warnings };
      } finally {
        snapshot.release();
      }
    },

    async query(request) {
      const { snapshot, ...prepared } = await prepare(request);
      try {
        return await answerQuery(request, prepared);
      } finally {
        snapshot.release();
      }
    },
  };

  /**
   * The question retrieval searches with: with an LLM and earlier user turns, the last question rewritten to stand
   * alone ("Who designed it?" → "Who designed the Kester Weir Bridge?"); otherwise the question as asked.
   */
  async function retrievalQuestion(request: QueryRequest, context: MethodContext): Promise<{ question: string; usage: { inputTokens: number; outputTokens: number }; calls: number }> {
    const asked = { question: request.question, usage: { inputTokens: 0, outputTokens: 0 }, calls: 0 };
    const history = request.history ?? [];
    if (llm === undefined || request.contextOnly === true || !history.some((turn) => turn.role === 'user')) return asked;
    const condensed = await context.trace.time(
      'condense-question',
      () => condenseQuestion({ model: llm, template: prompts.text(condenseQuestionPrompt), history, question: request.question, ...(request.signal === undefined ? {} : { abortSignal: request.signal }) }),
      (result) => ({ question: result.question }),
    );
    return { question: condensed.question, usage: condensed.usage, calls: condensed.called ? 1 : 0 };
  }

  async function answerQuery(request: QueryRequest, prepared: Omit<Awaited<ReturnType<typeof prepare>>, 'snapshot'>): Promise<QueryResult> {
    const { method, params, variant, trace, context, started, index, warnings, historyUse } = prepared;
    const standalone = await retrievalQuestion(request, context);
    const retrieval = await method.retrieve(context, standalone.question, params, variant);
    const contextOnly = request.contextOnly === true;
    const answerOptions: AnswerOptions = { contextOnly, ...(request.onText ? { onText: request.onText } : {}) };
    const answered = method.answer
      ? await method.answer(context, request.question, retrieval, params, answerOptions)
      : await defaultAnswer(context, request.question, retrieval, answerOptions);
    if ((request.history?.length ?? 0) > 0 && !historyUse.read && !contextOnly) {
      warnings.push(`${method.name} ${lastQuestionAlone}: ${answered.answer.kind === 'generated' ? 'its answer does not read' : 'an answer without an LLM cannot use'} the earlier turns of the conversation`);
    }
    const usage = { inputTokens: (answered.usage?.inputTokens ?? 0) + standalone.usage.inputTokens, outputTokens: (answered.usage?.outputTokens ?? 0) + standalone.usage.outputTokens };
    const { chunks, ...rest } = withoutState(retrieval);
    return {
      question: request.question,
      method: method.name,
      variant,
      answer: answered.answer,
      citations: answered.citations,
      context: { ...rest, chunks, text: answered.contextText, tokens: answered.contextTokens },
      trace: { steps: trace.steps, params, unknownReferences: answered.unknownReferences ?? 0 },
      usage: {
        llmCalls: (answered.llmCalls ?? 0) + standalone.calls,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        costUsd: costOf(usage),
        latencyMs: performance.now() - started,
      },
      index,
      warnings,
    };
  }
}

/** A retrieval as results show it: `state` is the method's own (a search tree may be cyclic), never output. */
function withoutState<State>(retrieval: Retrieval<State>): Omit<Retrieval<State>, 'state'> {
  const visible: Partial<Retrieval<State>> = { ...retrieval };
  delete visible.state;
  return visible as Omit<Retrieval<State>, 'state'>;
}

function requireStore(store: Store | undefined): Store {
  if (store === undefined) throw new Error('createQueryEngine needs `index` or `store`');
  return store;
}

/** The error of a query against a workspace that has published no index yet. */
function noIndexError(location: string, status: WorkspaceStatus, extraHint?: string): KgragError {
  const running = status.writer ? `; an index run is in progress (${describeHolder(status.writer)})` : '';
  const stopped = status.unpublished && !status.writer ? `; the first index run ${describeUnpublishedRun(status.unpublished)}` : '';
  return new KgragError(`there is no index at ${location} yet${running}${stopped}`, {
    code: 'QUERY_NO_INDEX',
    category: 'input',
    hint: status.writer
      ? 'wait for the run to finish, then ask again'
      : stopped
        ? 'run the same `kgrag index` command again: it resumes where it stopped'
        : `index documents first (\`kgrag index <paths> -w <workspace>\`), or check that --workspace points at the folder you indexed${extraHint === undefined ? '' : `, ${extraHint}`}`,
    details: { location },
  });
}

/**
 * Warnings for a query answered from `snapshot` while a run is writing, or after one stopped without publishing —
 * also when its process was killed: a deletion's documents are then still in the index that answers come from.
 */
function statusWarnings(status: WorkspaceStatus, snapshot: IndexSnapshot): string[] {
  const from = `answers come from index generation ${snapshot.generation}${snapshot.publishedAt ? ` (published ${snapshot.publishedAt})` : ''}`;
  if (status.writer) {
    return [`an index run is in progress (${describeHolder(status.writer)}); ${from} until it completes`];
  }
  const run = status.unpublished;
  if (run === undefined) return [];
  if (run.deleting.length > 0) {
    return [
      `the last index run ${describeUnpublishedRun(run)}; it was deleting ${describeDocuments(run.deleting)}, and ${from}, which still holds them: answers may cite them until \`kgrag delete\` or \`kgrag index\` is run again (the next run resumes the deletion)`,
    ];
  }
  return [`the last index run ${describeUnpublishedRun(run)}; ${from}, without that run's changes — run \`kgrag index\` again to resume it`];
}

/** Documents named in a warning; the rest are counted. */
const namedDocuments = 5;

/** `2 documents ("Harbour", id 3f2a9c01d4e5; "Sedley Mill", id 77ab0c3d9e21)`: the first few by title and id prefix. */
function describeDocuments(documents: readonly RunDocument[]): string {
  const named = documents.slice(0, namedDocuments).map((document) => `${JSON.stringify(document.title)}, id ${document.id.slice(0, 12)}`);
  const more = documents.length > namedDocuments ? `; and ${documents.length - namedDocuments} more` : '';
  return `${documents.length} document${documents.length === 1 ? '' : 's'} (${named.join('; ')}${more})`;
}
