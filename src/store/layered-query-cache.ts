import { ByteBudgetLru } from '../core/byte-budget-lru.js';
import type { CachedChat, LlmResponseCache } from '../providers/llm/llm-response-cache.js';

/**
 * 16 MB of query replies per open workspace in memory: a few thousand answers, in front of the durable copy, which
 * holds them all. The least recently used go first.
 */
export const queryCacheMemoryBytes = 16 * 1024 * 1024;

/** Where a workspace keeps its query replies durably (a state file, a table). */
export interface DurableQueryCache {
  get(key: string): Promise<CachedChat | undefined> | CachedChat | undefined;
  set(key: string, value: CachedChat, createdAt: string): Promise<void> | void;
}

/** A reply's size in memory: its text and key at 2 bytes a character, and the record around them. */
function cachedChatBytes(value: CachedChat, key: string): number {
  return 2 * (value.text.length + key.length + value.modelId.length) + 256;
}

/**
 * The query cache of a workspace: replies in a memory cache bounded by bytes, in front of the durable copy. A
 * durable copy that cannot be read or written (a busy or read-only file, a read-only role, a server gone) costs
 * only the cache: a reply still stays in memory for this process. `clearMemory` empties the memory layer and returns
 * how many replies it held.
 */
export function layeredQueryCache(durable: DurableQueryCache, now: () => Date): LlmResponseCache & { clearMemory(): number } {
  const memory = new ByteBudgetLru<string, CachedChat>({ maxBytes: queryCacheMemoryBytes, sizeOf: cachedChatBytes });
  return {
    async get(key) {
      const hit = memory.get(key);
      if (hit !== undefined) return hit;
      try {
        return await durable.get(key);
      } catch {
        return undefined;
      }
    },
    async set(key, value) {
      memory.set(key, value);
      try {
        await durable.set(key, value, now().toISOString());
      } catch {
        // The reply stays cached in memory for this process.
      }
    },
    // Query replies keep no source tags: a delete clears the whole query cache.
    async addSources() {},
    clearMemory() {
      const held = memory.size;
      memory.clear();
      return held;
    },
  };
}
