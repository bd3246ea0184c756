import type { VectorMatrix } from './store.js';

/**
 * The vectors of `ids`, in that order, as one row-major matrix; a row of an id without a vector is zeros. The loaded
 * matrix itself when it already holds exactly those ids in that order (a space written in chunk order, as the embed
 * steps write it), so a step over 100,000 chunk vectors does not hold two copies of them. With `inPlace` the caller
 * gives `loaded` up: when `ids` are some of its ids in its order (a graph that left a few chunks out), its rows move up
 * within its matrix instead of into a new one (25 MB for 2Wiki's chunks, whose fresh pages cost more than the copy).
 */
export function matrixInRowOrder(loaded: VectorMatrix, ids: readonly string[], options: { inPlace?: boolean } = {}): Float32Array {
  const { dimensions } = loaded;
  if (loaded.ids.length === ids.length && loaded.ids.every((id, row) => id === ids[row])) return loaded.matrix;
  if (options.inPlace === true) {
    const moved = keptRowsMovedUp(loaded, ids);
    if (moved !== undefined) return moved;
  }
  const rowOf = new Map(ids.map((id, row) => [id, row]));
  const matrix = new Float32Array(ids.length * dimensions);
  loaded.ids.forEach((id, row) => {
    const target = rowOf.get(id);
    if (target !== undefined) matrix.set(loaded.matrix.subarray(row * dimensions, (row + 1) * dimensions), target * dimensions);
  });
  return matrix;
}

/** The rows of `ids` moved up within `loaded.matrix`, when `ids` are some of `loaded.ids` in their order; else undefined. */
function keptRowsMovedUp(loaded: VectorMatrix, ids: readonly string[]): Float32Array | undefined {
  const { dimensions, matrix } = loaded;
  const sources = new Int32Array(ids.length);
  let row = 0;
  for (let target = 0; target < ids.length; target++) {
    while (row < loaded.ids.length && loaded.ids[row] !== ids[target]) row++;
    if (row === loaded.ids.length) return undefined;
    sources[target] = row++;
  }
  // A row never moves down, so copying in order never overwrites a row still to be read; runs move in one copy.
  let target = 0;
  while (target < ids.length) {
    const source = sources[target] as number;
    let end = target + 1;
    while (end < ids.length && sources[end] === source + (end - target)) end++;
    if (source !== target) matrix.copyWithin(target * dimensions, source * dimensions, (source + end - target) * dimensions);
    target = end;
  }
  return matrix.subarray(0, ids.length * dimensions);
}
