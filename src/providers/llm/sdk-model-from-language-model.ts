import { toChatRequest, toSdkFinishPart, toSdkGenerateResult } from './kgrag-call-options.js';
import type { LanguageModel } from './language-model.js';
import type { SdkLanguageModel, SdkStreamPart } from './sdk-types.js';

/**
 * An AI SDK v3 language model over kgrag's {@link LanguageModel} (the scripted fake, a model of a library user):
 * the inverse of `languageModelFromSdk`, so that kgrag's middleware applies to such a model too. The request it
 * is asked is the one the call stands for (`toChatRequest`), kgrag's fields included.
 */
export function sdkModelFromLanguageModel(model: LanguageModel): SdkLanguageModel {
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: {},
    doGenerate: async (params) => toSdkGenerateResult(await model.generate(toChatRequest(params))),
    doStream: async (params) => {
      const iterator = model.stream(toChatRequest(params))[Symbol.asyncIterator]();
      let started = false;
      const stream = new ReadableStream<SdkStreamPart>(
        {
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
          },
          async pull(controller) {
            const next = await iterator.next();
            if (next.done) {
              controller.close();
              return;
            }
            const part = next.value;
            if (part.type === 'text-delta') {
              if (!started) controller.enqueue({ type: 'text-start', id: 'text' });
              started = true;
              controller.enqueue({ type: 'text-delta', id: 'text', delta: part.text });
              return;
            }
            const { result } = part;
            if (started) controller.enqueue({ type: 'text-end', id: 'text' });
            controller.enqueue({ type: 'response-metadata', modelId: result.modelId });
            controller.enqueue(toSdkFinishPart(result));
          },
          async cancel() {
            await iterator.return?.();
          },
        },
        { highWaterMark: 0 },
      );
      return { stream };
    },
  };
}
