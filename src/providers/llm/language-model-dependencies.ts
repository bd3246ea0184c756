import type { Sleep } from './abortable-sleep.js';
import type { LlmResponseCache } from './llm-response-cache.js';
import type { RetryEvent } from './retry-policy.js';
import type { CountTokens } from './token-estimate.js';
import type { UsageMeter } from './usage-meter.js';

/** What the configured chat model needs from its surroundings (`createLanguageModel`); everything is optional. */
export interface LanguageModelDependencies {
  /** Response cache (the workspace's `llm_cache`); used when `llm.cache` is true. */
  cache?: LlmResponseCache;
  /** Receives every call's usage and cost. */
  meter?: UsageMeter;
  /** Tokenizer for rate-limit estimates and servers that report no usage. */
  countTokens?: CountTokens;
  fetch?: typeof fetch;
  /** Environment for key/URL fallbacks. @default process.env */
  env?: Record<string, string | undefined>;
  /** Jitter source of the retry backoff. @default Math.random */
  rng?: () => number;
  /** @default real timers */
  sleep?: Sleep;
  /** Monotonic clock of the rate limiter, in ms. @default performance.now */
  now?: () => number;
  onRetry?: (event: RetryEvent) => void;
}
