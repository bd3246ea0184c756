import type { ChatStreamPart, LanguageModel } from './language-model.js';

/**
 * A model whose implementation is loaded on its first call: the HTTP adapter pulls in the AI SDK (about a third
 * of a second to import), which a process that never calls the model — a query answered extractively, an
 * index in fast mode — should not pay for.
 */
export function lazyLanguageModel(provider: string, modelId: string, load: () => Promise<LanguageModel>): LanguageModel {
  let loaded: Promise<LanguageModel> | undefined;
  const model = (): Promise<LanguageModel> => {
    loaded ??= load();
    return loaded;
  };
  return {
    provider,
    modelId,
    generate: async (request) => (await model()).generate(request),
    async *stream(request): AsyncGenerator<ChatStreamPart> {
      yield* (await model()).stream(request);
    },
  };
}
