import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../core/random.js';
import { nearDuplicateRows } from './near-duplicate-rows.js';

/** The definition, over every pair: a row visited by length (then index) is dropped for the lowest kept row it nearly equals. */
function bruteForce(matrix: Float32Array, rows: number, dimensions: number, lengths: readonly number[], maxCosineDistance: number): Int32Array {
  const near = Array.from({ length: rows }, () => [] as number[]);
  for (let a = 0; a < rows; a++) {
    for (let b = a + 1; b < rows; b++) {
      let dot = 0;
      for (let dim = 0; dim < dimensions; dim++) dot += matrix[a * dimensions + dim]! * matrix[b * dimensions + dim]!;
      if (1 - dot < maxCosineDistance) {
        near[a]!.push(b);
        near[b]!.push(a);
      }
    }
  }
  const duplicateOf = new Int32Array(rows).fill(-1);
  const kept = new Uint8Array(rows);
  const order = Array.from({ length: rows }, (_, row) => row).filter((row) => near[row]!.length > 0).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  for (const row of order) {
    const keeper = near[row]!.filter((other) => kept[other] === 1).sort((a, b) => a - b)[0];
    if (keeper === undefined) kept[row] = 1;
    else duplicateOf[row] = keeper;
  }
  return duplicateOf;
}

test('nearDuplicateRows finds exactly the near-duplicates an all-pairs scan finds, on sparse vectors in a narrow band', () => {
  const random = createRandom(9);
  const rows = 900;
  const dimensions = 96;
  const matrix = new Float32Array(rows * dimensions);
  for (let row = 0; row < rows; row++) {
    // Every fourth row is a copy of an earlier row, exact or moved by a little noise; the rest are sparse and positive,
    // so that they all project close together on the mean direction.
    const source = row % 4 === 3 ? Math.floor(random() * row) : -1;
    let norm = 0;
    for (let dim = 0; dim < dimensions; dim++) {
      const value = source >= 0 ? matrix[source * dimensions + dim]! + (row % 8 === 7 ? 1e-4 * random() : 0) : random() < 0.3 ? random() : 0;
      matrix[row * dimensions + dim] = value;
      norm += value * value;
    }
    norm = Math.sqrt(norm) || 1;
    for (let dim = 0; dim < dimensions; dim++) matrix[row * dimensions + dim]! /= norm;
  }
  const lengths = Array.from({ length: rows }, () => Math.floor(random() * 5));
  for (const maxCosineDistance of [1e-6, 1e-3]) {
    const found = nearDuplicateRows(matrix, rows, dimensions, lengths, maxCosineDistance);
    assert.deepEqual(found, bruteForce(matrix, rows, dimensions, lengths, maxCosineDistance));
    assert.ok(found.some((keeper) => keeper >= 0), 'the planted copies are found');
  }
});
