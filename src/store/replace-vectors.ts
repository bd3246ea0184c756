import type { VectorIndex, VectorItem } from './store.js';

/**
 * Upserts `items` into `index` and deletes `removed`. Through the backend's own `VectorIndex.replace` when it has one
 * (which may give new ids the places of removed ones) unless `keepsRowOrder`; else as an upsert and then a deletion,
 * which keeps insertion order. Replacements go first: in a draft, a sparse space keeps them in its tails, and the
 * deletion's one rewrite of the posting lists then drops their old entries with the deleted rows' (not two rewrites).
 */
export async function replaceVectors(
  index: VectorIndex,
  removed: readonly string[],
  items: readonly VectorItem[],
  embedderId: string,
  { keepsRowOrder = false }: { keepsRowOrder?: boolean } = {},
): Promise<void> {
  if (!keepsRowOrder && index.replace !== undefined) return index.replace(removed, items, embedderId);
  await index.upsert(items, embedderId);
  await index.delete(removed);
}
