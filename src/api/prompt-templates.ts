import { basicAnswerSystemPrompt } from '../answer/basic-answer-prompt.js';
import type { PromptTemplate } from '../core/prompt-library.js';
import { registeredMethods } from './registered-methods.js';
import { extractClaimsPrompts } from '../extract/claims/extract-claims-prompt.js';
import { resolveEntitiesPrompt } from '../extract/entity-resolution/resolve-entities-prompt.js';
import { extractGraphPrompts } from '../extract/llm-graph/extract-graph-prompt.js';
import { communityReportPrompt, communityReportRepairPrompt } from '../extract/reports/community-report-prompt.js';
import { summarizeDescriptionsPrompt } from '../extract/summaries/summarize-descriptions-prompt.js';
import { openiePrompts } from '../extract/triples/openie-prompts.js';

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
  basicAnswerSystemPrompt,
  // Each method's own prompts, once each (query NER is shared by ppr and relations).
  ...registeredMethods.flatMap((method) => method.prompts ?? []).filter((template, index, all) => all.findIndex((other) => other.name === template.name) === index),
];
