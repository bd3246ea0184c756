import type { ChatRequest, ChatStreamPart, LanguageModel } from './language-model.js';
import { isAbortError } from './is-abort-error.js';
import type { UsageMeter } from './usage-meter.js';

/** Options of {@link withUsageMeter}. */
export interface UsageMeterWrapperOptions {
  meter: UsageMeter;
}

/**
 * Reports every finished call to `meter` (cache hits as such, so they are not paid), and every
 * failure except the caller's own aborts. Place it outermost, so each call is counted once
 * however many retries it took.
 */
export function withUsageMeter(model: LanguageModel, options: UsageMeterWrapperOptions): LanguageModel {
  const { meter } = options;
  const purposeOf = (request: ChatRequest) => (request.purpose === undefined ? {} : { purpose: request.purpose });
  const failed = (request: ChatRequest, error: unknown): void => {
    if (!isAbortError(error) && !request.abortSignal?.aborted) meter.recordFailure({ modelId: model.modelId, ...purposeOf(request) });
  };

  async function* stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    try {
      for await (const part of model.stream(request)) {
        if (part.type === 'finish') {
          meter.record({ modelId: model.modelId, ...purposeOf(request), usage: part.result.usage, cached: part.result.cached === true });
        }
        yield part;
      }
    } catch (error) {
      failed(request, error);
      throw error;
    }
  }

  return {
    provider: model.provider,
    modelId: model.modelId,
    generate: async (request) => {
      try {
        const result = await model.generate(request);
        meter.record({ modelId: model.modelId, ...purposeOf(request), usage: result.usage, cached: result.cached === true });
        return result;
      } catch (error) {
        failed(request, error);
        throw error;
      }
    },
    stream,
  };
}
