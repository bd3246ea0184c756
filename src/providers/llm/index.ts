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
export { createOpenAiCompatibleChatModel, createOpenAiCompatibleLanguageModel } from './openai-compatible-language-model.js';
export type { OpenAiCompatibleLanguageModelOptions, StructuredOutputsMode } from './openai-compatible-language-model.js';
export { createLanguageModel } from './create-language-model.js';
export type { LanguageModelDependencies } from './create-language-model.js';
export { resolveLanguageModel } from './resolve-language-model.js';
export type { LanguageModelInput } from './resolve-language-model.js';
export { composeLanguageModel } from './compose-language-model.js';
export type { ComposeLanguageModelOptions } from './compose-language-model.js';
export { languageModelFromSdk } from './language-model-from-sdk.js';
export { sdkModelFromLanguageModel } from './sdk-model-from-language-model.js';
export { wrapKgragLanguageModel } from './wrap-kgrag-language-model.js';
export type { KgragCallOptions, KgragReplyMetadata } from './kgrag-call-options.js';
export type { SdkEmbeddingModel, SdkLanguageModel, SdkLanguageModelMiddleware } from './sdk-types.js';
export { llmPolicyMiddleware } from './llm-policy-middleware.js';
export { cacheMiddleware } from './cache-middleware.js';
export type { CacheOptions } from './cache-middleware.js';
export type { CachedChat, LlmResponseCache } from './llm-response-cache.js';
export { llmCacheKey } from './llm-cache-key.js';
export { retryMiddleware } from './retry-middleware.js';
export { createRetryPolicy, retryWithBackoff } from './retry-policy.js';
export type { RetryEvent, RetryOptions, RetryPolicy } from './retry-policy.js';
export { createTokenBucketRateLimiter } from './token-bucket-rate-limiter.js';
export type {
  RateLimitAcquireOptions,
  RateLimitCost,
  TokenBucketRateLimiter,
  TokenBucketRateLimiterOptions,
} from './token-bucket-rate-limiter.js';
export { rateLimitMiddleware } from './rate-limit-middleware.js';
export type { RateLimitOptions } from './rate-limit-middleware.js';
export { concurrencyMiddleware } from './concurrency-middleware.js';
export type { ConcurrencyOptions } from './concurrency-middleware.js';
export { createPrioritySemaphore } from './priority-semaphore.js';
export type { CallPriority, PrioritySemaphore } from './priority-semaphore.js';
export { timeoutMiddleware } from './timeout-middleware.js';
export type { TimeoutOptions } from './timeout-middleware.js';
export { estimateUsageMiddleware } from './estimate-usage-middleware.js';
export { providerErrorMiddleware } from './provider-error-middleware.js';
export { structuredOutputsMiddleware } from './structured-outputs-middleware.js';
export { createUsageMeter } from './usage-meter.js';
export type { UsageMeter, UsageMeterOptions, UsageRecord, UsageSnapshot, UsageTotals } from './usage-meter.js';
export { usageMeterMiddleware } from './usage-meter-middleware.js';
export type { UsageMeterMiddlewareOptions } from './usage-meter-middleware.js';
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
