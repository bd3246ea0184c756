import { sha256 } from '../../core/ids.js';
import type { Store } from '../../store/store.js';

/** The content hashes of the workspace's chunk texts, to name an LLM call's sources (`ChatRequest.sources`). */
export interface ChunkTextHashes {
  /** The distinct hashes of the texts of `chunkIds`, sorted; unknown ids are skipped. */
  of(chunkIds: Iterable<string>): string[];
}

/**
 * Hashes every chunk's text once. A call whose prompt is built from what was extracted from chunks (descriptions,
 * entity names) names those chunks' hashes, so that its cached reply goes when any of them is deleted.
 */
export async function chunkTextHashes(store: Store): Promise<ChunkTextHashes> {
  const hashOf = new Map<string, string>();
  for (const chunk of await store.table('chunks').pick(['id', 'text'])) hashOf.set(chunk.id, sha256(chunk.text));
  return {
    of(chunkIds) {
      const hashes = new Set<string>();
      for (const id of chunkIds) {
        const hash = hashOf.get(id);
        if (hash !== undefined) hashes.add(hash);
      }
      return [...hashes].sort();
    },
  };
}
