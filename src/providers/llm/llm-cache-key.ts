import { createHash } from 'node:crypto';
import type { ChatRequest } from './language-model.js';
import { canonicalJson } from './canonical-json.js';

/** Bumped when the key layout changes, so old entries are never misread. */
const KEY_VERSION = 1;

/**
 * SHA-256 cache key over the provider, the model id and every request field that changes the reply
 * (messages, temperature, maxOutputTokens, topP, seed, stop, responseFormat with its schema).
 * Unlike Microsoft GraphRAG's key, the model is part of it, so switching models never reuses replies.
 * `purpose`, `priority`, `sources`, `refreshCache` and `abortSignal` do not change the reply and are left out.
 */
export function llmCacheKey(model: { provider: string; modelId: string }, request: ChatRequest): string {
  const keyed = {
    version: KEY_VERSION,
    provider: model.provider,
    modelId: model.modelId,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    temperature: request.temperature,
    maxOutputTokens: request.maxOutputTokens,
    topP: request.topP,
    seed: request.seed,
    stop: request.stop,
    responseFormat: request.responseFormat,
  };
  return createHash('sha256').update(canonicalJson(keyed)).digest('hex');
}
