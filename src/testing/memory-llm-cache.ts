import type { CachedChat, LlmResponseCache } from '../providers/llm/llm-response-cache.js';

/** An in-memory {@link LlmResponseCache} that also exposes its entries (handy in tests). */
export interface MemoryLlmCache extends LlmResponseCache {
  readonly entries: ReadonlyMap<string, CachedChat>;
  /** The source tags of each entry that has any. */
  readonly sources: ReadonlyMap<string, ReadonlySet<string>>;
  /** Deletes every entry tagged with any of `sources`; returns how many were deleted. */
  forget(sources: readonly string[]): number;
}

/** Creates an empty in-memory LLM response cache. */
export function createMemoryLlmCache(): MemoryLlmCache {
  const entries = new Map<string, CachedChat>();
  const tags = new Map<string, Set<string>>();
  const tag = (key: string, sources: readonly string[] | undefined): void => {
    if (sources === undefined || sources.length === 0) return;
    let set = tags.get(key);
    if (set === undefined) tags.set(key, (set = new Set()));
    for (const source of sources) set.add(source);
  };
  return {
    entries,
    sources: tags,
    get: async (key) => {
      const value = entries.get(key);
      return value === undefined ? undefined : structuredClone(value);
    },
    set: async (key, value, sources) => {
      entries.set(key, structuredClone(value));
      tag(key, sources);
    },
    addSources: async (key, sources) => {
      if (entries.has(key)) tag(key, sources);
    },
    forget(sources) {
      const forgotten = new Set(sources);
      let removed = 0;
      for (const [key, set] of tags) {
        if (![...set].some((source) => forgotten.has(source))) continue;
        tags.delete(key);
        if (entries.delete(key)) removed++;
      }
      return removed;
    },
  };
}
