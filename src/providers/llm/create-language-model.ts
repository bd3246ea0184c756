import type { LlmConfig } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import type { Sleep } from './abortable-sleep.js';
import type { LanguageModel } from './language-model.js';
import type { LlmResponseCache } from './llm-response-cache.js';
import { lazyLanguageModel } from './lazy-language-model.js';
import { openAiCompatibleProvider } from './openai-compatible-provider.js';
import type { RetryEvent } from './retry-policy.js';
import type { CountTokens } from './token-estimate.js';
import { createTokenBucketRateLimiter } from './token-bucket-rate-limiter.js';
import type { UsageMeter } from './usage-meter.js';
import { withCache } from './with-cache.js';
import { withConcurrency } from './with-concurrency.js';
import { withRateLimit } from './with-rate-limit.js';
import { withRequestDefaults } from './with-request-defaults.js';
import { withRetry } from './with-retry.js';
import { withTimeout } from './with-timeout.js';
import { withUsageMeter } from './with-usage-meter.js';

/** What {@link createLanguageModel} needs from its surroundings; everything is optional. */
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

const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Local servers (Ollama, vLLM, llama.cpp) accept any key; some clients and proxies insist on one. */
const PLACEHOLDER_API_KEY = 'kgrag-no-key';

/**
 * Builds the configured chat model with its wrappers, or returns `undefined` when no LLM is
 * configured (`provider: none`, or `auto` without a base URL or key after the environment
 * fallbacks `KGRAG_LLM_BASE_URL`/`OPENAI_BASE_URL` and `KGRAG_LLM_API_KEY`/`OPENAI_API_KEY`).
 */
export function createLanguageModel(config: LlmConfig, dependencies: LanguageModelDependencies = {}): LanguageModel | undefined {
  if (config.provider === 'none') return undefined;
  const env = dependencies.env ?? process.env;
  const apiKey = nonEmpty(config.apiKey) ?? nonEmpty(env['KGRAG_LLM_API_KEY']) ?? nonEmpty(env['OPENAI_API_KEY']);
  const configuredBaseURL = nonEmpty(config.baseURL) ?? nonEmpty(env['KGRAG_LLM_BASE_URL']) ?? nonEmpty(env['OPENAI_BASE_URL']);
  if (apiKey === undefined && configuredBaseURL === undefined) {
    if (config.provider === 'auto') return undefined;
    throw new KgragError('llm.provider is "openai-compatible" but neither llm.baseURL nor an API key is set', {
      code: 'CONFIG_LLM_ENDPOINT_MISSING',
      category: 'config',
      hint: 'Set llm.baseURL (e.g. http://localhost:11434/v1 for Ollama) or OPENAI_API_KEY, or set llm.provider to "none"',
    });
  }
  const baseURL = configuredBaseURL ?? OPENAI_BASE_URL;

  const adapterOptions = {
    baseURL,
    apiKey: apiKey ?? PLACEHOLDER_API_KEY,
    modelId: config.model,
    structuredOutputs: config.structuredOutputs,
    maxReplyBytes: config.maxReplyBytes,
    ...(config.headers === undefined ? {} : { headers: config.headers }),
    ...(dependencies.fetch === undefined ? {} : { fetch: dependencies.fetch }),
    ...(dependencies.countTokens === undefined ? {} : { countTokens: dependencies.countTokens }),
  };
  const adapter = lazyLanguageModel(openAiCompatibleProvider, config.model, async () =>
    (await import('./openai-compatible-language-model.js')).createOpenAiCompatibleLanguageModel(adapterOptions),
  );

  /*
   * Composition, innermost first; the reasons for the order:
   * - timeout, innermost: it bounds the HTTP call alone, never time spent queueing for a slot or budget;
   * - rate limit inside the concurrency slot: budget is taken right before the request leaves, so a
   *   call that waited for a slot cannot burst past the per-minute limit later;
   * - concurrency inside retry: a call sleeping in backoff gives its slot to others, and each retry
   *   queues again for a slot and for rate budget (a retry is a new request to the server);
   * - cache outside retry: a hit needs no slot, budget or retry, and only successes are stored;
   * - usage meter outermost: every caller-visible call is counted once, cache hits as unpaid;
   * - request defaults above everything: the cache key must see the temperature actually sent.
   */
  let model: LanguageModel = withTimeout(adapter, { timeoutMs: config.timeoutMs });
  if (config.requestsPerMinute > 0 || config.tokensPerMinute > 0) {
    const limiter = createTokenBucketRateLimiter({
      requestsPerMinute: config.requestsPerMinute,
      tokensPerMinute: config.tokensPerMinute,
      ...(dependencies.now === undefined ? {} : { now: dependencies.now }),
      ...(dependencies.sleep === undefined ? {} : { sleep: dependencies.sleep }),
    });
    model = withRateLimit(model, {
      limiter,
      ...(dependencies.countTokens === undefined ? {} : { countTokens: dependencies.countTokens }),
      ...(config.maxOutputTokens === undefined ? {} : { defaultOutputTokens: config.maxOutputTokens }),
    });
  }
  model = withConcurrency(model, { maxConcurrency: config.concurrency });
  model = withRetry(model, {
    maxRetries: config.maxRetries,
    baseDelayMs: config.retryBaseDelayMs,
    maxDelayMs: config.retryMaxDelayMs,
    ...(dependencies.rng === undefined ? {} : { rng: dependencies.rng }),
    ...(dependencies.sleep === undefined ? {} : { sleep: dependencies.sleep }),
    ...(dependencies.onRetry === undefined ? {} : { onRetry: dependencies.onRetry }),
  });
  if (config.cache && dependencies.cache !== undefined) model = withCache(model, { cache: dependencies.cache });
  if (dependencies.meter !== undefined) model = withUsageMeter(model, { meter: dependencies.meter });
  return withRequestDefaults(model, {
    temperature: config.temperature,
    ...(config.maxOutputTokens === undefined ? {} : { maxOutputTokens: config.maxOutputTokens }),
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
