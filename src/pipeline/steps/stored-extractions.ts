import type { ExtractionRecord } from '../../core/types.js';
import type { Store } from '../../store/store.js';

/** What an extraction step finds stored: the replies it can reuse, and the records it must delete. */
export interface StoredExtractions {
  /** Records of the current prompts and settings, by chunk id, for chunks the index holds. */
  reusable: Map<string, ExtractionRecord>;
  /** Ids of the extractor's other records: of other prompts or settings, or of chunks that are gone. */
  staleIds: string[];
}

/**
 * The stored replies of one extractor. A record of a chunk the index no longer holds is stale even with the current
 * prompts: a deleted document's extractions must go with it, and its replies must not be merged into the graph.
 */
export async function storedExtractions(store: Store, extractor: string, promptHash: string, chunkIds: ReadonlySet<string>): Promise<StoredExtractions> {
  const reusable = new Map<string, ExtractionRecord>();
  const staleIds: string[] = [];
  for (const record of await store.table('extractions').where('extractor', [extractor])) {
    if (record.promptHash === promptHash && chunkIds.has(record.chunkId)) reusable.set(record.chunkId, record);
    else staleIds.push(record.id);
  }
  return { reusable, staleIds };
}
