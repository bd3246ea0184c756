import { fromSdkUsage, kgragCallOptions, toChatRequest } from './kgrag-call-options.js';
import { observeStream } from './observe-stream.js';
import type { SdkCallOptions, SdkLanguageModelMiddleware, SdkUsage } from './sdk-types.js';
import type { TokenBucketRateLimiter } from './token-bucket-rate-limiter.js';
import { countPromptTokens, estimateTokenCount } from './token-estimate.js';
import type { CountTokens } from './token-estimate.js';

/** Options of {@link rateLimitMiddleware}. */
export interface RateLimitOptions {
  /** May be shared by several models that draw on the same account limits. */
  limiter: TokenBucketRateLimiter;
  /** @default about four characters per token */
  countTokens?: CountTokens;
  /** Reply tokens assumed for requests without `maxOutputTokens`. @default 1000 */
  defaultOutputTokens?: number;
}

/**
 * Waits for request and token budget before each call, interactive calls first (`providerOptions.kgrag.priority`).
 * The token cost is estimated as prompt tokens + `maxOutputTokens` (as the OpenAI limiter counts) and corrected
 * with the real usage after the call, so generous estimates do not waste budget.
 */
export function rateLimitMiddleware(options: RateLimitOptions): SdkLanguageModelMiddleware {
  const { limiter } = options;
  const countTokens = options.countTokens ?? estimateTokenCount;
  const defaultOutputTokens = options.defaultOutputTokens ?? 1000;

  const acquire = async (params: SdkCallOptions): Promise<number> => {
    const estimate = countPromptTokens(toChatRequest(params).messages, countTokens) + (params.maxOutputTokens ?? defaultOutputTokens);
    const { priority } = kgragCallOptions(params);
    await limiter.acquire(
      { requests: 1, tokens: estimate },
      { ...(priority === undefined ? {} : { priority }), ...(params.abortSignal === undefined ? {} : { signal: params.abortSignal }) },
    );
    return estimate;
  };
  const reconcile = (estimate: number, usage: SdkUsage): void => {
    const counts = fromSdkUsage(usage);
    if (counts !== undefined) limiter.reconcile(estimate, counts.inputTokens + counts.outputTokens);
  };

  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params }) => {
      const estimate = await acquire(params);
      const result = await doGenerate();
      reconcile(estimate, result.usage);
      return result;
    },
    wrapStream: async ({ doStream, params }) => {
      const estimate = await acquire(params);
      const result = await doStream();
      return {
        ...result,
        stream: observeStream(result.stream, {
          part: (part) => {
            if (part.type === 'finish') reconcile(estimate, part.usage);
          },
        }),
      };
    },
  };
}
