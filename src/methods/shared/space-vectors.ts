import { KgragError } from '../../core/errors.js';
import type { SimilarityIndex } from '../../math/similarity-index.js';
import { rowsOf, type StoredRowMap } from '../../store/row-map.js';
import type { Store, VectorSpace } from '../../store/store.js';
import { positionsOf } from '../../core/positions-of.js';

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
  const rowOf = positionsOf(ids);
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

/** Exact scores of queries against a whole space, rows in a caller's order. */
export interface SpaceScorer {
  readonly rows: number;
  readonly dimensions: number;
  /** `out[q · rows + r]` = cosine of query q with the caller's row r (0 for a row without a vector). */
  scoreMany(queries: Float32Array, count: number): Promise<Float32Array>;
}

/**
 * Scores `space` for rows `ids` (undefined while the space is empty). Scoring goes through the store
 * (`VectorIndex.scoreMany`): a sparse space reads only the postings of the queries' coordinates, so a cold
 * process never loads the space, and the store keeps what it read for the next query. `rowMap`, when it
 * matches the space's revision, maps stored rows to the caller's without reading and matching the ids.
 */
export async function spaceScorer(store: Store, space: VectorSpace, wanted: readonly string[] | RowIds, rowMap?: StoredRowMap): Promise<SpaceScorer | undefined> {
  const { rows, ids } = Array.isArray(wanted) ? { rows: wanted.length, ids: () => wanted } : (wanted as RowIds);
  const vectors = store.vectors(space);
  const info = await vectors.info();
  if (!info || rows === 0) return undefined;
  let mapping: StoredRowMap | undefined = rowMap;
  let identity: { revision: number; same: boolean } | undefined;
  return {
    rows,
    dimensions: info.dimensions,
    async scoreMany(queries, count) {
      const scored = await vectors.scoreMany(queries, count);
      if (mapping?.revision !== scored.revision) mapping = { revision: scored.revision, rows: rowsOf(await vectors.ids(), ids()) };
      if (identity?.revision !== mapping.revision) identity = { revision: mapping.revision, same: scored.rows === rows && isIdentity(mapping.rows) };
      // The stored order is the caller's (the local embedder writes a space in the caller's order): no copy.
      if (identity.same) return scored.scores;
      const target = mapping.rows;
      const out = new Float32Array(count * rows);
      for (let query = 0; query < count; query++) {
        const from = query * scored.rows;
        const to = query * rows;
        for (let stored = 0; stored < scored.rows; stored++) {
          const row = target[stored] as number;
          if (row >= 0) out[to + row] = scored.scores[from + stored] as number;
        }
      }
      return out;
    },
  };
}

function isIdentity(rows: Int32Array): boolean {
  for (let row = 0; row < rows.length; row++) if (rows[row] !== row) return false;
  return true;
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
