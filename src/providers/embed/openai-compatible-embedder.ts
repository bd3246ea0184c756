import { KgragError } from '../../core/errors.js';
import { redactUrl } from '../../core/redact-url.js';
import { startDeadline } from '../../core/start-deadline.js';
import { limitReplySize } from '../llm/limit-reply-size.js';
import { LlmCallError } from '../llm/llm-call-error.js';
import { createRetryPolicy, retryWithBackoff } from '../llm/retry-policy.js';
import type { RetryOptions } from '../llm/retry-policy.js';
import { httpFailureToLlmCallError, toLlmCallError } from '../llm/to-llm-call-error.js';
import type { ProviderCallContext } from '../llm/to-llm-call-error.js';
import type { EmbedOptions, Embedder } from './embedder.js';
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
 * An {@link Embedder} for any OpenAI-compatible `/embeddings` endpoint (OpenAI, Azure, Ollama, vLLM,
 * LM Studio, llama.cpp server, TEI). It always asks for `encoding_format: "float"`: the `openai`
 * SDK's base64 default is silently misdecoded by some servers. Vectors are L2-normalized; empty
 * texts are not sent and get all-zero vectors.
 */
export function createOpenAiCompatibleEmbedder(options: OpenAiCompatibleEmbedderOptions): Embedder {
  // Before the query string, if the base URL has one (`?api-version=…`).
  const queryAt = options.baseURL.indexOf('?');
  const url =
    queryAt === -1
      ? `${options.baseURL.replace(/\/+$/, '')}/embeddings`
      : `${options.baseURL.slice(0, queryAt).replace(/\/+$/, '')}/embeddings${options.baseURL.slice(queryAt)}`;
  const context: ProviderCallContext = { service: 'embeddings', baseURL: redactUrl(options.baseURL), modelId: options.modelId };
  const policy = createRetryPolicy({ configSection: 'embeddings', ...options.retry });
  const timeoutMs = options.timeoutMs ?? 120_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const batchSize = Math.max(1, options.batchSize);
  const fetchImplementation = limitReplySize(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), {
    maxBytes: options.maxReplyBytes ?? defaultMaxReplyBytes(batchSize, options.dimensions),
    context,
    configKey: 'embeddings.maxReplyBytes',
    alternative: 'lower embeddings.batchSize',
  });
  let dimensions = options.dimensions;

  const headers = {
    'content-type': 'application/json',
    ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
    ...options.headers,
  };

  const checkDimensions = (vectors: Float32Array[]): void => {
    for (const vector of vectors) {
      if (dimensions === undefined) dimensions = vector.length;
      if (vector.length === dimensions) continue;
      const requested = options.dimensions !== undefined && vector.length !== options.dimensions;
      throw new KgragError(
        `Embedding model "${options.modelId}" returned a vector of ${vector.length} dimensions where ${dimensions} were expected`,
        {
          code: 'EMBEDDING_DIMENSION_MISMATCH',
          category: 'provider',
          hint: requested
            ? `The server ignores embeddings.dimensions: remove it or set it to ${vector.length}, then re-index`
            : 'The index was built with another embedding model or dimensions: restore embeddings.model / embeddings.dimensions, or re-index',
          details: { modelId: options.modelId, expected: dimensions, received: vector.length },
        },
      );
    }
  };

  const requestOnce = async (inputs: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> => {
    const deadline = startDeadline(timeoutMs, signal);
    try {
      const response = await fetchImplementation(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: options.modelId,
          input: inputs,
          encoding_format: 'float',
          ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions }),
        }),
        signal: deadline.signal,
      });
      const body = await response.text();
      if (!response.ok) throw httpFailureToLlmCallError({ status: response.status, headers: response.headers, body }, context);
      return decodeEmbeddings(body, inputs.length, context, response.status);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.expired.aborted) {
        throw new LlmCallError(`Embedding request for "${options.modelId}" timed out after ${timeoutMs} ms`, {
          code: 'LLM_TIMEOUT',
          retryable: true,
          hint: 'Lower embeddings.batchSize or embeddings.concurrency if the server is slow',
          cause: error,
        });
      }
      throw toLlmCallError(error, context);
    } finally {
      deadline.clear();
    }
  };

  const embedBatch = async (inputs: readonly string[], signal: AbortSignal | undefined, purpose: string): Promise<Float32Array[]> => {
    const vectors = await retryWithBackoff(() => requestOnce(inputs, signal), policy, signal, purpose);
    checkDimensions(vectors);
    return vectors.map(normalize);
  };

  return {
    id: openAiCompatibleEmbedderId(options),
    get dimensions() {
      return dimensions;
    },
    maxBatchSize: batchSize,
    async embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      const signal = embedOptions.abortSignal;
      const prefix = (embedOptions.inputType === 'query' ? options.queryPrefix : options.documentPrefix) ?? '';
      const purpose = embedOptions.inputType === 'query' ? 'embed-query' : 'embed-documents';
      const positions: number[] = [];
      texts.forEach((text, index) => {
        if (text !== '') positions.push(index);
      });
      const batches: number[][] = [];
      for (let start = 0; start < positions.length; start += batchSize) batches.push(positions.slice(start, start + batchSize));

      const output: Array<Float32Array | undefined> = texts.map(() => undefined);
      // One failed batch stops the others instead of letting them spend calls on a lost result.
      const stopOthers = new AbortController();
      const batchSignal = signal === undefined ? stopOthers.signal : AbortSignal.any([signal, stopOthers.signal]);
      let next = 0;
      const worker = async (): Promise<void> => {
        for (let batch = batches[next++]; batch !== undefined; batch = batches[next++]) {
          const inputs = batch.map((index) => `${prefix}${texts[index] ?? ''}`);
          const vectors = await embedBatch(inputs, batchSignal, purpose).catch((error: unknown) => {
            stopOthers.abort(error);
            throw error;
          });
          batch.forEach((index, position) => {
            output[index] = vectors[position];
          });
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));

      if (dimensions === undefined) await embedBatch([' '], signal, purpose);
      const zeros = dimensions ?? 0;
      return output.map((vector) => vector ?? new Float32Array(zeros));
    },
  };
}

