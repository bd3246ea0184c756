import { embedMany, wrapEmbeddingModel } from 'ai';
import { KgragError } from '../../core/errors.js';
import { startDeadline } from '../../core/start-deadline.js';
import { kgragOptionsKey } from '../llm/kgrag-call-options.js';
import { LlmCallError } from '../llm/llm-call-error.js';
import { createRetryPolicy, retryWithBackoff } from '../llm/retry-policy.js';
import type { RetryOptions } from '../llm/retry-policy.js';
import type { SdkEmbeddingModel } from '../llm/sdk-types.js';
import { toLlmCallError } from '../llm/to-llm-call-error.js';
import type { ProviderCallContext } from '../llm/to-llm-call-error.js';
import type { EmbedOptions, Embedder } from './embedder.js';

/** Options of {@link embedderFromSdk}. */
export interface SdkEmbedderOptions {
  /** The vector-space id (see `Embedder.id`). @default `ai-sdk:<provider>:<modelId>` */
  id?: string;
  /** Texts per request. @default 64 */
  batchSize?: number;
  /** Requests in flight at once. @default 4 */
  concurrency?: number;
  /** Prepended to queries (`inputType: 'query'`), e.g. `"query: "` for e5. @default '' */
  queryPrefix?: string;
  /** Prepended to corpus texts, e.g. `"passage: "` for e5. @default '' */
  documentPrefix?: string;
  /** The vector length asked of the model; a reply of another length is refused. @default whatever the model returns first */
  dimensions?: number;
  /** Provider options of every call (e.g. `{ openaiCompatible: { dimensions: 256 } }`). */
  providerOptions?: Record<string, Record<string, string | number | boolean | null>>;
  /** Retries of 429, 5xx, timeouts and network errors, as for the LLM. @default 6 retries from 1 s */
  retry?: RetryOptions;
  /** Per-request timeout in ms. @default 120000 */
  timeoutMs?: number;
  /** What is called, for error messages and hints. @default the model's provider */
  context?: Omit<ProviderCallContext, 'streaming' | 'service'>;
}

/**
 * An {@link Embedder} over an AI SDK embedding model (`openai.embedding('text-embedding-3-small')`, `ollama.embedding(…)`,
 * `MockEmbeddingModelV3`…), called through the SDK's `embedMany` (batches of `batchSize`, `concurrency` in flight).
 * Each request is retried by kgrag's retry policy (the SDK's own retries are off, so `retry-after`, jitter and
 * `onRetry` behave as for the LLM), bounded by `timeoutMs`, and its failures are `LlmCallError`s. Vectors are
 * L2-normalized; empty texts are not sent and get all-zero vectors.
 */
export function embedderFromSdk(model: SdkEmbeddingModel, options: SdkEmbedderOptions = {}): Embedder {
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const context: ProviderCallContext = { service: 'embeddings', baseURL: `the ${model.provider} provider`, modelId: model.modelId, ...options.context };
  const policy = createRetryPolicy({ configSection: 'embeddings', ...options.retry });
  let dimensions = options.dimensions;

  const requests = wrapEmbeddingModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      overrideMaxEmbeddingsPerCall: () => batchSize,
      overrideSupportsParallelCalls: () => true,
      wrapEmbed: ({ params: { providerOptions: { [kgragOptionsKey]: kgrag, ...providerOptions } = {}, ...params } }) =>
        retryWithBackoff(
          async () => {
            const deadline = startDeadline(timeoutMs, params.abortSignal);
            try {
              return await model.doEmbed({ ...params, providerOptions, abortSignal: deadline.signal });
            } catch (error) {
              if (params.abortSignal?.aborted) throw params.abortSignal.reason;
              if (deadline.expired.aborted) {
                throw new LlmCallError(`Embedding request for "${model.modelId}" timed out after ${timeoutMs} ms`, {
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
          },
          policy,
          params.abortSignal,
          typeof kgrag?.['purpose'] === 'string' ? kgrag['purpose'] : undefined,
        ),
    },
  });

  const checkDimensions = (vectors: readonly number[][]): void => {
    for (const vector of vectors) {
      dimensions ??= vector.length;
      if (vector.length === dimensions) continue;
      const requested = options.dimensions !== undefined && vector.length !== options.dimensions;
      throw new KgragError(`Embedding model "${model.modelId}" returned a vector of ${vector.length} dimensions where ${dimensions} were expected`, {
        code: 'EMBEDDING_DIMENSION_MISMATCH',
        category: 'provider',
        hint: requested
          ? `The server ignores embeddings.dimensions: remove it or set it to ${vector.length}, then re-index`
          : 'The index was built with another embedding model or dimensions: restore embeddings.model / embeddings.dimensions, or re-index',
        details: { modelId: model.modelId, expected: dimensions, received: vector.length },
      });
    }
  };

  const embedValues = async (values: string[], signal: AbortSignal | undefined, purpose: string): Promise<number[][]> => {
    // One failed batch stops the others instead of letting them spend calls on a lost result.
    const stopOthers = new AbortController();
    try {
      const { embeddings } = await embedMany({
        model: requests,
        values,
        maxRetries: 0,
        maxParallelCalls: concurrency,
        abortSignal: signal === undefined ? stopOthers.signal : AbortSignal.any([signal, stopOthers.signal]),
        // The purpose travels to the retry's `onRetry` as an LLM call's does; the middleware removes it.
        providerOptions: { ...options.providerOptions, [kgragOptionsKey]: { purpose } },
      });
      if (embeddings.length !== values.length) {
        throw new LlmCallError(`Embedding response for "${model.modelId}" is malformed: ${embeddings.length} embeddings for ${values.length} inputs`, {
          code: 'LLM_MALFORMED_RESPONSE',
          retryable: false,
          hint: `Check that ${context.baseURL} serves an OpenAI-compatible /embeddings API`,
        });
      }
      return embeddings;
    } catch (error) {
      stopOthers.abort(error);
      if (signal?.aborted) throw signal.reason;
      throw unwrapRetryError(error);
    }
  };

  return {
    id: options.id ?? `ai-sdk:${model.provider}:${model.modelId}`,
    get dimensions() {
      return dimensions;
    },
    maxBatchSize: batchSize,
    async embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      const prefix = (embedOptions.inputType === 'query' ? options.queryPrefix : options.documentPrefix) ?? '';
      const purpose = embedOptions.inputType === 'query' ? 'embed-query' : 'embed-documents';
      const positions: number[] = [];
      texts.forEach((text, index) => {
        if (text !== '') positions.push(index);
      });
      const vectors = positions.length === 0 ? [] : await embedValues(positions.map((index) => `${prefix}${texts[index] ?? ''}`), embedOptions.abortSignal, purpose);
      checkDimensions(vectors);
      if (dimensions === undefined) checkDimensions(await embedValues([' '], embedOptions.abortSignal, purpose));
      const output: Float32Array[] = texts.map(() => new Float32Array(dimensions ?? 0));
      positions.forEach((index, position) => {
        output[index] = normalize(Float32Array.from(vectors[position] ?? []));
      });
      return output;
    },
  };
}

/** Our error where the SDK wrapped it (`embedMany` may wrap a failure of one of its calls). */
function unwrapRetryError(error: unknown): unknown {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (LlmCallError.isInstance(current) || KgragError.isInstance(current)) return current;
  }
  return error;
}

function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let index = 0; index < vector.length; index += 1) vector[index] = (vector[index] ?? 0) * scale;
  return vector;
}
