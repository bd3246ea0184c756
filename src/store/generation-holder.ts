import type { Store } from './store.js';
import type { IndexSnapshot } from './workspace-storage.js';

/** A published generation as a storage opened it. */
export interface OpenedGeneration<Key> {
  store: Store;
  generation: number;
  publishedAt: string | null;
  /** What identifies it, when known better after opening than before (a file's identity once it is open). */
  key?: Key;
}

/** The one open published generation of a workspace storage, shared by the queries that read it. */
export interface GenerationHolder<Key> {
  /**
   * A snapshot of the generation identified by `key`: the open one when it is that one, else the one `open` opens,
   * which replaces it. A replaced generation closes when its last snapshot is released.
   */
  hold(key: Key, open: () => Promise<OpenedGeneration<Key>>): Promise<IndexSnapshot>;
  /** Lets go of the open generation (it closes once no snapshot holds it), e.g. when the storage closes. */
  retire(): void;
}

interface Held<Key> extends OpenedGeneration<Key> {
  key: Key;
  users: number;
  superseded: boolean;
}

/** Keeps one published generation open for as long as a query reads it or no newer one is published. */
export function createGenerationHolder<Key>(): GenerationHolder<Key> {
  let current: Held<Key> | undefined;
  /**
   * The generation being opened: queries that ask for it meanwhile wait for the same opening. Two openings of one
   * generation made two stores, the second superseding the first while queries read it; a reader that kept something
   * of the first (a method's memo) then read a closed store.
   */
  let opening: { key: Key; waiters: number; held: Promise<Held<Key>> } | undefined;
  const closeIfUnused = (held: Held<Key>): void => {
    if (held.superseded && held.users === 0) void held.store.close();
  };
  const retire = (): void => {
    if (!current) return;
    current.superseded = true;
    closeIfUnused(current);
    current = undefined;
  };
  return {
    async hold(key, open) {
      let held: Held<Key>;
      if (current && current.key === key) {
        held = current;
        held.users++;
      } else if (opening && opening.key === key) {
        // Counted before the wait: the generation cannot close between its opening and this query's turn.
        opening.waiters++;
        held = await opening.held;
      } else {
        const record: { key: Key; waiters: number; held: Promise<Held<Key>> } = { key, waiters: 1, held: Promise.resolve(undefined as never) };
        record.held = open().then((opened) => {
          retire();
          current = { ...opened, key: opened.key ?? key, users: record.waiters, superseded: false };
          return current;
        });
        opening = record;
        try {
          held = await record.held;
        } finally {
          if (opening === record) opening = undefined;
        }
      }
      let released = false;
      return {
        store: held.store,
        generation: held.generation,
        publishedAt: held.publishedAt,
        release() {
          if (released) return;
          released = true;
          held.users--;
          closeIfUnused(held);
        },
      };
    },
    retire,
  };
}
