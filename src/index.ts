/*
 * The public API of the `kgrag` package. Everything a library user needs is exported here explicitly;
 * test doubles live in `kgrag/testing`.
 */

// Workspace facade
export { createKgrag, registeredMethods } from './api/create-kgrag.js';
export { pipelineSteps } from './pipeline/pipeline-steps.js';
export type { EstimateIndexOptions, IndexOptions, IndexStats, Kgrag, KgragOptions } from './api/create-kgrag.js';
export type { IndexDryRun } from './pipeline/estimate/dry-run-index.js';
export type { StepCostEstimate } from './pipeline/estimate-index-cost.js';

// Configuration and errors
export { configSchema } from './core/config/config-schema.js';
export type { KgragConfig, KgragConfigInput } from './core/config/config-schema.js';
export { configFileName, configKeys, environmentName, loadConfig } from './core/config/load-config.js';
export type { LoadConfigOptions, LoadedConfig } from './core/config/load-config.js';
export { renderConfigTemplate } from './core/config/config-template.js';
export { KgragError } from './core/errors.js';
export { formatErrorLine } from './core/format-error-line.js';
export { toEnvironmentError } from './core/environment-error.js';
export type { EnvironmentErrorContext } from './core/environment-error.js';
export { redactUrl } from './core/redact-url.js';
export { sanitizeForTerminal } from './core/sanitize-for-terminal.js';
export type { SanitizeForTerminalOptions } from './core/sanitize-for-terminal.js';
export type { ErrorCategory, KgragErrorOptions } from './core/errors.js';
export { contentId } from './core/ids.js';
export { createRandom } from './core/random.js';
export type { Random } from './core/random.js';
export type * from './core/types.js';

// Indexing
export { runPipeline } from './pipeline/run-pipeline.js';
export type { PipelineSummary, RunPipelineOptions } from './pipeline/run-pipeline.js';
export type { IndexInputs, InputDocument, PipelineEvent, PipelineStep, PipelineWarning, StepContext, StepName, StepOutput } from './pipeline/pipeline-step.js';

// Querying
export { createQueryEngine } from './methods/query-engine.js';
export type { QueryEngine, QueryEngineOptions, QueryRequest, QueryResult, QueryUsage, RetrievalResult } from './methods/query-engine.js';
export type { MethodContext, QueryMethod, QueryProgress, QuerySubgraph, Retrieval, TraceStep } from './methods/query-method.js';
export { basicMethod, reciprocalRankFusion } from './methods/basic/basic-method.js';
export type { Answer, Citation, CitedDataset, ContextChunk } from './answer/answer-types.js';
export { parseDataReferences } from './answer/data-references.js';

// Providers
export * from './providers/llm/index.js';
export type { CorpusFittedEmbedder, EmbedOptions, Embedder } from './providers/embed/embedder.js';
export { isCorpusFitted } from './providers/embed/embedder.js';
export { createLocalEmbedder } from './providers/embed/local-embedder.js';
export { createOpenAiCompatibleEmbedder } from './providers/embed/openai-compatible-embedder.js';
export { createEmbedder } from './providers/embed/create-embedder.js';
export { embedInBatches } from './providers/embed/embed-in-batches.js';
export type { KgCallOptions, KgEdge, KgEdgeList, KgEntity, KgRelation, KgRelationList, KnowledgeGraph } from './providers/kg/knowledge-graph.js';
export { createSparqlKnowledgeGraph } from './providers/kg/sparql-knowledge-graph.js';
export type { SparqlKnowledgeGraphOptions } from './providers/kg/sparql-knowledge-graph.js';
export { createMultiKnowledgeGraph } from './providers/kg/multi-knowledge-graph.js';
export type { MultiKnowledgeGraphOptions } from './providers/kg/multi-knowledge-graph.js';
export { createWorkspaceKnowledgeGraph } from './methods/tot/workspace-knowledge-graph.js';
export type { WorkspaceKnowledgeGraphOptions } from './methods/tot/workspace-knowledge-graph.js';

// Text
export { createTokenizer } from './text/tokenizer.js';
export type { Tokenizer, TokenizerEncoding } from './text/tokenizer.js';
export { chunkByTokens } from './text/chunk/chunk-by-tokens.js';
export { chunkBySentences } from './text/chunk/chunk-by-sentences.js';
export type { TextSlice } from './text/chunk/text-slice.js';
export { splitSentences } from './text/sentences.js';
export { normalizeText } from './text/normalize-text.js';
export { loadDocuments } from './text/load/load-documents.js';

// Storage
export type { ScoredId, SpaceScores, Store, TableAccess, VectorIndex, VectorItem, VectorLayout, VectorMatrix, VectorSpace, VectorSpaceInfo } from './store/store.js';
export type { TableName, TableRows } from './store/schema.js';
export { openSqliteStore } from './store/sqlite/sqlite-store.js';
export { createStoreLlmCache } from './store/store-llm-cache.js';
