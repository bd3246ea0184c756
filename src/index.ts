/*
 * The public API of the `kgrag` package, listed name by name: the workspace facade, configuration and errors,
 * every query method as a plugin, the provider interfaces with the adapters a user configures, and the store
 * interface. Internals (wrappers, parsers, algorithms) are not exported; test doubles live in `kgrag/testing`.
 */

// Workspace facade
export { createKgrag } from './api/create-kgrag.js';
export type { CancellableWriteOptions, EntityEditSummary, EstimateIndexOptions, ImportOpenieOptions, IndexOptions, IndexStats, Kgrag, StatisticsDrift, KgragOptions, OpenieImportSummary, WriterLockOptions } from './api/create-kgrag.js';
export type { EntityEdit, EntityEditRequest } from './extract/entity-edits/entity-edit-rules.js';
export type { GraphragImportSummary, ImportGraphragOptions } from './api/import-graphrag.js';
export { exportFormats } from './api/export-index.js';
export { builtInExporters } from './api/index-exporter.js';
export type { ExportedFile, IndexExporter } from './api/index-exporter.js';
export { builtInStores, builtInStoresSharingPools } from './api/built-in-stores.js';
export type { WorkspaceStorageOpener } from './api/built-in-stores.js';
export type { ExportFormat, ExportOptions, ExportSummary } from './api/export-index.js';
export type { TableAccounting } from './interop/graphrag/graphrag-to-records.js';
export type { ExternalIdRecord, ExternalRecordKind } from './core/types.js';
export { createGraphBrowser } from './api/create-graph-browser.js';
export { graphBrowserLimits, maxSearchQueryLength } from './api/graph-browser.js';
export type {
  ChunkView,
  CommunityDetail,
  CommunityView,
  EntityCommunity,
  EntityDetail,
  EntityMatch,
  EntitySummary,
  GraphBrowser,
  GraphEdge,
  GraphNode,
  GraphSlice,
  OptionRange,
  SourcePassage,
} from './api/graph-browser.js';
export { indexPipeline } from './api/index-pipeline.js';
export type { IndexPipelineOptions } from './api/index-pipeline.js';
export { builtInMethods } from './api/built-in-methods.js';
/** @deprecated the built-in methods, as {@link builtInMethods}; a workspace's own methods are `kgrag.engine.methods`. */
export { builtInMethods as registeredMethods } from './api/built-in-methods.js';
export { createMethodRegistry } from './api/method-registry.js';
export type { MethodRegistry } from './api/method-registry.js';
export type { IndexDryRun } from './pipeline/estimate/dry-run-index.js';
export type { StepCostEstimate } from './pipeline/estimate-index-cost.js';
export type { PipelineSummary } from './pipeline/run-pipeline.js';
export { sharedStepNames } from './pipeline/pipeline-step.js';
export type { IndexInputs, InputDocument, PipelineEvent, PipelineStep, PipelineWarning, StepContext, StepName, StepOutput } from './pipeline/pipeline-step.js';

// Configuration and errors
export { configSchema } from './core/config/config-schema.js';
/** The zod kgrag validates with: a method plugin makes its configuration schema with it (`z.object({ ... })`). */
export { z } from 'zod';
export type { KgragConfig, KgragConfigInput } from './core/config/config-schema.js';
export { configFileName, configKeys, environmentName, loadConfig } from './core/config/load-config.js';
export type { LoadConfigOptions, LoadedConfig } from './core/config/load-config.js';
export { formatErrorLine } from './core/format-error-line.js';
export { KgragError } from './core/errors.js';
export type { ErrorCategory, KgragErrorOptions } from './core/errors.js';
export type * from './core/types.js';

