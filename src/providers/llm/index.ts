export type {
  ChatMessage,
  ChatRequest,
  ChatResult,
  ChatStreamPart,
  FinishReason,
  JsonResponseFormat,
  LanguageModel,
} from './language-model.js';
export { LlmCallError } from './llm-call-error.js';
export type { LlmCallErrorCode, LlmCallErrorOptions } from './llm-call-error.js';
export { createOpenAiCompatibleLanguageModel } from './openai-compatible-language-model.js';
export type { OpenAiCompatibleLanguageModelOptions, StructuredOutputsMode } from './openai-compatible-language-model.js';
export { createLanguageModel } from './create-language-model.js';
export type { LanguageModelDependencies } from './create-language-model.js';
export { withCache } from './with-cache.js';
export type { CacheOptions } from './with-cache.js';
export type { CachedChat, LlmResponseCache } from './llm-response-cache.js';
export { createMemoryLlmCache } from './memory-llm-cache.js';
export type { MemoryLlmCache } from './memory-llm-cache.js';
export { llmCacheKey } from './llm-cache-key.js';
export { withRetry } from './with-retry.js';
export { createRetryPolicy, retryWithBackoff } from './retry-policy.js';
export type { RetryEvent, RetryOptions, RetryPolicy } from './retry-policy.js';
export { createTokenBucketRateLimiter } from './token-bucket-rate-limiter.js';
export type {
  RateLimitAcquireOptions,
  RateLimitCost,
  TokenBucketRateLimiter,
  TokenBucketRateLimiterOptions,
} from './token-bucket-rate-limiter.js';
export { withRateLimit } from './with-rate-limit.js';
export type { RateLimitOptions } from './with-rate-limit.js';
export { withConcurrency } from './with-concurrency.js';
export type { ConcurrencyOptions } from './with-concurrency.js';
export { createPrioritySemaphore } from './priority-semaphore.js';
export type { CallPriority, PrioritySemaphore } from './priority-semaphore.js';
export { withTimeout } from './with-timeout.js';
export type { TimeoutOptions } from './with-timeout.js';
export { withRequestDefaults } from './with-request-defaults.js';
export type { RequestDefaults } from './with-request-defaults.js';
export { createUsageMeter } from './usage-meter.js';
export type { UsageMeter, UsageMeterOptions, UsageRecord, UsageSnapshot, UsageTotals } from './usage-meter.js';
export { withUsageMeter } from './with-usage-meter.js';
export type { UsageMeterWrapperOptions } from './with-usage-meter.js';
export { findModelPrice, mergeModelPrices, OPENAI_MODEL_PRICES, resolveModelPrice } from './model-prices.js';
export type { ModelPrice, ModelPriceSource, PriceSettings, ResolvedModelPrice } from './model-prices.js';
export { generateObject } from './generate-object.js';
export type { GenerateObjectOptions, GenerateObjectResult } from './generate-object.js';
export { parseJsonLoose } from './parse-json-loose.js';
export type { ParseJsonLooseResult } from './parse-json-loose.js';
export { parseRetryAfter } from './parse-retry-after.js';
export { abortableSleep } from './abortable-sleep.js';
export type { Sleep } from './abortable-sleep.js';
export { countPromptTokens, estimateTokenCount } from './token-estimate.js';
export type { CountTokens } from './token-estimate.js';
