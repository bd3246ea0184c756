import type { VectorMatrix } from './store.js';
import { positionsOf } from '../core/positions-of.js';

/**
 * The vectors of `ids`, in that order, as one row-major matrix; a row of an id without a vector is zeros. The loaded
 * matrix itself when it already holds exactly those ids in that order (a space written in chunk order, as the embed
 * steps write it), so a step over 100,000 chunk vectors does not hold two copies of them. Never changes `loaded`, whose
 * matrix a store may hand to every load of the space (`VectorIndex.load`).
 */
export function matrixInRowOrder(loaded: VectorMatrix, ids: readonly string[]): Float32Array {
  const { dimensions } = loaded;
  if (loaded.ids.length === ids.length && loaded.ids.every((id, row) => id === ids[row])) return loaded.matrix;
  const rowOf = positionsOf(ids);
  const matrix = new Float32Array(ids.length * dimensions);
  loaded.ids.forEach((id, row) => {
    const target = rowOf.get(id);
    if (target !== undefined) matrix.set(loaded.matrix.subarray(row * dimensions, (row + 1) * dimensions), target * dimensions);
  });
  return matrix;
}
