import { positionsOf } from '../core/positions-of.js';

/**
 * Row `i` of a vector space's stored order (`VectorIndex.ids()`) → a caller's row, or −1; valid while the
 * space's revision is `revision` (`VectorSpaceInfo.revision`). An index step that knows both orders stores it,
 * so a query need not read and match tens of thousands of ids.
 */
export interface StoredRowMap {
  revision: number;
  rows: Int32Array;
}

/** Stored ids → the caller's rows for `ids` (−1 for stored ids it does not list). */
export function rowsOf(stored: readonly string[], ids: readonly string[]): Int32Array {
  const rowOf = positionsOf(ids);
  return Int32Array.from(stored, (id) => rowOf.get(id) ?? -1);
}
