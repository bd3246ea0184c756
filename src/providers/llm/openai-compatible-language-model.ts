import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { wrapLanguageModel } from 'ai';
import { redactUrl } from '../../core/redact-url.js';
import { composeLanguageModel } from './compose-language-model.js';
import type { LanguageModel } from './language-model.js';
import { limitReplySize } from './limit-reply-size.js';
import { openAiCompatibleProvider } from './openai-compatible-provider.js';
import type { SdkLanguageModel, SdkLanguageModelMiddleware } from './sdk-types.js';
import { structuredOutputsMiddleware } from './structured-outputs-middleware.js';
import type { StructuredOutputsMode } from './structured-outputs-middleware.js';
import type { CountTokens } from './token-estimate.js';

export type { StructuredOutputsMode } from './structured-outputs-middleware.js';

/** Options of {@link createOpenAiCompatibleChatModel} and {@link createOpenAiCompatibleLanguageModel}. */
export interface OpenAiCompatibleLanguageModelOptions {
  /** Endpoint including the version path, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  modelId: string;
  /** Extra HTTP headers of every request. */
  headers?: Record<string, string>;
  /**
   * `json_schema` sends the schema (servers with structured outputs); `json_object` sends only JSON mode
   * and puts the schema in the system prompt; `auto` starts with `json_schema` and switches to
   * `json_object` for the rest of the model's life once the server rejects it. @default 'auto'
   */
  structuredOutputs?: StructuredOutputsMode;
  /** Custom fetch (tests, proxies). @default globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * Most bytes of one HTTP reply (the whole event stream when streaming); a longer reply is aborted and
   * fails with `LLM_REPLY_TOO_LARGE`, not retried. @default {@link defaultMaxReplyBytes}
   */
  maxReplyBytes?: number;
  /** Token counter for servers that report no usage. @default about four characters per token */
  countTokens?: CountTokens;
  /** kgrag middleware between the adapter and the provider (retry, cache, limits…), outermost first. @default none */
  middleware?: readonly SdkLanguageModelMiddleware[];
}

/** Name of the AI SDK provider instance; `@ai-sdk/openai-compatible` reads its options from `providerOptions.openaiCompatible`. */
const SDK_PROVIDER_NAME = 'openai-compatible';

/**
 * 32 MiB: a streamed reply costs about 200 bytes of event per token, so this passes a 100,000-token
 * completion and still stops a runaway model or server long before it exhausts memory.
 */
export const defaultMaxReplyBytes = 32 * 1024 * 1024;

/**
 * The AI SDK chat model of any OpenAI-compatible chat completions endpoint (OpenAI, Azure, Ollama, vLLM, LM Studio,
 * llama.cpp, Together, Groq…): `@ai-sdk/openai-compatible`'s, with every reply read through `limitReplySize`, a
 * `?query` in the base URL sent as query parameters, JSON requested as `structuredOutputs` says, and the provider
 * named `openai-compatible` (part of every cache key, as it always was).
 */
export function createOpenAiCompatibleChatModel(options: OpenAiCompatibleLanguageModelOptions): SdkLanguageModel {
  const { base, queryParams } = splitQuery(options.baseURL);
  const chatModel = createOpenAICompatible({
    name: SDK_PROVIDER_NAME,
    baseURL: base,
    ...(queryParams === undefined ? {} : { queryParams }),
    includeUsage: true,
    supportsStructuredOutputs: true,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    fetch: limitReplySize(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), {
      maxBytes: options.maxReplyBytes ?? defaultMaxReplyBytes,
      context: { service: 'llm', baseURL: redactUrl(options.baseURL), modelId: options.modelId },
      configKey: 'llm.maxReplyBytes',
      alternative: 'set llm.maxOutputTokens to stop long replies at the server',
    }),
  }).chatModel(options.modelId);
  return wrapLanguageModel({ model: chatModel, middleware: structuredOutputsMiddleware(options.structuredOutputs ?? 'auto'), providerId: openAiCompatibleProvider });
}

/**
 * A {@link LanguageModel} for any OpenAI-compatible endpoint: {@link createOpenAiCompatibleChatModel} under
 * `options.middleware` and kgrag's provider middleware (errors as `LlmCallError`, estimated usage).
 */
export function createOpenAiCompatibleLanguageModel(options: OpenAiCompatibleLanguageModelOptions): LanguageModel {
  return composeLanguageModel(createOpenAiCompatibleChatModel(options), {
    context: { service: 'llm', baseURL: options.baseURL, modelId: options.modelId },
    ...(options.middleware === undefined ? {} : { middleware: options.middleware }),
    ...(options.countTokens === undefined ? {} : { countTokens: options.countTokens }),
  });
}

/**
 * The base URL without its query string, and the query's parameters: the SDK appends `/chat/completions`
 * to the base, so a `?api-version=…` or `?key=…` written into `baseURL` must be sent as parameters instead.
 */
function splitQuery(baseURL: string): { base: string; queryParams?: Record<string, string> } {
  const queryAt = baseURL.indexOf('?');
  if (queryAt === -1) return { base: baseURL };
  return { base: baseURL.slice(0, queryAt), queryParams: Object.fromEntries(new URLSearchParams(baseURL.slice(queryAt + 1))) };
}
