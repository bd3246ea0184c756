import { KgragError } from '../core/errors.js';
import { createSimilarityIndex, createSparseSimilarityIndex, type SimilarityIndex } from '../math/similarity-index.js';
import { rowsOf, type StoredRowMap } from '../store/row-map.js';
import type { Store, VectorSpace } from '../store/store.js';

/** The vectors of one space laid out in a caller's row order. */
export interface OrderedVectors {
  /** `ids.length × dimensions`, row-major; a zero row where an id has no vector. */
  data: Float32Array;
  dimensions: number;
  /** No vector stored, or no row asked for. */
  empty: boolean;
}

/**
 * The vectors of `space` with row i = `ids[i]`. The whole space is loaded at once: `load(ids)` costs seconds for
 * tens of thousands of ids, and the methods that call this score every row anyway.
 */
export async function vectorsInOrder(store: Store, space: VectorSpace, ids: readonly string[]): Promise<OrderedVectors> {
  const { ids: stored, dimensions, matrix } = await store.vectors(space).load();
  const rowOf = new Map(ids.map((id, row) => [id, row]));
  const data = new Float32Array(ids.length * dimensions);
  stored.forEach((id, position) => {
    const row = rowOf.get(id);
    if (row !== undefined) data.set(matrix.subarray(position * dimensions, (position + 1) * dimensions), row * dimensions);
  });
  return { data, dimensions, empty: stored.length === 0 || ids.length === 0 };
}

/** The rows a caller wants: how many, and their ids in row order (read only when no stored row map applies). */
export interface RowIds {
  rows: number;
  ids: () => readonly string[];
}

/**
 * The vectors of `space` with row i = `ids[i]`, held for exact scoring, or undefined while empty. A sparse space
 * goes straight from its stored rows into postings (`createSparseSimilarityIndex`), never through a dense
 * matrix; a dense one into the SIMD kernel (`createSimilarityIndex`). `rowMap`, when it matches the space's
 * revision, replaces reading and matching the ids.
 */
export async function loadSimilarityIndex(store: Store, space: VectorSpace, wanted: readonly string[] | RowIds, rowMap?: StoredRowMap): Promise<SimilarityIndex | undefined> {
  const { rows, ids } = Array.isArray(wanted) ? { rows: wanted.length, ids: () => wanted } : (wanted as RowIds);
  const vectors = store.vectors(space);
  const info = await vectors.info();
  if (!info || rows === 0) return undefined;
  if (info.layout === 'dense') {
    const { data, dimensions, empty } = await vectorsInOrder(store, space, ids());
    return empty ? undefined : createSimilarityIndex(rows, dimensions, data);
  }
  let stored = await vectors.loadSparse({ withIds: rowMap?.revision !== info.revision });
  // The map is used only for rows of its own revision; rows written since are matched by id.
  if (rowMap && stored.ids.length === 0 && stored.revision !== rowMap.revision) stored = await vectors.loadSparse();
  if (stored.rowPointers.length === 1) return undefined;
  return createSparseSimilarityIndex(rows, stored.dimensions, stored, rowMap?.revision === stored.revision ? rowMap.rows : rowsOf(stored.ids, ids()));
}

/** A query vector from another embedder than the index's cannot be compared: say so instead of failing in the math. */
export function assertQueryDimensions(space: VectorSpace, dimensions: number, query: Float32Array): void {
  if (query.length === dimensions) return;
  throw new KgragError(`the query vector has ${query.length} dimensions, the "${space}" vectors ${dimensions}`, {
    code: 'QUERY_EMBEDDER_MISMATCH',
    category: 'config',
    hint: 'the embeddings configuration changed since indexing; run `kgrag index` again to re-embed, or restore the old embeddings settings',
  });
}

/** Cosine similarity of `query` with every row of `index` (an empty array without one). */
export function queryScores(space: VectorSpace, index: SimilarityIndex | undefined, query: Float32Array): Float32Array {
  if (!index) return new Float32Array(0);
  assertQueryDimensions(space, index.dimensions, query);
  return index.scoreMany(query, 1);
}
