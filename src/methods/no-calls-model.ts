import { KgragError } from '../core/errors.js';
import type { LanguageModel } from '../providers/llm/language-model.js';

/**
 * The model a method sees under `--context-only`: any call fails, so "no LLM call" is kept by construction —
 * a method must take its LLM-free path or refuse (`contextOnlyUnsupported`) before it would call.
 */
export function noCallsModel(model: LanguageModel, method: string): LanguageModel {
  const refuse = (): never => {
    throw new KgragError(`method "${method}" called the LLM under --context-only`, {
      code: 'QUERY_CONTEXT_ONLY_CALL',
      category: 'internal',
      details: { method },
    });
  };
  return {
    provider: model.provider,
    modelId: model.modelId,
    generate: async () => refuse(),
    // A stream fails on its first pull, like a call.
    async *stream() {
      refuse();
    },
  };
}
