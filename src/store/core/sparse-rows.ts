import type { VectorItem, VectorMatrix } from '../store.js';
import { nonZerosOf } from '../vector-items.js';
import { positionsOf } from '../../core/positions-of.js';

/*
 * The sparse layout's rows, as every backend handles them between reading its postings and writing them again: a
 * write merges the new vectors into the space's rows (keeping each stored row's position), a delete keeps the rest,
 * and `load` spreads the rows into a dense matrix. The drivers only read and write the postings.
 */

/** A space's vectors as compressed sparse rows in vid order, with their ids. */
export interface SparseRows {
  ids: string[];
  rowPointers: Int32Array;
  columnIndices: Int32Array;
  values: Float32Array;
}

/** One row's non-zero coordinates, ascending, and their values. */
export interface SparseRow {
  columns: ArrayLike<number>;
  values: ArrayLike<number>;
}

/** Rows `rows` (all when omitted) of `current` as views, in the order given. */
export function sparseRowsAt(current: SparseRows, rows?: readonly number[]): SparseRow[] {
  const at = (row: number): SparseRow => {
    const start = current.rowPointers[row] as number;
    const end = current.rowPointers[row + 1] as number;
    return { columns: current.columnIndices.subarray(start, end), values: current.values.subarray(start, end) };
  };
  return rows === undefined ? current.ids.map((_, row) => at(row)) : rows.map(at);
}

/**
 * The rows after writing `items`: a stored id's row is replaced where it stands, new ids are appended in the order
 * given (`added`, each once), so positions of existing rows do not move.
 */
export function mergeSparseRows(current: SparseRows, items: readonly VectorItem[]): { rows: SparseRow[]; added: string[] } {
  const position = positionsOf(current.ids);
  const rows = sparseRowsAt(current);
  // The dense items' non-zeros in one pair of arrays (a typed array per row costs more to allocate than to fill).
  let total = 0;
  for (const { vector } of items) if (vector instanceof Float32Array) for (let coordinate = 0; coordinate < vector.length; coordinate++) if (vector[coordinate] !== 0) total++;
  const allColumns = new Int32Array(total);
  const allValues = new Float32Array(total);
  let entry = 0;
  const added: string[] = [];
  for (const item of items) {
    const { vector } = item;
    let row: SparseRow;
    if (vector instanceof Float32Array) {
      const start = entry;
      for (let coordinate = 0; coordinate < vector.length; coordinate++) {
        const value = vector[coordinate] as number;
        if (value === 0) continue;
        allColumns[entry] = coordinate;
        allValues[entry++] = value;
      }
      row = { columns: allColumns.subarray(start, entry), values: allValues.subarray(start, entry) };
    } else {
      row = nonZerosOf(vector);
    }
    const existing = position.get(item.id);
    if (existing !== undefined) {
      rows[existing] = row;
      continue;
    }
    position.set(item.id, rows.length);
    added.push(item.id);
    rows.push(row);
  }
  return { rows, added };
}

/** The rows left after deleting `ids`, or undefined when none of them is stored. */
export function sparseRowsWithout(current: SparseRows, ids: readonly string[]): SparseRow[] | undefined {
  const removed = new Set(ids);
  const kept = current.ids.flatMap((id, row) => (removed.has(id) ? [] : [row]));
  return kept.length === current.ids.length ? undefined : sparseRowsAt(current, kept);
}

/** The rows of `ids` (all when omitted), in vid order, as a dense matrix. */
export function denseMatrixOfSparseRows(all: SparseRows, dimensions: number, ids?: readonly string[]): VectorMatrix {
  const wanted = ids === undefined ? undefined : new Set(ids);
  const rows = all.ids.flatMap((id, row) => (wanted === undefined || wanted.has(id) ? [row] : []));
  const matrix = new Float32Array(rows.length * dimensions);
  rows.forEach((row, index) => {
    for (let entry = all.rowPointers[row] as number; entry < (all.rowPointers[row + 1] as number); entry++) {
      matrix[index * dimensions + (all.columnIndices[entry] as number)] = all.values[entry] as number;
    }
  });
  return { ids: rows.map((row) => all.ids[row] as string), dimensions, matrix };
}
