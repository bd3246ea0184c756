import { forgetCachedCalls } from './forget-cached-calls.js';
import { generationMetaKeys } from './generation-meta-keys.js';
import { createStoreLlmCache } from './store-llm-cache.js';
import type { Store } from './store.js';
import type { IndexSnapshot, WorkspaceStorage, WriteSession } from './workspace-storage.js';

const { generation: generationKey, publishedAt: publishedAtKey } = generationMetaKeys;
/** The tag of query-time replies, which share the store's `llm_cache` with the index's (not a content hash, so never a text's). */
const queryCallSource = 'kgrag:query';

/**
 * A workspace over one store that a caller opened (an in-memory store in tests, a custom backend): writes go
 * straight into the store that queries read, so there is no isolation between them, and writers in this
 * process take turns. A store counts as published once it holds a completed run. Query-time replies are cached in
 * the store's `llm_cache` with the tag `kgrag:query`, so that they can be cleared apart from the index's.
 */
export function singleStoreWorkspace(store: Store, now: () => Date = () => new Date()): WorkspaceStorage {
  let turn: Promise<void> = Promise.resolve();

  const snapshot = async (): Promise<IndexSnapshot | undefined> => {
    const generation = await store.getMeta<number>(generationKey);
    const hasRuns = generation !== undefined || (await store.table('runs').count()) > 0;
    if (!hasRuns) return undefined;
    return { store, generation: generation ?? 0, publishedAt: (await store.getMeta<string>(publishedAtKey)) ?? null, release: () => undefined };
  };

  return {
    location: 'the given store',
    snapshot,
    queryCache: createStoreLlmCache(store, { now, sources: [queryCallSource] }),
    clearQueryCache: () => forgetCachedCalls(store, [queryCallSource]),
    async beginWrite(): Promise<WriteSession> {
      const previous = turn;
      let endTurn = (): void => undefined;
      turn = new Promise((resolve) => {
        endTurn = resolve;
      });
      await previous;
      const generation = ((await store.getMeta<number>(generationKey)) ?? 0) + 1;
      return {
        store,
        generation,
        resumed: false,
        async publish() {
          await store.setMeta(generationKey, generation);
          await store.setMeta(publishedAtKey, now().toISOString());
        },
        async discard() {},
        // Writes go straight into what queries read: there is no unpublished state to report.
        async recordDeletion() {},
        async end() {
          endTurn();
        },
      };
    },
    async status() {
      const published = await snapshot();
      return { generation: published?.generation, publishedAt: published?.publishedAt ?? null, writer: undefined, unpublished: undefined };
    },
    async close() {},
  };
}
