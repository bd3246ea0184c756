import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { redactUrl } from '../../core/redact-url.js';
import { limitReplySize } from '../llm/limit-reply-size.js';
import type { RetryOptions } from '../llm/retry-policy.js';
import type { Embedder } from './embedder.js';
import { embedderFromSdk } from './embedder-from-sdk.js';
import { openAiCompatibleEmbedderId } from './openai-compatible-embedder-id.js';

/** Options of {@link createOpenAiCompatibleEmbedder}. */
export interface OpenAiCompatibleEmbedderOptions {
  /** Endpoint including the version path, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseURL: string;
  apiKey?: string;
  modelId: string;
  /** Requested vector length (`dimensions` parameter, for models that support shortening). */
  dimensions?: number;
  /** Texts per request. */
  batchSize: number;
  /** Requests in flight at once. @default 4 */
  concurrency?: number;
  /** Prepended to queries (`inputType: 'query'`), e.g. `"query: "` for e5. @default '' */
  queryPrefix?: string;
  /** Prepended to corpus texts, e.g. `"passage: "` for e5. @default '' */
  documentPrefix?: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  /** Retries of 429, 5xx, timeouts and network errors, as for the LLM. @default 6 retries from 1 s */
  retry?: RetryOptions;
  /** Per-request timeout in ms. @default 120000 */
  timeoutMs?: number;
  /**
   * Most bytes of one response; a longer one is aborted and fails with `LLM_REPLY_TOO_LARGE`, not retried.
   * @default 1 MiB plus 32 bytes (the longest JSON number and its separator) per dimension for each text of a
   * batch, with `dimensions` or else 8192, the most the configuration allows
   */
  maxReplyBytes?: number;
}

/** Bytes a valid JSON response to one batch can take at most (see {@link OpenAiCompatibleEmbedderOptions.maxReplyBytes}). */
function defaultMaxReplyBytes(batchSize: number, dimensions: number | undefined): number {
  return 1024 * 1024 + batchSize * (dimensions ?? 8192) * 32;
}

/**
 * An {@link Embedder} for any OpenAI-compatible `/embeddings` endpoint (OpenAI, Azure, Ollama, vLLM, LM Studio,
 * llama.cpp server, TEI): `@ai-sdk/openai-compatible`'s embedding model (which asks for `encoding_format: "float"`)
 * through `embedderFromSdk`, every response read through `limitReplySize`. Its id is unchanged from the hand-written
 * embedder it replaced (`openAiCompatibleEmbedderId`), so existing indexes still match.
 */
export function createOpenAiCompatibleEmbedder(options: OpenAiCompatibleEmbedderOptions): Embedder {
  const batchSize = Math.max(1, options.batchSize);
  const context = { baseURL: redactUrl(options.baseURL), modelId: options.modelId };
  // The SDK appends `/embeddings` to the base, so a `?api-version=…` written into the base URL is sent as parameters.
  const queryAt = options.baseURL.indexOf('?');
  const model = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: queryAt === -1 ? options.baseURL : options.baseURL.slice(0, queryAt),
    ...(queryAt === -1 ? {} : { queryParams: Object.fromEntries(new URLSearchParams(options.baseURL.slice(queryAt + 1))) }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    fetch: inInputOrder(
      limitReplySize(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), {
        maxBytes: options.maxReplyBytes ?? defaultMaxReplyBytes(batchSize, options.dimensions),
        context: { service: 'embeddings', ...context },
        configKey: 'embeddings.maxReplyBytes',
        alternative: 'lower embeddings.batchSize',
      }),
    ),
  }).embeddingModel(options.modelId);
  return embedderFromSdk(model, {
    id: openAiCompatibleEmbedderId(options),
    batchSize,
    context,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.queryPrefix === undefined ? {} : { queryPrefix: options.queryPrefix }),
    ...(options.documentPrefix === undefined ? {} : { documentPrefix: options.documentPrefix }),
    ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions, providerOptions: { openaiCompatible: { dimensions: options.dimensions } } }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/**
 * `fetch` whose successful `/embeddings` replies list their vectors in input order and as numbers, as the SDK's
 * parser takes them: some servers answer base64 (little-endian float32, as OpenAI encodes it) even when asked for
 * floats, and the SDK reads `data` in array order where the API orders it by each item's `index`. Anything else
 * passes through untouched, for the SDK's own errors.
 */
function inInputOrder(fetchImplementation: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchImplementation(input, init);
    if (!response.ok) return response;
    const body = await response.text();
    let parsed: { data?: unknown } | null;
    try {
      parsed = JSON.parse(body) as { data?: unknown } | null;
    } catch {
      return new Response(body, response);
    }
    const data = parsed?.data;
    if (!Array.isArray(data)) return new Response(body, response);
    const items = data.map((item: unknown, position) => {
      const record = (typeof item === 'object' && item !== null ? item : {}) as { index?: unknown; embedding?: unknown };
      return { ...record, index: typeof record.index === 'number' ? record.index : position, embedding: typeof record.embedding === 'string' ? decodeBase64Floats(record.embedding) : record.embedding };
    });
    items.sort((a, b) => a.index - b.index);
    return new Response(JSON.stringify({ ...parsed, data: items }), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function decodeBase64Floats(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: Math.floor(bytes.byteLength / 4) }, (_, index) => view.getFloat32(index * 4, true));
}
