import { isAbsolute, join } from 'node:path';
import type { KgragConfig } from '../core/config/config-schema.js';
import { loadConfig } from '../core/config/load-config.js';
import type { PromptLibrary } from '../core/prompt-library.js';
import { loadWorkspacePrompts } from '../core/workspace-prompts.js';
import { parseMethodConfigs } from '../methods/method-config.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import type { StepEnvironment } from '../pipeline/pipeline-step.js';
import { embedderStateKey, embedderStateOf } from '../pipeline/steps/embed-chunks-step.js';
import { isCorpusFitted, type Embedder } from '../providers/embed/embedder.js';
import { resolveEmbedder } from '../providers/embed/resolve-embedder.js';
import type { LanguageModel } from '../providers/llm/language-model.js';
import { resolveLanguageModel } from '../providers/llm/resolve-language-model.js';
import type { LlmResponseCache } from '../providers/llm/llm-response-cache.js';
import { mergeModelPrices, priceSettings, type PriceSettings } from '../providers/llm/model-prices.js';
import { createUsageMeter, type UsageMeter } from '../providers/llm/usage-meter.js';
import { publishedStoreView } from '../store/published-store-view.js';
import { singleStoreWorkspace } from '../store/single-store-workspace.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { WorkspaceStorage } from '../store/workspace-storage.js';
import { createTokenizer, type Tokenizer } from '../text/tokenizer.js';
import type { KgragOptions } from './kgrag.js';
import { openWorkspaceStorage } from './open-workspace-storage.js';
import { promptTemplates } from './prompt-templates.js';
import { createTotMethod, totMethod } from '../methods/tot/index.js';
import { builtInMethods } from './built-in-methods.js';
import { loadMethodPlugins } from './load-method-plugins.js';
import { createMethodRegistry, type MethodRegistry } from './method-registry.js';

/**
 * What every service of an open workspace shares: its configuration, methods, providers, caches and storage. The
 * services (index, query, interop, workers) are functions of it; `createKgrag` wires them into the `Kgrag` facade.
 */
export interface WorkspaceSession {
  /** What `createKgrag` was given (local index workers are started with the same configuration sources). */
  readonly options: KgragOptions;
  readonly workspace: string;
  readonly config: KgragConfig;
  /** Whether `index.mode` was set rather than left at its default: an update otherwise keeps the index's mode. */
  readonly modeConfigured: boolean;
  /** The workspace's query methods, in the order their steps run in an index built for all of them. */
  readonly methods: readonly AnyQueryMethod[];
  /** The same methods, checked, with their configuration sections, prompts and selection by name. */
  readonly registry: MethodRegistry;
  /** Each method's section of `config.methods` parsed by its schema (defaults filled in), once, when the workspace opened. */
  readonly methodConfigs: ReadonlyMap<string, Record<string, unknown>>;
  readonly tokenizer: Tokenizer;
  readonly storage: WorkspaceStorage;
  /** The published index, read-only (or the one store a caller gave). */
  readonly store: Store;
  /** A store the caller gave (or `:memory:`), closed with the workspace. */
  readonly givenStore: Store | undefined;
  readonly meter: UsageMeter;
  readonly prices: PriceSettings;
  readonly llm: LanguageModel | undefined;
  readonly prompts: PromptLibrary;
  readonly warnings: readonly string[];
  /** What besides the configuration changes a step's output: the prompts and the chat model. */
  readonly stepEnvironment: StepEnvironment;
  /** A new embedder from the configuration (or the one the caller gave). */
  newEmbedder(): Embedder;
  /**
   * An embedder for the index in `from`. A corpus-fitted one (the local embedder) gets its own instance with
   * that index's fitted state, so that a query of one generation never embeds with another one's statistics —
   * nor with the statistics an index run is fitting right now.
   */
  embedderFor(from: Store): Promise<Embedder>;
  /** Routes the LLM cache to a draft's store while this process writes it (undefined: back to the query cache). */
  useWriteCache(cache: LlmResponseCache | undefined): void;
}

/**
 * Opens a workspace's session: resolves the configuration (defaults < kgrag.yaml < KGRAG_* < options), opens the
 * storage, and builds the providers. Nothing is indexed or called.
 */
export async function openWorkspaceSession(options: KgragOptions): Promise<WorkspaceSession> {
  const given: readonly AnyQueryMethod[] = options.methods ?? builtInMethods;
  // Graph instances reach tot through a tot of their own, which replaces the built-in one.
  const graphs = options.knowledgeGraphs;
  const tot = graphs === undefined ? undefined : createTotMethod({ knowledgeGraphs: graphs });
  const withGraphs = tot === undefined ? given : given.map((method) => (method === totMethod ? tot : method));
  let registry = createMethodRegistry(withGraphs);
  const loaded = await loadConfig({
    workspace: options.workspace ?? process.cwd(),
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
    ...(options.baseConfigFile === undefined ? {} : { baseConfigFile: options.baseConfigFile }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.config === undefined ? {} : { overrides: options.config }),
    // The plugins kgrag.yaml lists are loaded first: their sections are part of the configuration they validate.
    methods: async (plugins, workspace) => {
      if (plugins.length === 0) return registry.configSchemas;
      const loadedPlugins = await loadMethodPlugins(plugins, workspace);
      const origins = new Map(loadedPlugins.map((plugin) => [plugin.method, plugin.origin]));
      registry = createMethodRegistry([...registry.methods, ...loadedPlugins.map((plugin) => plugin.method)], { originOf: (method) => origins.get(method) });
      return registry.configSchemas;
    },
  });
  const { config, workspace } = loaded;
  const { methods } = registry;
  // Every method's section is parsed now, with the rest of the configuration, not at its first query or index run.
  const methodConfigs = parseMethodConfigs(config.methods, methods);
  registry.select(config.pipeline.methods, 'pipeline.methods');
  const tokenizer = await createTokenizer(config.tokenizer.encoding);
  // `store.path: ':memory:'` (tests, one-off runs) is one in-memory store that queries read as it is written.
  const extensions = { tables: registry.tables };
  const givenStore = options.store ?? (config.store.path === ':memory:' ? openSqliteStore(':memory:', extensions) : undefined);
  const storage = givenStore ? singleStoreWorkspace(givenStore) : await openWorkspaceStorage(config, workspace, options.stores, extensions);
  const prices = priceSettings(config);
  const meter = createUsageMeter({
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
  const newEmbedder = (): Embedder => resolveEmbedder(options.embedder, config, options.fetch, embedderDependencies);
  const workspacePrompts = loadWorkspacePrompts(isAbsolute(config.prompts.directory) ? config.prompts.directory : join(workspace, config.prompts.directory), promptTemplates(registry));
  const prompts: PromptLibrary = { text: (template) => workspacePrompts.text(template) };
  return {
    options,
    workspace,
    config,
    modeConfigured: loaded.isSet(['index', 'mode']),
    methods,
    registry,
    methodConfigs,
    tokenizer,
    storage,
    store: givenStore ?? publishedStoreView(storage),
    givenStore,
    meter,
    prices,
    llm,
    prompts,
    warnings: workspacePrompts.warning === undefined ? [] : [workspacePrompts.warning],
    stepEnvironment: { prompts, llmModel: llm ? `${llm.provider}:${llm.modelId}` : undefined },
    newEmbedder,
    async embedderFor(from) {
      const embedder = newEmbedder();
      if (isCorpusFitted(embedder)) {
        const state = await from.getBlob(embedderStateKey);
        if (state) embedder.importState(embedderStateOf(state));
      }
      return embedder;
    },
    useWriteCache(cache) {
      writeCache = cache;
    },
  };
}
