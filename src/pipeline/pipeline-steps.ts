import type { KgragConfig } from '../core/config/config-schema.js';
import { KgragError } from '../core/errors.js';
import type { PipelineStep } from './pipeline-step.js';
import { chunkStep } from './steps/chunk-step.js';
import { claimsStep } from './steps/claims-step.js';
import { createCommunitiesStep } from './steps/communities-step.js';
import { embedChunksStep, embedderStateKey, embedderStateOf } from './steps/embed-chunks-step.js';
import { embedTriplesStep } from './steps/embed-triples-step.js';
import { createKeywordsStep } from './steps/keywords-step.js';
import { knnGraphStep } from './steps/knn-graph-step.js';
import { createEmbedEntitiesStep, createEmbedRelationsStep, embedReportsStep } from './steps/embed-graph-steps.js';
import { llmExtractStep } from './steps/llm-extract-step.js';
import { loadStep } from './steps/load-step.js';
import { nlpExtractStep } from './steps/nlp-extract-step.js';
import { createPassageGraphStep } from './steps/passage-graph-step.js';
import { pprGraphStep } from './steps/ppr-graph-step.js';
import { createReportsStep } from './steps/reports-step.js';
import { resolveEntitiesStep } from './steps/resolve-entities-step.js';
import { summarizeStep } from './steps/summarize-step.js';
import { createTriplesStep, saveOpenieImport } from './steps/triples-step.js';

/**
 * The steps of each indexing mode, in order: `fast` builds GraphRAG's NLP noun-phrase graph with
 * extractive reports; `standard` extracts with the LLM, resolves entities, summarizes descriptions,
 * optionally extracts claims, and writes LLM reports.
 */
export function pipelineSteps(mode: 'fast' | 'standard', config: KgragConfig, hasLlm: boolean): PipelineStep[] {
  if (mode === 'fast') {
    return [
      loadStep,
      chunkStep,
      embedChunksStep,
      nlpExtractStep,
      createCommunitiesStep('nlp-extract'),
      createReportsStep({ graphStep: 'nlp-extract', llm: false, claims: false }),
      createEmbedEntitiesStep('nlp-extract'),
      // No relation vectors in fast mode: co-occurrence edges have no description, so their sentence would be the
      // two entity names, and no method searches them (`relations` searches facts). It saved 10 s of the 2Wiki index.
      embedReportsStep,
      createTriplesStep('fast'),
      embedTriplesStep,
      pprGraphStep,
      createPassageGraphStep('nlp-extract'),
      knnGraphStep,
      createKeywordsStep('fast'),
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
    createEmbedRelationsStep('summarize'),
    embedReportsStep,
    createTriplesStep('standard'),
    embedTriplesStep,
    pprGraphStep,
    createPassageGraphStep('summarize'),
    knnGraphStep,
    createKeywordsStep('standard'),
  ];
}

