import { basicAnswerSystemPrompt } from '../answer/basic-answer-prompt.js';
import { autokgAnswerPrompt } from '../methods/autokg/autokg-answer-prompt.js';
import type { PromptTemplate } from '../core/prompt-library.js';
import { driftPrompts } from '../methods/drift/drift-prompts.js';
import { globalMapSystemPrompt } from '../methods/global/global-map-prompt.js';
import { globalRateSystemPrompt } from '../methods/global/global-rate-prompt.js';
import { globalKnowledgePrompt, globalReduceSystemPrompt } from '../methods/global/global-reduce-prompt.js';
import { localAnswerSystemPrompt } from '../methods/local/local-answer-prompt.js';
import { kgpNextEvidencePrompt } from '../methods/kgp/next-evidence-prompt.js';
import { recognitionFilterPrompt } from '../methods/ppr/recognition-filter-prompt.js';
import { queryEntitiesPrompt } from '../methods/query-entities.js';
import { relationsRerankPrompt } from '../methods/relations/relations-rerank-prompt.js';
import { totPromptTemplates } from '../methods/tot/tot-prompts.js';
import { extractClaimsPrompts } from '../extract/claims/extract-claims-prompt.js';
import { resolveEntitiesPrompt } from '../extract/entity-resolution/resolve-entities-prompt.js';
import { extractGraphPrompts } from '../extract/llm-graph/extract-graph-prompt.js';
import { communityReportPrompt, communityReportRepairPrompt } from '../extract/reports/community-report-prompt.js';
import { summarizeDescriptionsPrompt } from '../extract/summaries/summarize-descriptions-prompt.js';
import { openiePrompts } from '../extract/triples/openie-prompts.js';
import { autoKgKeywordTemplates } from '../extract/keywords/keyword-prompts.js';

/** Every prompt a workspace can override, in the order `kgrag init` writes them. */
export const promptTemplates: readonly PromptTemplate[] = [
  extractGraphPrompts.json.extract,
  extractGraphPrompts.json.continue,
  extractGraphPrompts.tuples.extract,
  extractGraphPrompts.tuples.continue,
  extractGraphPrompts.loop,
  extractClaimsPrompts.json.extract,
  extractClaimsPrompts.json.continue,
  extractClaimsPrompts.tuples.extract,
  extractClaimsPrompts.tuples.continue,
  extractClaimsPrompts.loop,
  resolveEntitiesPrompt,
  summarizeDescriptionsPrompt,
  communityReportPrompt,
  communityReportRepairPrompt,
  openiePrompts.ner,
  openiePrompts.triples,
  ...autoKgKeywordTemplates,
  basicAnswerSystemPrompt,
  localAnswerSystemPrompt,
  driftPrompts.hyde,
  driftPrompts.primer,
  driftPrompts.local,
  driftPrompts.reduce,
  globalMapSystemPrompt,
  globalReduceSystemPrompt,
  globalKnowledgePrompt,
  globalRateSystemPrompt,
  queryEntitiesPrompt,
  recognitionFilterPrompt,
  relationsRerankPrompt,
  kgpNextEvidencePrompt,
  autokgAnswerPrompt,
  ...totPromptTemplates,
];
