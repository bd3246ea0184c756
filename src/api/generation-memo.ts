import { generationMetaKeys } from '../store/generation-meta-keys.js';
import type { Store } from '../store/store.js';

/** Values derived from a store's published index, each built once per generation. */
export interface GenerationMemo<Parts extends Record<string, unknown>> {
  /** The part for the newest generation: built now, or the one built earlier for the same generation. */
  get<K extends keyof Parts & string>(part: K): Promise<Parts[K]>;
}

/**
 * Keeps what was derived from an index (a name table, an adjacency list) while the store's published generation is
 * unchanged, and builds it again once a new one is published. A generation is named by the meta keys every publish
 * writes (its number and time), so reading it is two meta lookups. A part built while a publish happened is
 * returned but not kept: its rows may be of either generation. A store that was never published (rows written by
 * hand) has no generation, and every call builds anew.
 */
export function createGenerationMemo<Parts extends Record<string, unknown>>(
  store: Store,
  builders: { [K in keyof Parts]: () => Promise<Parts[K]> },
): GenerationMemo<Parts> {
  let memo: { key: string; parts: Map<keyof Parts, Promise<unknown>> } | undefined;

  const generationKey = async (): Promise<string | undefined> => {
    const [generation, publishedAt] = await Promise.all([store.getMeta<number>(generationMetaKeys.generation), store.getMeta<string>(generationMetaKeys.publishedAt)]);
    return generation === undefined ? undefined : `${generation}@${publishedAt ?? ''}`;
  };

  return {
    async get(part) {
      const key = await generationKey();
      if (key === undefined) return builders[part]();
      if (memo?.key !== key) memo = { key, parts: new Map() };
      const current = memo;
      const kept = current.parts.get(part) as Promise<Parts[typeof part]> | undefined;
      if (kept) return kept;
      const building = builders[part]().then(async (value) => {
        if ((await generationKey()) !== key) current.parts.delete(part);
        return value;
      });
      current.parts.set(part, building);
      building.catch(() => current.parts.delete(part));
      return building;
    },
  };
}
