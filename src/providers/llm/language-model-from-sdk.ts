import { replyText, toChatResult, toSdkCallOptions } from './kgrag-call-options.js';
import type { ChatStreamPart, LanguageModel } from './language-model.js';
import type { SdkLanguageModel, SdkStreamPart } from './sdk-types.js';
import { truncatedStreamError } from './to-llm-call-error.js';

/**
 * kgrag's {@link LanguageModel} over an AI SDK v3 language model (usually one wrapped in kgrag's middleware): the
 * one adapter between the two. A request's messages become the v3 prompt, its JSON format the v3 `responseFormat`
 * (the reply text is handed back as it is: `generateObject` parses and repairs it), and its purpose, priority
 * class, cache sources and `refreshCache` travel in `providerOptions.kgrag` for the middleware. The model is
 * called through `doGenerate`/`doStream` directly: kgrag owns retries, and needs no tool loop.
 */
export function languageModelFromSdk(model: SdkLanguageModel): LanguageModel {
  async function* stream(request: Parameters<LanguageModel['stream']>[0]): AsyncGenerator<ChatStreamPart> {
    const { stream: parts } = await model.doStream(toSdkCallOptions(request));
    const reader = parts.getReader();
    let text = '';
    let modelId = model.modelId;
    let finish: Extract<SdkStreamPart, { type: 'finish' }> | undefined;
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        const part = next.value;
        if (part.type === 'text-delta' && part.delta.length > 0) {
          text += part.delta;
          yield { type: 'text-delta', text: part.delta };
        } else if (part.type === 'response-metadata' && part.modelId !== undefined) {
          modelId = part.modelId;
        } else if (part.type === 'error') {
          throw part.error;
        } else if (part.type === 'finish') {
          finish = part;
        }
      }
    } finally {
      // A reader that stopped early (or a failure) cancels the stream, which releases what the middleware holds.
      if (finish === undefined) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
    if (finish === undefined) throw truncatedStreamError(undefined, { service: 'llm', baseURL: model.provider, modelId: model.modelId });
    yield { type: 'finish', result: toChatResult({ text, usage: finish.usage, finishReason: finish.finishReason, modelId, providerMetadata: finish.providerMetadata }) };
  }

  return {
    provider: model.provider,
    modelId: model.modelId,
    generate: async (request) => {
      const result = await model.doGenerate(toSdkCallOptions(request));
      return toChatResult({
        text: replyText(result.content),
        usage: result.usage,
        finishReason: result.finishReason,
        modelId: result.response?.modelId ?? model.modelId,
        providerMetadata: result.providerMetadata,
      });
    },
    stream,
  };
}
