import { KgragError } from '../../core/errors.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import type { MethodContext } from '../query-method.js';

/**
 * The configured chat model of a method that cannot work without one, else the one error every such method
 * gives: what needs the model (`the drift method … to answer`), how to configure one, and `alternatives`.
 */
export function requireLlm(context: Pick<MethodContext, 'llm'>, needs: string, alternatives: string): LanguageModel {
  if (context.llm) return context.llm;
  throw new KgragError(`${needs}, and none is configured`, {
    code: 'QUERY_NEEDS_LLM',
    category: 'config',
    hint: `set KGRAG_LLM_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) or OPENAI_API_KEY, or ${alternatives}`,
  });
}
