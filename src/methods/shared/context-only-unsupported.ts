import { KgragError } from '../../core/errors.js';

/**
 * The error of `--context-only` for a method whose context the LLM itself chooses (ratings, an agent's next
 * evidence, a tree search): showing that context without calling the model is impossible, and showing another
 * one would misrepresent the method.
 */
export function contextOnlyUnsupported(method: string, why: string, instead: string): KgragError {
  return new KgragError(`the context of ${method} cannot be shown without running it: ${why}, which takes LLM calls`, {
    code: 'QUERY_CONTEXT_ONLY_UNSUPPORTED',
    category: 'input',
    hint: `drop --context-only to run it, or ${instead}`,
    details: { method },
  });
}
