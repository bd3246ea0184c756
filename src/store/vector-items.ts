import type { SparseVector } from '../providers/embed/embedder.js';
import { sparseLayoutMaxDensity, type VectorItem, type VectorLayout } from './store.js';

/*
 * What every backend does alike with the vectors it is given: their dimension, their non-zero entries, their dense
 * form, and the layout a new space takes from its first vectors.
 */

/** The layout of a new space: sparse when at most {@link sparseLayoutMaxDensity} of the first vectors' coordinates are non-zero. */
export function chooseLayout(items: readonly VectorItem[], dimensions: number): VectorLayout {
  let nonZeros = 0;
  for (const { vector } of items) {
    if (vector instanceof Float32Array) {
      for (let index = 0; index < vector.length; index++) if (vector[index] !== 0) nonZeros++;
    } else {
      nonZeros += nonZerosOf(vector).columns.length;
    }
  }
  return nonZeros <= sparseLayoutMaxDensity * items.length * dimensions ? 'sparse' : 'dense';
}

/** A dense or sparse vector's dimension. */
export function dimensionsOf(vector: Float32Array | SparseVector): number {
  return vector instanceof Float32Array ? vector.length : vector.dimensions;
}

/** A sparse vector's non-zero entries (an explicit zero value stores as nothing, as in a dense vector). */
export function nonZerosOf(vector: SparseVector): { columns: ArrayLike<number>; values: ArrayLike<number> } {
  if (!vector.values.includes(0)) return vector;
  const keep = [...vector.values.keys()].filter((entry) => vector.values[entry] !== 0);
  return { columns: Int32Array.from(keep, (entry) => vector.columns[entry] as number), values: Float32Array.from(keep, (entry) => vector.values[entry] as number) };
}

/** A vector as all its coordinates (the same array when it is dense already). */
export function denseOf(vector: Float32Array | SparseVector): Float32Array {
  if (vector instanceof Float32Array) return vector;
  const dense = new Float32Array(vector.dimensions);
  for (let entry = 0; entry < vector.columns.length; entry++) dense[vector.columns[entry] as number] = vector.values[entry] as number;
  return dense;
}

/** Whether every non-zero coordinate of the queries has its postings among those a sparse space holds in memory. */
export function hasPostings(postings: ReadonlyMap<number, unknown>, queries: Float32Array, count: number, dimensions: number): boolean {
  if (queries.length !== count * dimensions) return false;
  for (let position = 0; position < queries.length; position++) if (queries[position] !== 0 && !postings.has(position % dimensions)) return false;
  return true;
}

/** A row-major dense matrix as compressed sparse rows (what `loadSparse` returns of a dense space). */
export function sparseRowsOfDense(matrix: Float32Array, rows: number, dimensions: number): { rowPointers: Int32Array; columnIndices: Int32Array; values: Float32Array } {
  const rowPointers = new Int32Array(rows + 1);
  for (let row = 0; row < rows; row++) {
    let nonZeros = 0;
    for (let at = row * dimensions; at < (row + 1) * dimensions; at++) if (matrix[at] !== 0) nonZeros++;
    rowPointers[row + 1] = (rowPointers[row] as number) + nonZeros;
  }
  const columnIndices = new Int32Array(rowPointers[rows] as number);
  const values = new Float32Array(columnIndices.length);
  let entry = 0;
  for (let at = 0; at < rows * dimensions; at++) {
    const value = matrix[at] as number;
    if (value === 0) continue;
    columnIndices[entry] = at % dimensions;
    values[entry++] = value;
  }
  return { rowPointers, columnIndices, values };
}
