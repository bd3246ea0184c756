import { fromSdkUsage, kgragCallOptions, kgragReplyMetadata } from './kgrag-call-options.js';
import { isAbortError } from './is-abort-error.js';
import { observeStream } from './observe-stream.js';
import type { SdkCallOptions, SdkLanguageModelMiddleware, SdkUsage } from './sdk-types.js';
import type { UsageMeter } from './usage-meter.js';

/** Options of {@link usageMeterMiddleware}. */
export interface UsageMeterMiddlewareOptions {
  meter: UsageMeter;
}

/**
 * Reports every finished call to `meter` by model and purpose (`providerOptions.kgrag.purpose`), cache hits as
 * such so they are not paid, and every failure except the caller's own aborts. Place it above the cache and the
 * retry, so each call is counted once however many attempts it took.
 */
export function usageMeterMiddleware(options: UsageMeterMiddlewareOptions): SdkLanguageModelMiddleware {
  const { meter } = options;
  const record = (modelId: string, params: SdkCallOptions, usage: SdkUsage, providerMetadata: Record<string, Record<string, unknown>> | undefined): void => {
    const { purpose } = kgragCallOptions(params);
    const metadata = kgragReplyMetadata(providerMetadata);
    meter.record({
      modelId,
      ...(purpose === undefined ? {} : { purpose }),
      usage: { ...(fromSdkUsage(usage) ?? { inputTokens: 0, outputTokens: 0 }), ...(metadata.usageEstimated ? { estimated: true } : {}) },
      cached: metadata.cached === true,
    });
  };
  const failed = (modelId: string, params: SdkCallOptions, error: unknown): void => {
    if (isAbortError(error) || params.abortSignal?.aborted) return;
    const { purpose } = kgragCallOptions(params);
    meter.recordFailure({ modelId, ...(purpose === undefined ? {} : { purpose }) });
  };

  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      try {
        const result = await doGenerate();
        record(model.modelId, params, result.usage, result.providerMetadata);
        return result;
      } catch (error) {
        failed(model.modelId, params, error);
        throw error;
      }
    },
    wrapStream: async ({ doStream, params, model }) => {
      let result;
      try {
        result = await doStream();
      } catch (error) {
        failed(model.modelId, params, error);
        throw error;
      }
      return {
        ...result,
        stream: observeStream(result.stream, {
          part: (part) => {
            if (part.type === 'finish') record(model.modelId, params, part.usage, part.providerMetadata);
          },
          end: ({ error }) => {
            if (error !== undefined) failed(model.modelId, params, error);
          },
        }),
      };
    },
  };
}
