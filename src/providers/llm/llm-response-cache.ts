import type { ChatResult } from './language-model.js';

/** What the LLM cache stores per key: a successful reply and what it cost when it was paid for. */
export type CachedChat = Pick<ChatResult, 'text' | 'usage' | 'finishReason' | 'modelId'>;

/**
 * Storage behind `cacheMiddleware`. The workspace store implements it on its `llm_cache` table (with the source
 * tags in `llm_cache_sources`); `createMemoryLlmCache` keeps entries in memory (tests, one-off runs).
 *
 * Sources are the content hashes a request names (`ChatRequest.sources`): a cache that keeps them can delete every
 * reply derived from a deleted document (`forgetCachedCalls` on the store); one that cannot ignores them.
 */
export interface LlmResponseCache {
  get(key: string): Promise<CachedChat | undefined>;
  /** Stores a reply, tagged with the sources of the request that paid for it. */
  set(key: string, value: CachedChat, sources?: readonly string[]): Promise<void>;
  /**
   * Adds tags to the stored entry of `key`, keeping those it has: a reply reused for another text with the same
   * content (a changed document's unchanged chunk) is derived from that text as well. Does nothing without an entry.
   */
  addSources(key: string, sources: readonly string[]): Promise<void>;
}
