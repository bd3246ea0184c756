import { z } from 'zod';
import { fillPrompt } from '../../core/prompt-library.js';
import { generateObject } from '../../providers/llm/generate-object.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { normalizePhrase } from '../../text/normalize-phrase.js';
import type { MethodContext } from '../query-method.js';
import { recognitionFilterPrompt } from './recognition-filter-prompt.js';

/** A fact offered to the filter: its index in the triple index and its three parts. */
export interface CandidateFact {
  fact: number;
  triple: readonly [string, string, string];
}

/** What the filter decided. */
export interface RecognizedFacts {
  /** Indices of the kept facts, in candidate order. */
  kept: number[];
  /** Why the candidates were kept unfiltered, when the reply was unusable. */
  problem?: string;
}

const filterReply = z.object({
  fact: z.array(z.array(z.coerce.string())).describe('The relevant candidate facts, copied exactly'),
});

const factKey = (parts: readonly string[]): string => normalizePhrase(parts.join(' '));

/**
 * HippoRAG 2's recognition memory: one JSON call (interactive priority, temperature 0) asks the LLM which of
 * the linked facts are relevant to the question. Replied facts are matched to the candidates after phrase
 * normalization, so casing and punctuation slips still match and invented facts are ignored. A reply still
 * invalid after the repair turn leaves the candidates unfiltered (`problem` says why) rather than failing the
 * query; other errors propagate.
 */
export async function recognizeFacts(context: MethodContext, question: string, candidates: readonly CandidateFact[]): Promise<RecognizedFacts> {
  const llm = context.llm;
  if (!llm || candidates.length === 0) return { kept: candidates.map((candidate) => candidate.fact) };
  const facts = JSON.stringify({ fact: candidates.map((candidate) => candidate.triple) });
  try {
    const { object } = await generateObject({
      model: llm,
      messages: [{ role: 'user', content: fillPrompt(context.prompts.text(recognitionFilterPrompt), { question, facts }) }],
      schema: filterReply,
      schemaName: 'recognized_facts',
      temperature: 0,
      purpose: 'ppr-recognition-filter',
      priority: 'interactive',
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
    });
    const chosen = new Set(object.fact.map(factKey));
    return { kept: candidates.filter((candidate) => chosen.has(factKey(candidate.triple))).map((candidate) => candidate.fact) };
  } catch (error) {
    if (error instanceof LlmCallError && error.code === 'LLM_INVALID_OUTPUT') return { kept: candidates.map((candidate) => candidate.fact), problem: error.message };
    throw error;
  }
}
