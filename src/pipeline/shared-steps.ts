import type { KgragConfig } from '../core/config/config-schema.js';
import { KgragError } from '../core/errors.js';
import type { ArtifactProvider } from './compose-pipeline.js';
import type { PipelineStep, StepName } from './pipeline-step.js';
import { chunkStep } from './steps/chunk-step.js';
import { chunkKnnProvider } from './steps/chunk-knn-step.js';
import { claimsStep } from './steps/claims-step.js';
import { createCommunitiesStep } from './steps/communities-step.js';
import { embedChunksStep } from './steps/embed-chunks-step.js';
import { entityEditsStep } from './steps/entity-edits-step.js';
import { embedTriplesStep } from './steps/embed-triples-step.js';
import { createEmbedEntitiesStep, embedReportsStep } from './steps/embed-graph-steps.js';
import { llmExtractStep } from './steps/llm-extract-step.js';
import { loadStep } from './steps/load-step.js';
import { nlpExtractStep } from './steps/nlp-extract-step.js';
import { statisticsStep } from './steps/statistics-step.js';
import { createReportsStep } from './steps/reports-step.js';
import { resolveEntitiesStep } from './steps/resolve-entities-step.js';
import { summarizeStep } from './steps/summarize-step.js';
import { createTriplesStep } from './steps/triples-step.js';

/** The step whose output is the finished entity graph of a mode: what steps reading the graph read. */
export function graphStepOf(mode: 'fast' | 'standard'): StepName {
  return mode === 'fast' ? 'nlp-extract' : 'summarize';
}

/**
 * The steps several methods share, in order, for one indexing mode: loading and chunking, chunk vectors, the
 * entity graph with its communities, reports and vectors (`fast`: GraphRAG's NLP noun-phrase graph with
 * extractive reports; `standard`: LLM extraction, entity resolution, description summaries, optional claims
 * and LLM reports), and the OpenIE triples with their phrase and fact vectors. An index runs only those its
 * methods read (`composePipeline`); the methods add their own steps after them.
 */
export function sharedSteps(mode: 'fast' | 'standard', config: KgragConfig, hasLlm: boolean): PipelineStep[] {
  if (mode === 'fast') {
    return [
      loadStep,
      chunkStep,
      statisticsStep,
      entityEditsStep,
      embedChunksStep,
      nlpExtractStep,
      createCommunitiesStep('nlp-extract'),
      createReportsStep({ graphStep: 'nlp-extract', llm: false, claims: false }),
      createEmbedEntitiesStep('nlp-extract'),
      embedReportsStep,
      createTriplesStep('fast'),
      embedTriplesStep,
    ];
  }
  if (!hasLlm) {
    throw new KgragError('standard mode needs an LLM, and none is configured', {
      code: 'INDEX_MODE_NEEDS_LLM',
      category: 'config',
      hint: 'set KGRAG_LLM_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) or OPENAI_API_KEY, or index with --mode fast',
    });
  }
  const claims = config.extract.claims.enabled;
  return [
    loadStep,
    chunkStep,
    statisticsStep,
    entityEditsStep,
    embedChunksStep,
    llmExtractStep,
    resolveEntitiesStep,
    summarizeStep,
    ...(claims ? [claimsStep] : []),
    createCommunitiesStep('summarize'),
    createReportsStep({ graphStep: 'summarize', llm: true, claims }),
    createEmbedEntitiesStep('summarize'),
    embedReportsStep,
    createTriplesStep('standard'),
    embedTriplesStep,
  ];
}

/**
 * The shared artifacts steps may consume with parameters (`PipelineStep.consumes`), built once per index at the
 * largest parameters requested: the chunk kNN graph (`chunk-knn`, with `index.knn` of the configuration).
 */
export function sharedArtifacts(config: KgragConfig): ArtifactProvider[] {
  return [chunkKnnProvider(config.index.knn)];
}

/**
 * The shared steps of an index whose graph was imported (`kgrag import graphrag`): the imported steps in place of
 * loading, chunking and the LLM graph (and of communities, reports and claims when the import has them), then the
 * steps kgrag adds — chunk, entity and report vectors, the OpenIE triples and their vectors — LLM-free unless an
 * LLM is configured. Communities and reports an import lacks are built as in an index run (extractive reports
 * without an LLM).
 */
export function sharedStepsOfImport(imported: ReadonlyMap<StepName, PipelineStep>, hasLlm: boolean): PipelineStep[] {
  const supplied = (name: StepName): PipelineStep => {
    const step = imported.get(name);
    if (!step) throw new KgragError(`an import must supply the step "${name}"`, { code: 'PIPELINE_UNKNOWN_STEP', category: 'internal', details: { step: name } });
    return step;
  };
  const claims = imported.get('claims');
  return [
    supplied('load'),
    supplied('chunk'),
    statisticsStep,
    embedChunksStep,
    supplied('llm-extract'),
    supplied('resolve-entities'),
    supplied('summarize'),
    ...(claims ? [claims] : []),
    imported.get('communities') ?? createCommunitiesStep('summarize'),
    imported.get('reports') ?? createReportsStep({ graphStep: 'summarize', llm: hasLlm, claims: claims !== undefined }),
    createEmbedEntitiesStep('summarize'),
    embedReportsStep,
    createTriplesStep(hasLlm ? 'standard' : 'fast'),
    embedTriplesStep,
  ];
}
