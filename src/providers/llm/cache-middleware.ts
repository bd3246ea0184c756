import { onAbort } from '../../core/on-abort.js';
import { fromSdkFinishReason, fromSdkUsage, kgragReplyMetadata, replyText, toChatRequest, toSdkFinishPart, toSdkGenerateResult } from './kgrag-call-options.js';
import type { ChatRequest, FinishReason } from './language-model.js';
import { llmCacheKey } from './llm-cache-key.js';
import type { CachedChat, LlmResponseCache } from './llm-response-cache.js';
import { observeStream } from './observe-stream.js';
import type { SdkLanguageModelMiddleware, SdkStreamPart, SdkUsage } from './sdk-types.js';

/** Options of {@link cacheMiddleware}. */
export interface CacheOptions {
  cache: LlmResponseCache;
}

/**
 * Answers repeated requests from `cache` (the reply marked `cached` in `providerMetadata.kgrag`, nothing paid) and
 * stores successful replies. The key is {@link llmCacheKey} of the model and the request the call stands for
 * (`toChatRequest`), so a kgrag request keys the same as it always has. Only `stop` and `length` finishes are
 * stored: errors, filtered and unknown endings are asked again next time. A cached stream is replayed as one
 * delta; a live stream is stored once it completes. A request's sources (`providerOptions.kgrag.sources`) tag the
 * entry it stores, and are added to the entry it hits: the reply is then derived from those texts too, and must go
 * when any of them is deleted.
 *
 * Identical requests in flight at once are paid once: the later ones wait for the first and take its reply as a
 * cache hit. Two communities with the same context, or two chunks with the same text, would otherwise both be paid
 * whenever their calls happened to overlap, so that what a run costs depended on timing. A waiter whose first call
 * fails, or ends in a reply the cache does not keep, makes its own call; a waiter's own abort ends only its wait.
 *
 * A request with `refreshCache` skips the lookup: it is paid, and its reply replaces the stored one.
 */
export function cacheMiddleware(options: CacheOptions): SdkLanguageModelMiddleware {
  const { cache } = options;
  /** The reply each key's paid call will give: `undefined` when that call fails or ends unstored. */
  const inFlight = new Map<string, Promise<CachedChat | undefined>>();

  const addSources = async (key: string, request: ChatRequest): Promise<void> => {
    if (request.sources !== undefined && request.sources.length > 0) await cache.addSources(key, request.sources);
  };
  const lookUp = async (key: string, request: ChatRequest): Promise<CachedChat | undefined> => {
    const hit = await cache.get(key);
    if (hit !== undefined) await addSources(key, request);
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
        await addSources(key, request);
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
  const store = async (key: string, reply: CachedChat | undefined, request: ChatRequest): Promise<void> => {
    if (reply !== undefined) await cache.set(key, reply, request.sources);
  };

  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      params.abortSignal?.throwIfAborted();
      const request = toChatRequest(params);
      const key = llmCacheKey(model, request);
      const claimed = request.refreshCache === true ? { miss: register(key) } : await claim(key, request, () => register(key));
      if ('hit' in claimed) return toSdkGenerateResult({ ...claimed.hit, cached: true });
      let kept: CachedChat | undefined;
      try {
        const result = await doGenerate();
        const reply = storable({
          text: replyText(result.content),
          usage: result.usage,
          finishReason: fromSdkFinishReason(result.finishReason),
          modelId: result.response?.modelId ?? model.modelId,
          providerMetadata: result.providerMetadata,
        });
        await store(key, reply, request);
        kept = reply;
        return result;
      } finally {
        claimed.miss.settle(kept);
      }
    },
    wrapStream: async ({ doStream, params, model }) => {
      params.abortSignal?.throwIfAborted();
      const request = toChatRequest(params);
      const key = llmCacheKey(model, request);
      // A stream waits for an identical call in flight but does not make others wait for it: a reader that drops
      // the stream without cancelling it would leave them waiting for good.
      const claimed = request.refreshCache === true ? { miss: undefined } : await claim(key, request, () => undefined);
      if ('hit' in claimed) return { stream: cachedStream(claimed.hit) };
      const result = await doStream();
      let text = '';
      let modelId = model.modelId;
      return {
        ...result,
        stream: observeStream(result.stream, {
          part: async (part) => {
            if (part.type === 'text-delta') text += part.delta;
            else if (part.type === 'response-metadata' && part.modelId !== undefined) modelId = part.modelId;
            else if (part.type === 'finish') {
              const reply = storable({ text, usage: part.usage, finishReason: fromSdkFinishReason(part.finishReason), modelId, providerMetadata: part.providerMetadata });
              await store(key, reply, request);
            }
          },
        }),
      };
    },
  };
}

/** The entry a finished reply is kept as, or `undefined` for a reply the cache does not keep. */
function storable(reply: {
  text: string;
  usage: SdkUsage;
  finishReason: FinishReason;
  modelId: string;
  providerMetadata: Record<string, Record<string, unknown>> | undefined;
}): CachedChat | undefined {
  const counts = fromSdkUsage(reply.usage);
  if ((reply.finishReason !== 'stop' && reply.finishReason !== 'length') || counts === undefined) return undefined;
  const estimated = kgragReplyMetadata(reply.providerMetadata).usageEstimated === true;
  return { text: reply.text, usage: { ...counts, ...(estimated ? { estimated: true } : {}) }, finishReason: reply.finishReason, modelId: reply.modelId };
}

function cachedStream(hit: CachedChat): ReadableStream<SdkStreamPart> {
  const parts: SdkStreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', modelId: hit.modelId },
    ...(hit.text.length > 0
      ? ([
          { type: 'text-start', id: 'cached' },
          { type: 'text-delta', id: 'cached', delta: hit.text },
          { type: 'text-end', id: 'cached' },
        ] satisfies SdkStreamPart[])
      : []),
    toSdkFinishPart({ ...hit, cached: true }),
  ];
  return new ReadableStream<SdkStreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
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
