import type { LanguageModel } from './language-model.js';

/** A model that counts the requests sent through it. */
export interface CountedLanguageModel {
  model: LanguageModel;
  /** Requests sent so far (answered from a cache or not), streams included. */
  calls(): number;
}

/**
 * Counts the requests of one piece of work whose calls run one after another (a conversation, a repair turn
 * after its reply), so that a step can report its longest chain of dependent calls whatever the retry and
 * repair logic underneath made of it.
 */
export function withCallCount(model: LanguageModel): CountedLanguageModel {
  let calls = 0;
  return {
    model: {
      provider: model.provider,
      modelId: model.modelId,
      generate: (request) => {
        calls++;
        return model.generate(request);
      },
      stream: (request) => {
        calls++;
        return model.stream(request);
      },
    },
    calls: () => calls,
  };
}
