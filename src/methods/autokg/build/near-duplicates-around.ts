import type { CooperativeTask } from '../../../core/cooperative-task.js';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import { nearDuplicateRowsTask } from '../../../math/near-duplicate-rows.js';
import { ResidentMatrix } from '../../../math/wasm/resident-matrix.js';

/** Rows of a tile, 1 MB of 1,024-dimensional vectors, which stays in cache while the candidates are scored against it. */
const rowsPerTile = 256;

/** Candidates scored per kernel call, which bounds its scratch memory. */
const candidatesPerCall = 256;

/**
 * The kernel scores in float32 and `nearDuplicateRows` in float64: rows this much farther than the distance are taken
 * in too, so that no pair the exact check finds is missed (taking in more rows changes nothing, see below).
 */
export const scoreSlack = 1e-3;

/**
 * `nearDuplicateRows` of the whole matrix when every pair of rows within `maxCosineDistance` has one row among
 * `candidates`: an update passes the rows left out before and the new rows, since of two kept rows within the distance
 * the one visited later would have been left out. Only the candidates and the rows near them are searched (with the
 * same check, on those rows in input order), which gives the same choice as a search of all rows: every other row has
 * no row within the distance, and the rows searched have all theirs among them. Cost: the candidates times all rows.
 * @returns `duplicateOf[row]` of every input row, as `nearDuplicateRows` returns it.
 */
export function* nearDuplicatesAroundTask(vectors: DenseMatrix, lengths: ArrayLike<number>, maxCosineDistance: number, candidates: readonly number[]): CooperativeTask<Int32Array> {
  const { rows, cols } = vectors;
  const duplicateOf = new Int32Array(rows).fill(-1);
  if (candidates.length === 0 || rows < 2 || cols === 0) return duplicateOf;
  const searched = new Uint8Array(rows);
  const resident = ResidentMatrix.load(vectors);
  const floor = 1 - maxCosineDistance - scoreSlack;
  const queries = Int32Array.from(candidates);
  for (const candidate of candidates) searched[candidate] = 1;
  // Every candidate against a tile of rows at a time: the tile is read once for all of them, not once per candidate.
  for (let start = 0; start < rows; start += rowsPerTile) {
    const tileRows = Math.min(rowsPerTile, rows - start);
    const rowIndices = Int32Array.from({ length: tileRows }, (_, offset) => start + offset);
    for (let first = 0; first < queries.length; first += candidatesPerCall) {
      const count = Math.min(candidatesPerCall, queries.length - first);
      // A view of the kernel's scratch memory: read before the next call.
      const scores = resident.scoreRowSets(queries.subarray(first), count, rowIndices, tileRows);
      for (let entry = 0; entry < count * tileRows; entry++) if ((scores[entry] as number) >= floor) searched[start + (entry % tileRows)] = 1;
    }
    yield;
  }
  const subset: number[] = [];
  searched.forEach((flag, row) => {
    if (flag === 1) subset.push(row);
  });
  const data = new Float32Array(subset.length * cols);
  subset.forEach((row, index) => data.set(vectors.data.subarray(row * cols, (row + 1) * cols), index * cols));
  const found = yield* nearDuplicateRowsTask(data, subset.length, cols, Float64Array.from(subset, (row) => lengths[row] as number), maxCosineDistance);
  found.forEach((twin, index) => {
    if (twin >= 0) duplicateOf[subset[index] as number] = subset[twin] as number;
  });
  return duplicateOf;
}
