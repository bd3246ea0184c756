import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, streamText } from 'ai';
import type { LanguageModelUsage, ModelMessage } from 'ai';
import type { ChatMessage, ChatRequest, ChatResult, ChatStreamPart, FinishReason, LanguageModel } from './language-model.js';
import { redactUrl } from '../../core/redact-url.js';
import { limitReplySize } from './limit-reply-size.js';
import { LlmCallError } from './llm-call-error.js';
import { rawJsonOutput } from './raw-json-output.js';
import { countPromptTokens, estimateTokenCount } from './token-estimate.js';
import type { CountTokens } from './token-estimate.js';
import { toLlmCallError } from './to-llm-call-error.js';
import type { ProviderCallContext } from './to-llm-call-error.js';
import { openAiCompatibleProvider } from './openai-compatible-provider.js';

/** How JSON replies are requested from the server. */
export type StructuredOutputsMode = 'auto' | 'json_schema' | 'json_object';

/** Options of {@link createOpenAiCompatibleLanguageModel}. */
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
}

/** `LanguageModel.provider` of this adapter (part of every cache key). */
const PROVIDER = openAiCompatibleProvider;
/** Name of the AI SDK provider instance; also the key of its `providerOptions`. */
const SDK_PROVIDER_NAME = 'kgrag';
const SCHEMA_REJECTION_PATTERN = /response_format|json_schema|structured output|guided_json/i;

/**
 * 32 MiB: a streamed reply costs about 200 bytes of event per token, so this passes a 100,000-token
 * completion and still stops a runaway model or server long before it exhausts memory.
 */
export const defaultMaxReplyBytes = 32 * 1024 * 1024;

/**
 * A {@link LanguageModel} for any OpenAI-compatible chat completions endpoint (OpenAI, Azure, Ollama,
 * vLLM, LM Studio, llama.cpp, Together, Groq…), through the Vercel AI SDK. The SDK never retries
 * (`maxRetries: 0`): the retry wrapper owns retries, so that limits and backoff apply once. JSON
 * replies come back as raw text; `generateObject` parses and repairs them.
 */
export function createOpenAiCompatibleLanguageModel(options: OpenAiCompatibleLanguageModelOptions): LanguageModel {
  const countTokens = options.countTokens ?? estimateTokenCount;
  const mode = options.structuredOutputs ?? 'auto';
  const context: ProviderCallContext = { service: 'llm', baseURL: redactUrl(options.baseURL), modelId: options.modelId };
  const { base, queryParams } = splitQuery(options.baseURL);
  const providerSettings = {
    name: SDK_PROVIDER_NAME,
    baseURL: base,
    ...(queryParams === undefined ? {} : { queryParams }),
    includeUsage: true,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    fetch: limitReplySize(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), {
      maxBytes: options.maxReplyBytes ?? defaultMaxReplyBytes,
      context,
      configKey: 'llm.maxReplyBytes',
      alternative: 'set llm.maxOutputTokens to stop long replies at the server',
    }),
  };
  const schemaModel = createOpenAICompatible({ ...providerSettings, supportsStructuredOutputs: true }).chatModel(options.modelId);
  const jsonObjectModel = createOpenAICompatible({ ...providerSettings, supportsStructuredOutputs: false }).chatModel(options.modelId);
  let sendsJsonSchema = mode !== 'json_object';

  const callSettings = (request: ChatRequest, useJsonSchema: boolean) => {
    const format = request.responseFormat;
    const schema = format?.schema;
    const withSchema = useJsonSchema && schema !== undefined;
    return {
      model: withSchema ? schemaModel : jsonObjectModel,
      messages: toModelMessages(format === undefined || withSchema ? request.messages : withJsonInstruction(request.messages, schema)),
      allowSystemInMessages: true,
      maxRetries: 0,
      temperature: request.temperature,
      maxOutputTokens: request.maxOutputTokens,
      topP: request.topP,
      seed: request.seed,
      stopSequences: request.stop === undefined ? undefined : [...request.stop],
      abortSignal: request.abortSignal,
      output:
        format === undefined
          ? undefined
          : rawJsonOutput(withSchema ? { schema, ...(format.name === undefined ? {} : { name: format.name }) } : {}),
      providerOptions: { [SDK_PROVIDER_NAME]: { strictJsonSchema: withSchema && isStrictCompatible(schema) } },
    };
  };

  /** True when `auto` mode should give up on `json_schema` after this failure. */
  const shouldFallBack = (error: unknown, usedJsonSchema: boolean): boolean =>
    mode === 'auto' &&
    usedJsonSchema &&
    APICallError.isInstance(error) &&
    (error.statusCode === 400 || error.statusCode === 422) &&
    SCHEMA_REJECTION_PATTERN.test(error.responseBody ?? error.message);

  const buildResult = (request: ChatRequest, text: string, finishReason: string, usage: LanguageModelUsage | undefined, modelId: string | undefined): ChatResult => {
    const reportedInput = usage?.inputTokens;
    const reportedOutput = usage?.outputTokens;
    const estimated = reportedInput === undefined || reportedOutput === undefined;
    return {
      text,
      usage: {
        inputTokens: reportedInput ?? countPromptTokens(request.messages, countTokens),
        outputTokens: reportedOutput ?? countTokens(text),
        ...(estimated ? { estimated: true } : {}),
      },
      finishReason: toFinishReason(finishReason),
      modelId: modelId ?? options.modelId,
    };
  };

  const generateOnce = async (request: ChatRequest): Promise<ChatResult> => {
    const usedJsonSchema = sendsJsonSchema && request.responseFormat?.schema !== undefined;
    try {
      const result = await generateText(callSettings(request, usedJsonSchema));
      return buildResult(request, result.text, result.finishReason, result.usage, result.response.modelId);
    } catch (error) {
      if (request.abortSignal?.aborted) throw abortReason(request.abortSignal);
      if (shouldFallBack(error, usedJsonSchema)) {
        sendsJsonSchema = false;
        return generateOnce(request);
      }
      throw toLlmCallError(error, context);
    }
  };

  async function* streamOnce(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    const usedJsonSchema = sendsJsonSchema && request.responseFormat?.schema !== undefined;
    const streamed = streamText({
      ...callSettings(request, usedJsonSchema),
      onError: () => {
        // Errors arrive as `error` parts below; the SDK default would print them to the console.
      },
    });
    let text = '';
    let yieldedAny = false;
    let finishReason: string | undefined;
    let usage: LanguageModelUsage | undefined;
    let modelId: string | undefined;
    let fallback = false;
    try {
      for await (const part of streamed.fullStream) {
        if (part.type === 'text-delta' && part.text.length > 0) {
          text += part.text;
          yieldedAny = true;
          yield { type: 'text-delta', text: part.text };
        } else if (part.type === 'finish-step') {
          modelId = part.response.modelId;
        } else if (part.type === 'finish') {
          finishReason = part.finishReason;
          usage = part.totalUsage;
        } else if (part.type === 'error') {
          if (!yieldedAny && shouldFallBack(part.error, usedJsonSchema)) {
            fallback = true;
            break;
          }
          throw part.error;
        } else if (part.type === 'abort') {
          throw abortReason(request.abortSignal);
        }
      }
    } catch (error) {
      // A cut connection makes the SDK stream throw instead of emitting an `error` part.
      if (request.abortSignal?.aborted) throw abortReason(request.abortSignal);
      throw toLlmCallError(error, { ...context, streaming: true });
    }
    if (fallback) {
      sendsJsonSchema = false;
      yield* streamOnce(request);
      return;
    }
    if (finishReason === undefined || finishReason === 'error') {
      if (request.abortSignal?.aborted) throw abortReason(request.abortSignal);
      throw new LlmCallError(`LLM call to "${options.modelId}": the reply stream ended before the model finished`, {
        code: 'LLM_TRUNCATED_STREAM',
        retryable: true,
        hint: `The server at ${context.baseURL} or a proxy cut the stream; if it keeps happening, check its timeouts for long replies`,
      });
    }
    yield { type: 'finish', result: buildResult(request, text, finishReason, usage, modelId) };
  }

  return {
    provider: PROVIDER,
    modelId: options.modelId,
    generate: generateOnce,
    stream: streamOnce,
  };
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

