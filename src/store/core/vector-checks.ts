import { KgragError } from '../../core/errors.js';
import type { VectorItem, VectorSpaceInfo } from '../store.js';
import { dimensionsOf } from '../vector-items.js';

/*
 * The checks every backend makes of the vectors it is given, with the errors users see, worded once.
 */

/** The one dimension of `items` (0 when empty). @throws KgragError `STORE_VECTOR_DIMENSION` when they differ. */
export function uniformDimensions(items: readonly VectorItem[]): number {
  const dimensions = items[0] === undefined ? 0 : dimensionsOf(items[0].vector);
  for (const item of items) {
    if (dimensionsOf(item.vector) !== dimensions) {
      throw new KgragError(`vector of "${item.id}" has ${dimensionsOf(item.vector)} dimensions, expected ${dimensions}`, {
        code: 'STORE_VECTOR_DIMENSION',
        category: 'internal',
      });
    }
  }
  return dimensions;
}

/** @throws KgragError `STORE_VECTOR_SPACE_MISMATCH` when a stored space was made by another embedder or dimension. */
export function assertSameEmbedder(space: string, info: VectorSpaceInfo | undefined, embedderId: string, dimensions: number): void {
  if (!info || (info.dimensions === dimensions && info.embedderId === embedderId)) return;
  throw new KgragError(`the ${space} vectors were made by "${info.embedderId}" (${info.dimensions} dimensions), not "${embedderId}" (${dimensions})`, {
    code: 'STORE_VECTOR_SPACE_MISMATCH',
    category: 'config',
    hint: 'the embeddings configuration changed since indexing; re-run `kgrag index` to re-embed, or restore the old embeddings settings',
    details: { space, stored: { embedderId: info.embedderId, dimensions: info.dimensions }, given: { embedderId, dimensions } },
  });
}

/**
 * @throws KgragError `STORE_VECTOR_SPACE_MISMATCH` when `queries` is not `count` vectors of the space's dimension (one
 * search query when `count` is omitted).
 */
export function assertQueryShape(space: string, info: VectorSpaceInfo, queries: Float32Array, count?: number): void {
  if (queries.length === (count ?? 1) * info.dimensions) return;
  const detail =
    count === undefined
      ? `query vector has ${queries.length} dimensions, the ${space} index has ${info.dimensions}`
      : `${count} query vectors of ${info.dimensions} dimensions expected for the ${space} vectors, got ${queries.length} numbers`;
  throw new KgragError(detail, {
    code: 'STORE_VECTOR_SPACE_MISMATCH',
    category: 'config',
    hint: 'the embeddings configuration changed since indexing; re-run `kgrag index` to re-embed',
  });
}
