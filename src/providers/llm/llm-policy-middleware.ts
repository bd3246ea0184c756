import { defaultSettingsMiddleware } from 'ai';
import type { LlmConfig } from '../../core/config/config-schema.js';
import { cacheMiddleware } from './cache-middleware.js';
import { concurrencyMiddleware } from './concurrency-middleware.js';
import type { LanguageModelDependencies } from './language-model-dependencies.js';
import { rateLimitMiddleware } from './rate-limit-middleware.js';
import { retryMiddleware } from './retry-middleware.js';
import type { SdkLanguageModelMiddleware } from './sdk-types.js';
import { timeoutMiddleware } from './timeout-middleware.js';
import { createTokenBucketRateLimiter } from './token-bucket-rate-limiter.js';
import { usageMeterMiddleware } from './usage-meter-middleware.js';

/**
 * The middleware `llm.*` asks for, outermost first, for any AI SDK model. The reasons for the order:
 * - request defaults outermost: the cache key must see the temperature actually sent;
 * - usage meter above the cache and the retry: every caller-visible call is counted once, cache hits as unpaid;
 * - cache above the retry: a hit needs no slot, budget or retry, and only successes are stored;
 * - concurrency below the retry: a call sleeping in backoff gives its slot to others, and each retry queues again
 *   for a slot and for rate budget (a retry is a new request to the server);
 * - rate limit inside the concurrency slot: budget is taken right before the request leaves, so a call that
 *   waited for a slot cannot burst past the per-minute limit later;
 * - timeout innermost: it bounds the HTTP call alone, never time spent queueing for a slot or budget.
 */
export function llmPolicyMiddleware(config: LlmConfig, dependencies: LanguageModelDependencies = {}): SdkLanguageModelMiddleware[] {
  const middleware: SdkLanguageModelMiddleware[] = [
    defaultSettingsMiddleware({
      settings: { temperature: config.temperature, ...(config.maxOutputTokens === undefined ? {} : { maxOutputTokens: config.maxOutputTokens }) },
    }),
  ];
  if (dependencies.meter !== undefined) middleware.push(usageMeterMiddleware({ meter: dependencies.meter }));
  if (config.cache && dependencies.cache !== undefined) middleware.push(cacheMiddleware({ cache: dependencies.cache }));
  middleware.push(
    retryMiddleware({
      maxRetries: config.maxRetries,
      baseDelayMs: config.retryBaseDelayMs,
      maxDelayMs: config.retryMaxDelayMs,
      ...(dependencies.rng === undefined ? {} : { rng: dependencies.rng }),
      ...(dependencies.sleep === undefined ? {} : { sleep: dependencies.sleep }),
      ...(dependencies.onRetry === undefined ? {} : { onRetry: dependencies.onRetry }),
    }),
    concurrencyMiddleware({ maxConcurrency: config.concurrency }),
  );
  if (config.requestsPerMinute > 0 || config.tokensPerMinute > 0) {
    const limiter = createTokenBucketRateLimiter({
      requestsPerMinute: config.requestsPerMinute,
      tokensPerMinute: config.tokensPerMinute,
      ...(dependencies.now === undefined ? {} : { now: dependencies.now }),
      ...(dependencies.sleep === undefined ? {} : { sleep: dependencies.sleep }),
    });
    middleware.push(
      rateLimitMiddleware({
        limiter,
        ...(dependencies.countTokens === undefined ? {} : { countTokens: dependencies.countTokens }),
        ...(config.maxOutputTokens === undefined ? {} : { defaultOutputTokens: config.maxOutputTokens }),
      }),
    );
  }
  middleware.push(timeoutMiddleware({ timeoutMs: config.timeoutMs }));
  return middleware;
}
