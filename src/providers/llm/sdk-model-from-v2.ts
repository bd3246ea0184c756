import type { SdkFinishReason, SdkLanguageModel, SdkLanguageModelV2, SdkStreamPart, SdkUsage } from './sdk-types.js';

type V2GenerateResult = Awaited<ReturnType<SdkLanguageModelV2['doGenerate']>>;
type V2Usage = V2GenerateResult['usage'];

/**
 * A v3 view of an AI SDK 5 language model (specification v2): the two differ only in how a reply's finish reason
 * and token usage are shaped (and the SDK itself converts the same way when `generateText` is given a v2 model), so
 * kgrag's middleware can wrap it like any v3 model.
 */
export function sdkModelFromV2(model: SdkLanguageModelV2): SdkLanguageModel {
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: async (options) => {
      const result = await model.doGenerate(options as Parameters<SdkLanguageModelV2['doGenerate']>[0]);
      return { ...result, finishReason: finishReasonOf(result.finishReason), usage: usageOf(result.usage) } as Awaited<ReturnType<SdkLanguageModel['doGenerate']>>;
    },
    doStream: async (options) => {
      const result = await model.doStream(options as Parameters<SdkLanguageModelV2['doStream']>[0]);
      const stream = (result.stream as ReadableStream<{ type: string }>).pipeThrough(
        new TransformStream<{ type: string }, SdkStreamPart>({
          transform(part, controller) {
            if (part.type !== 'finish') {
              controller.enqueue(part as SdkStreamPart);
              return;
            }
            const finish = part as { type: 'finish'; finishReason: V2GenerateResult['finishReason']; usage: V2Usage; providerMetadata?: Extract<SdkStreamPart, { type: 'finish' }>['providerMetadata'] };
            controller.enqueue({ ...finish, finishReason: finishReasonOf(finish.finishReason), usage: usageOf(finish.usage) });
          },
        }),
      );
      return { ...result, stream };
    },
  };
}

function finishReasonOf(reason: V2GenerateResult['finishReason']): SdkFinishReason {
  return { unified: reason === 'unknown' ? 'other' : reason, raw: undefined };
}

function usageOf(usage: V2Usage): SdkUsage {
  return {
    inputTokens: { total: usage.inputTokens, noCache: undefined, cacheRead: usage.cachedInputTokens, cacheWrite: undefined },
    outputTokens: { total: usage.outputTokens, text: undefined, reasoning: usage.reasoningTokens },
  };
}
