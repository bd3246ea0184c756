import { onAbort } from '../../core/on-abort.js';
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
 *
 * Identical requests in flight at once are paid once: the later ones wait for the first and take its reply as a
 * cache hit. Two communities with the same context, or two chunks with the same text, would otherwise both be paid
 * whenever their calls happened to overlap, so that what a run costs depended on timing. A waiter whose first call
 * fails, or ends in a reply the cache does not keep, makes its own call; a waiter's own abort ends only its wait.
 *
 * A request with `refreshCache` skips the lookup: it is paid, and its reply replaces the stored one.
 */
export function withCache(model: LanguageModel, options: CacheOptions): LanguageModel {
  const { cache } = options;
  /** The reply each key's paid call will give: `undefined` when that call fails or ends unstored. */
  const inFlight = new Map<string, Promise<CachedChat | undefined>>();

  const storable = (result: ChatResult): CachedChat | undefined =>
    result.finishReason === 'stop' || result.finishReason === 'length'
      ? { text: result.text, usage: result.usage, finishReason: result.finishReason, modelId: result.modelId }
      : undefined;
  const store = async (key: string, result: ChatResult, request: ChatRequest): Promise<void> => {
    const entry = storable(result);
    if (entry !== undefined) await cache.set(key, entry, request.sources);
  };
  const lookUp = async (key: string, request: ChatRequest): Promise<CachedChat | undefined> => {
    const hit = await cache.get(key);
    if (hit !== undefined && request.sources !== undefined && request.sources.length > 0) await cache.addSources(key, request.sources);
    return hit;
  };

  /**
   * A stored or shared reply for `key`, waiting for an identical call in flight; else what `onMiss` returns, called
   * in the same synchronous step as the check that none is in flight (so that a registration it makes cannot race an
   * identical request's).
   */
  const claim = async <T>(key: string, request: ChatRequest, onMiss: () => T): Promise<{ hit: CachedChat } | { miss: T }> => {
    for (;;) {
      const pending = inFlight.get(key);
      if (pending === undefined) {
        const hit = await lookUp(key, request);
        if (hit !== undefined) return { hit };
        if (!inFlight.has(key)) return { miss: onMiss() };
        continue;
      }
      const reply = await whileNotAborted(pending, request.abortSignal);
      if (reply !== undefined) {
        if (request.sources !== undefined && request.sources.length > 0) await cache.addSources(key, request.sources);
        return { hit: reply };
      }
      // The first call failed or was not kept: the next waiter to get here makes the call, the others wait for it.
    }
  };
  const register = (key: string): InFlightCall => {
    let settle!: (reply: CachedChat | undefined) => void;
    const pending = new Promise<CachedChat | undefined>((resolve) => (settle = resolve));
    inFlight.set(key, pending);
    return {
      settle(reply) {
        if (inFlight.get(key) === pending) inFlight.delete(key);
        settle(reply);
      },
    };
  };

  async function* stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    request.abortSignal?.throwIfAborted();
    const key = llmCacheKey(model, request);
    // A stream waits for an identical call in flight but does not make others wait for it: a consumer that drops
    // the stream without closing it would leave them waiting for good.
    const claimed = request.refreshCache === true ? { miss: undefined } : await claim(key, request, () => undefined);
    if ('hit' in claimed) {
      const { hit } = claimed;
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
      const claimed = request.refreshCache === true ? { miss: register(key) } : await claim(key, request, () => register(key));
      if ('hit' in claimed) return { ...claimed.hit, cached: true };
      const call = claimed.miss;
      let reply: CachedChat | undefined;
      try {
        const result = await model.generate(request);
        await store(key, result, request);
        reply = storable(result);
        return result;
      } finally {
        call.settle(reply);
      }
    },
    stream,
  };
}

/** A call this process is paying for, which identical requests wait on. */
interface InFlightCall {
  /** Ends the wait of identical requests: with the reply kept in the cache, or `undefined` to make them call. */
  settle(reply: CachedChat | undefined): void;
}

/** `promise`'s value, or a rejection with the signal's reason when `signal` aborts first; `undefined` if it rejects. */
function whileNotAborted<T>(promise: Promise<T | undefined>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise.catch(() => undefined);
  signal.throwIfAborted();
  return new Promise<T | undefined>((resolve, reject) => {
    const cancel = onAbort(signal, () => reject(signal.reason));
    promise.then(
      (value) => {
        cancel();
        resolve(value);
      },
      () => {
        cancel();
        resolve(undefined);
      },
    );
  });
}
