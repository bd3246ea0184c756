import type { ChatRequest, ChatResult, ChatStreamPart, LanguageModel } from './language-model.js';
import { llmCacheKey } from './llm-cache-key.js';
import type { CachedChat, LlmResponseCache } from './llm-response-cache.js';

/** Options of {@link withCache}. */
export interface CacheOptions {
  cache: LlmResponseCache;
}

/**
 * Answers repeated requests from `cache` (result marked `cached: true`, nothing paid) and stores
 * successful replies. Only `stop` and `length` finishes are stored: errors, filtered and unknown
 * endings are retried next time. A cached stream is replayed as one delta; a live stream is stored
 * once it completes. A request's `sources` tag the entry it stores, and are added to the entry it hits: the
 * reply is then derived from those texts too, and must go when any of them is deleted.
 */
export function withCache(model: LanguageModel, options: CacheOptions): LanguageModel {
  const { cache } = options;

  const store = async (key: string, result: ChatResult, request: ChatRequest): Promise<void> => {
    if (result.finishReason !== 'stop' && result.finishReason !== 'length') return;
    const entry: CachedChat = { text: result.text, usage: result.usage, finishReason: result.finishReason, modelId: result.modelId };
    await cache.set(key, entry, request.sources);
  };
  const lookUp = async (key: string, request: ChatRequest): Promise<CachedChat | undefined> => {
    const hit = await cache.get(key);
    if (hit !== undefined && request.sources !== undefined && request.sources.length > 0) await cache.addSources(key, request.sources);
    return hit;
  };

  async function* stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    request.abortSignal?.throwIfAborted();
    const key = llmCacheKey(model, request);
    const hit = await lookUp(key, request);
    if (hit !== undefined) {
      if (hit.text.length > 0) yield { type: 'text-delta', text: hit.text };
      yield { type: 'finish', result: { ...hit, cached: true } };
      return;
    }
    for await (const part of model.stream(request)) {
      if (part.type === 'finish') await store(key, part.result, request);
      yield part;
    }
  }

  return {
    provider: model.provider,
    modelId: model.modelId,
    generate: async (request) => {
      request.abortSignal?.throwIfAborted();
      const key = llmCacheKey(model, request);
      const hit = await lookUp(key, request);
      if (hit !== undefined) return { ...hit, cached: true };
      const result = await model.generate(request);
      await store(key, result, request);
      return result;
    },
    stream,
  };
}
