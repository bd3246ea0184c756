import type { CachedChat, LlmResponseCache } from '../providers/llm/llm-response-cache.js';
import type { Store } from './store.js';

/** Options of {@link createStoreLlmCache}. */
export interface StoreLlmCacheOptions {
  now?: () => Date;
  /** Tags added to every entry stored, besides the request's sources (the single-store workspace marks its query calls). */
  sources?: readonly string[];
}

/**
 * The LLM response cache on the workspace's `llm_cache` table: a rerun after a crash, or a rebuild
 * with changed later steps, replays paid calls for free. Each entry commits on its own, outside any
 * step transaction, so a killed run keeps every answer it paid for. An entry's source tags live in
 * `llm_cache_sources` and are written before it, so that no entry is ever stored untagged (a crash between the two
 * leaves tags without an entry, which `forgetCachedCalls` deletes with the rest); `forgetCachedCalls` deletes
 * entries by tag. Each write is one statement: calls finish concurrently, and one connection's transactions must not
 * interleave.
 */
export function createStoreLlmCache(store: Store, options: StoreLlmCacheOptions = {}): LlmResponseCache {
  const now = options.now ?? (() => new Date());
  const fixedSources = options.sources ?? [];
  const table = store.table('llmCache');
  const tags = store.table('llmCacheSources');
  const rowsOf = (key: string, sources: readonly string[]): Array<{ key: string; source: string }> =>
    [...new Set(sources)].map((source) => ({ key, source }));
  return {
    async get(key) {
      const [row] = await table.get([key]);
      return row ? (row.response as CachedChat) : undefined;
    },
    async set(key, value, sources = []) {
      await tags.upsert(rowsOf(key, [...fixedSources, ...sources]));
      await table.upsert([{ key, model: value.modelId, response: value, usage: value.usage, createdAt: now().toISOString() }]);
    },
    async addSources(key, sources) {
      if (sources.length === 0 || (await table.pick(['key'], { column: 'key', values: [key] })).length === 0) return;
      await tags.upsert(rowsOf(key, sources));
    },
  };
}
