import type { Store } from './store.js';

/**
 * Deletes every LLM cache entry of `store` tagged with any of `sources` (content hashes of texts, as requests name
 * them in `ChatRequest.sources`), then all of their tags; returns how many entries it deleted. Each step is one
 * statement, so a crash between them leaves only tags, which the next call with the same sources deletes.
 * A deleted document's replies go this way: pass the hashes of the chunk texts that no remaining document still
 * has, since an identical chunk of another document shares the entries (the key is the prompt, not the document).
 */
export async function forgetCachedCalls(store: Store, sources: readonly string[]): Promise<number> {
  if (sources.length === 0) return 0;
  const tagged = await store.table('llmCacheSources').pick(['key'], { column: 'source', values: [...new Set(sources)] });
  const keys = [...new Set(tagged.map((row) => row.key))];
  if (keys.length === 0) return 0;
  const removed = await store.table('llmCache').deleteWhere('key', keys);
  await store.table('llmCacheSources').deleteWhere('key', keys);
  return removed;
}