function decodeEmbeddings(body: string, expected: number, context: ProviderCallContext, status: number): Float32Array[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw httpFailureToLlmCallError({ status, body }, context);
  }
  const data = (parsed as { data?: unknown } | null)?.data;
  const malformed = (why: string): LlmCallError =>
    new LlmCallError(`Embedding response for "${context.modelId}" is malformed: ${why}`, {
      code: 'LLM_MALFORMED_RESPONSE',
      retryable: true,
      hint: `Check that embeddings.baseURL (${context.baseURL}) points at an OpenAI-compatible /embeddings API`,
      details: { body: body.slice(0, 500) },
    });
  if (!Array.isArray(data)) throw malformed('no `data` array');
  if (data.length !== expected) throw malformed(`${data.length} embeddings for ${expected} inputs`);
  const vectors: Array<Float32Array | undefined> = new Array(expected);
  data.forEach((item: unknown, position) => {
    const record = (typeof item === 'object' && item !== null ? item : {}) as { index?: unknown; embedding?: unknown };
    const index = typeof record.index === 'number' ? record.index : position;
    const { embedding } = record;
    let vector: Float32Array;
    if (Array.isArray(embedding) && embedding.every((value) => typeof value === 'number')) vector = Float32Array.from(embedding as number[]);
    else if (typeof embedding === 'string') vector = decodeBase64Floats(embedding);
    else throw malformed(`item ${position} has no numeric \`embedding\``);
    if (index < 0 || index >= expected || vectors[index] !== undefined) throw malformed(`duplicate or out-of-range index ${index}`);
    vectors[index] = vector;
  });
  return vectors.map((vector) => vector ?? new Float32Array(0));
}

/** Some servers answer base64 even when asked for floats: little-endian float32, as OpenAI encodes it. */
function decodeBase64Floats(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(Math.floor(bytes.byteLength / 4));
  for (let index = 0; index < vector.length; index += 1) vector[index] = view.getFloat32(index * 4, true);
  return vector;
}

function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let index = 0; index < vector.length; index += 1) vector[index] = (vector[index] ?? 0) * scale;
  return vector;
}
