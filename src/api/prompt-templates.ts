import { basicAnswerSystemPrompt } from '../answer/basic-answer-prompt.js';
import { condenseQuestionPrompt } from '../answer/condense-question.js';
import type { PromptTemplate } from '../core/prompt-library.js';
import { extractClaimsPrompts } from '../extract/claims/extract-claims-prompt.js';
import { resolveEntitiesPrompt } from '../extract/entity-resolution/resolve-entities-prompt.js';
import { extractGraphPrompts } from '../extract/llm-graph/extract-graph-prompt.js';
import { communityReportPrompt, communityReportRepairPrompt } from '../extract/reports/community-report-prompt.js';
import { summarizeDescriptionsPrompt } from '../extract/summaries/summarize-descriptions-prompt.js';
import { openiePrompts } from '../extract/triples/openie-prompts.js';
import type { MethodRegistry } from './method-registry.js';

/** The prompts of the shared steps and the shared answerer, in the order `kgrag init` writes them. */
const sharedPromptTemplates: readonly PromptTemplate[] = [
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
  basicAnswerSystemPrompt,
  condenseQuestionPrompt,
];

/** Every prompt a workspace with these methods can override, in the order `kgrag init` writes them. */
export function promptTemplates(registry: MethodRegistry): PromptTemplate[] {
  const shared = new Set(sharedPromptTemplates.map((template) => template.name));
  return [...sharedPromptTemplates, ...registry.prompts.filter((template) => !shared.has(template.name))];
}