function toModelMessages(messages: readonly ChatMessage[]): ModelMessage[] {
  return messages.map((message) => ({ role: message.role, content: message.content }));
}

/**
 * In `json_object` mode the server never sees the schema, so it goes into the system prompt; OpenAI
 * also refuses JSON mode unless a message mentions "JSON". Merged into the first system message
 * because several chat templates reject system messages after the first turn.
 */
function withJsonInstruction(messages: readonly ChatMessage[], schema: Record<string, unknown> | undefined): ChatMessage[] {
  const instruction =
    schema === undefined
      ? 'Reply with a single JSON value and nothing else.'
      : `Reply with a single JSON object and nothing else. It must conform to this JSON Schema:\n${JSON.stringify(schema)}`;
  if (schema === undefined && messages.some((message) => /json/i.test(message.content))) return [...messages];
  const systemIndex = messages.findIndex((message) => message.role === 'system');
  if (systemIndex === -1) return [{ role: 'system', content: instruction }, ...messages];
  return messages.map((message, index) =>
    index === systemIndex ? { role: 'system', content: `${message.content}\n\n${instruction}` } : message,
  );
}

/**
 * OpenAI's strict mode only accepts schemas whose objects are closed and list every property as
 * required; other schemas are sent non-strict rather than rejected.
 */
function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (typeof schema !== 'object' || schema === null) return true;
  const node = schema as Record<string, unknown>;
  const properties = node['properties'];
  const hasProperties = typeof properties === 'object' && properties !== null;
  if (node['type'] === 'object' || hasProperties) {
    if (node['additionalProperties'] !== false) return false;
    const required = Array.isArray(node['required']) ? (node['required'] as unknown[]) : [];
    if (hasProperties && !Object.keys(properties).every((key) => required.includes(key))) return false;
  }
  // Property names are not schemas (a property may be called "type"): descend into their values only.
  const nested = Object.entries(node).flatMap(([key, value]) => (key === 'properties' && hasProperties ? Object.values(value as object) : [value]));
  return nested.every(isStrictCompatible);
}

function toFinishReason(reason: string): FinishReason {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'content-filter':
    case 'tool-calls':
    case 'error':
    case 'other':
      return reason;
    default:
      return 'unknown';
  }
}

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}
