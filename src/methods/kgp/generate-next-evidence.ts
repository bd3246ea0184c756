import type { LanguageModel } from '../../providers/llm/language-model.js';
import type { MethodContext } from '../query-method.js';
import { kgpNextEvidencePrompt, renderNextEvidencePrompt } from './next-evidence-prompt.js';
import type { PassageTexts } from './passage-texts.js';

/** Generated next evidence of one reasoning path, with the call's token counts. */
export interface GeneratedEvidence {
  text: string;
  inputTokens: number;
  outputTokens: number;
  cached: boolean;
}

/**
 * Asks the traversal agent for the next evidence of a reasoning path: KGP's instruction with the question
 * and the path's passages (interactive priority, temperature 0, at most `maxTokens` out).
 */
export async function generateNextEvidence(
  context: MethodContext,
  llm: LanguageModel,
  texts: PassageTexts,
  question: string,
  path: readonly number[],
  maxTokens: number,
): Promise<GeneratedEvidence> {
  const evidence = await texts.of(path);
  const result = await llm.generate({
    purpose: 'kgp-next-evidence',
    priority: 'interactive',
    temperature: 0,
    maxOutputTokens: maxTokens,
    messages: [{ role: 'user', content: renderNextEvidencePrompt(context.prompts.text(kgpNextEvidencePrompt), question, evidence) }],
    ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
  });
  return { text: result.text.trim(), inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens, cached: result.cached === true };
}
