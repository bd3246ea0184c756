import type { VectorIndex, VectorItem } from './store.js';

/**
 * Deletes `removed` from `index` and upserts `items`: through the backend's own `VectorIndex.replace` when it has one
 * (which may give new ids the places of removed ones), else as an upsert and then a deletion, in insertion order.
 */
export async function replaceVectors(index: VectorIndex, removed: readonly string[], items: readonly VectorItem[], embedderId: string): Promise<void> {
  if (index.replace !== undefined) return index.replace(removed, items, embedderId);
  await index.upsert(items, embedderId);
  await index.delete(removed);
}
