import { sha256 } from '../core/ids.js';
import { forgetCachedCalls } from '../store/forget-cached-calls.js';
import type { Store } from '../store/store.js';

/** Meta key of the chunk-text hashes whose cached LLM replies a `delete --keep-cache` kept. */
const keptCacheSourcesKey = 'llm-cache:kept-sources';

/**
 * Forgets the cached LLM replies tagged with a chunk text the index no longer holds (an unchanged chunk of an edited
 * document keeps its replies), except those an earlier `delete --keep-cache` kept; with `keep`, keeps these ones
 * too instead. Works from what the index holds rather than from what this run removed, so a delete resumed after
 * an interruption forgets as much as an undisturbed one. Returns how many entries it removed.
 */
export async function forgetCachedCallsOfGoneChunks(store: Store, keep: boolean): Promise<number> {
  const tagged = new Set((await store.table('llmCacheSources').pick(['source'])).map((row) => row.source));
  if (tagged.size === 0) return 0;
  for (const chunk of await store.table('chunks').pick(['text'])) tagged.delete(sha256(chunk.text));
  const kept = new Set(await store.getMeta<string[]>(keptCacheSourcesKey));
  // Sources that are not chunk texts (a given store's query replies: `kgrag:query`) are not the index's to forget.
  const gone = [...tagged].filter((source) => !kept.has(source) && !source.includes(':'));
  if (keep) {
    if (gone.length > 0) await store.setMeta(keptCacheSourcesKey, [...kept, ...gone].sort());
    return 0;
  }
  return forgetCachedCalls(store, gone);
}
