import type { KgragConfig } from '../core/config/config-schema.js';
import { KgragError } from '../core/errors.js';
import type { PipelineStep, StepName } from './pipeline-step.js';
import { chunkStep } from './steps/chunk-step.js';
import { claimsStep } from './steps/claims-step.js';
import { createCommunitiesStep } from './steps/communities-step.js';
import { embedChunksStep } from './steps/embed-chunks-step.js';
import { embedTriplesStep } from './steps/embed-triples-step.js';
import { createEmbedEntitiesStep, embedReportsStep } from './steps/embed-graph-steps.js';
import { llmExtractStep } from './steps/llm-extract-step.js';
import { loadStep } from './steps/load-step.js';
import { nlpExtractStep } from './steps/nlp-extract-step.js';
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
