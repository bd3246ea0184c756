import type { ChatRequest, ChatStreamPart, LanguageModel } from './language-model.js';
import { LlmCallError } from './llm-call-error.js';
import { createRetryPolicy, retryWithBackoff } from './retry-policy.js';
import type { RetryOptions } from './retry-policy.js';

/**
 * Retries retryable failures (429, 408, 409, 5xx, network errors, timeouts, truncated streams,
 * malformed bodies) with exponential backoff and full jitter, honouring `retry-after`. A stream is
 * retried only while it has yielded nothing: once text reached the caller, a retry would duplicate it.
 */
export function withRetry(model: LanguageModel, options: RetryOptions = {}): LanguageModel {
  const policy = createRetryPolicy(options);

  async function* stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    for (let attempt = 1; ; attempt += 1) {
      let yielded = false;
      try {
        for await (const part of model.stream(request)) {
          yielded = true;
          yield part;
        }
        return;
      } catch (error) {
        if (yielded) throw notRetried(error);
        await policy.afterFailure(error, attempt, request.abortSignal, request.purpose);
      }
    }
  }

  return {
    provider: model.provider,
    modelId: model.modelId,
    generate: (request) => retryWithBackoff(() => model.generate(request), policy, request.abortSignal, request.purpose),
    stream,
  };
}

/** The error of a stream cut after text reached the caller: final, and its hint says it was not retried and why. */
function notRetried(error: unknown): unknown {
  if (!LlmCallError.isInstance(error) || !error.retryable) return error;
  return new LlmCallError(error.message, {
    code: error.code,
    retryable: false,
    ...(error.status === undefined ? {} : { status: error.status }),
    hint: `Part of the reply had already been shown, so it was not retried (that would repeat it): ask again${error.hint === undefined ? '' : `. ${error.hint}`}`,
    details: error.details,
    cause: error,
  });
}