// Query methods (each a plugin: index steps, configuration schema, retrieval and answer) and the engine
export { autokgMethod, autokgConfig } from './methods/autokg/index.js';
export type { AutokgConfig } from './methods/autokg/index.js';
export { basicMethod, basicConfig, reciprocalRankFusion } from './methods/basic/index.js';
export type { BasicConfig } from './methods/basic/index.js';
export { driftMethod, driftConfig } from './methods/drift/index.js';
export type { DriftConfig } from './methods/drift/index.js';
export { globalMethod, globalConfig } from './methods/global/index.js';
export type { GlobalConfig } from './methods/global/index.js';
export { kgpMethod, kgpConfig } from './methods/kgp/index.js';
export type { KgpConfig } from './methods/kgp/index.js';
export { localMethod, localConfig } from './methods/local/index.js';
export type { LocalConfig } from './methods/local/index.js';
export { pprMethod, pprConfig } from './methods/ppr/index.js';
export type { PprConfig } from './methods/ppr/index.js';
export { relationsMethod, relationsConfig } from './methods/relations/index.js';
export type { RelationsConfig } from './methods/relations/index.js';
export { createTotMethod, createWorkspaceKnowledgeGraph, totMethod, totConfig } from './methods/tot/index.js';
export type { KnowledgeGraphConfig, TotConfig, TotMethodOptions, WorkspaceKnowledgeGraphOptions } from './methods/tot/index.js';
export { createQueryEngine } from './methods/query-engine.js';
export type { AnsweredFrom, IndexSource, QueryEngine, QueryEngineOptions, QueryRequest, QueryResult, QueryUsage, RetrievalResult } from './methods/query-engine.js';
export { methodSpecificationVersion } from './methods/query-method.js';
export type { AnyQueryMethod, MethodBuild, MethodContext, QueryMethod, QueryProgress, QuerySubgraph, RankingInfo, Retrieval, TraceStep } from './methods/query-method.js';
export type { Answer, Citation, CitedDataset, ContextChunk } from './answer/answer-types.js';

// Providers: the interfaces, and the adapters a configuration builds
export type { ChatMessage, ChatRequest, ChatResult, ChatStreamPart, FinishReason, JsonResponseFormat, LanguageModel } from './providers/llm/language-model.js';
export { LlmCallError } from './providers/llm/llm-call-error.js';
export type { LlmCallErrorCode } from './providers/llm/llm-call-error.js';
export { createLanguageModel } from './providers/llm/create-language-model.js';
export type { LanguageModelDependencies } from './providers/llm/create-language-model.js';
export type { CachedChat, LlmResponseCache } from './providers/llm/llm-response-cache.js';
export type { UsageSnapshot } from './providers/llm/usage-meter.js';
export type { LanguageModelInput } from './providers/llm/resolve-language-model.js';
export type { KgragCallOptions } from './providers/llm/kgrag-call-options.js';
export { cacheMiddleware } from './providers/llm/cache-middleware.js';
export { concurrencyMiddleware } from './providers/llm/concurrency-middleware.js';
export { rateLimitMiddleware } from './providers/llm/rate-limit-middleware.js';
export { retryMiddleware } from './providers/llm/retry-middleware.js';
export { timeoutMiddleware } from './providers/llm/timeout-middleware.js';
export { usageMeterMiddleware } from './providers/llm/usage-meter-middleware.js';
export type { EmbedderInput } from './providers/embed/resolve-embedder.js';
export type { CorpusFittedEmbedder, EmbedOptions, Embedder } from './providers/embed/embedder.js';
export { createEmbedder } from './providers/embed/create-embedder.js';
export { createLocalEmbedder } from './providers/embed/local-embedder.js';
export type { KgCallOptions, KgEdge, KgEdgeList, KgEntity, KgRelation, KgRelationList, KnowledgeGraph } from './methods/tot/index.js';
export { createSparqlKnowledgeGraph } from './methods/tot/index.js';
export type { SparqlKnowledgeGraphOptions } from './methods/tot/index.js';
export { createMultiKnowledgeGraph } from './methods/tot/index.js';
export type { MultiKnowledgeGraphOptions } from './methods/tot/index.js';

// Text
export { createTokenizer } from './text/tokenizer.js';
export type { Tokenizer, TokenizerEncoding } from './text/tokenizer.js';

// Storage
export type { ScoredId, Store, TableAccess, VectorIndex, VectorItem, SparseVectorMatrix, VectorMatrix, VectorSpace } from './store/store.js';
export type { TableName, TableRows } from './store/schema.js';
export type { IndexSnapshot, WorkspaceStatus, WorkspaceStorage, WriterHolder, WriteSession } from './store/workspace-storage.js';
export { openSqliteStore } from './store/sqlite/sqlite-store.js';
