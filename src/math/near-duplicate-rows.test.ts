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

/**
 * Unit rows drawn around a few random directions, with planted copies: exact copies of earlier rows (some of them
 * several times), copies moved by noise below and above the threshold, and a few zero rows (identical, yet not
 * duplicates: their cosine distance to each other is 1).
 */
function plantedRows(rows: number, dimensions: number, seed: number): Float32Array {
  const random = createRandom(seed);
  const matrix = new Float32Array(rows * dimensions);
  for (let row = 0; row < rows; row++) {
    const kind = random();
    const source = row > 0 ? Math.floor(random() * row) : -1;
    let norm = 0;
    for (let dim = 0; dim < dimensions; dim++) {
      let value: number;
      if (row % 17 === 5) value = 0;
      else if (source >= 0 && kind < 0.35) value = matrix[source * dimensions + dim]!;
      else if (source >= 0 && kind < 0.5) value = matrix[source * dimensions + dim]! + (kind < 0.42 ? 2e-5 : 3e-3) * (random() - 0.5);
      else value = random() < 0.4 ? random() : 0;
      matrix[row * dimensions + dim] = value;
      norm += value * value;
    }
    if (norm > 0 && !(source >= 0 && kind < 0.35)) for (let dim = 0; dim < dimensions; dim++) matrix[row * dimensions + dim]! /= Math.sqrt(norm);
  }
  return matrix;
}

test('nearDuplicateRows agrees with the all-pairs definition on rows with planted exact copies, near copies and zero rows', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const rows = 150 + seed * 37;
    const dimensions = 8 + seed * 5;
    const matrix = plantedRows(rows, dimensions, seed);
    const random = createRandom(100 + seed);
    // Few distinct lengths, so that copies of one vector are often visited apart, with other rows between them.
    const lengths = Array.from({ length: rows }, () => Math.floor(random() * 3));
    for (const maxCosineDistance of [1e-6, 1e-4, 2e-2]) {
      const found = nearDuplicateRows(matrix, rows, dimensions, lengths, maxCosineDistance);
      assert.deepEqual(found, bruteForce(matrix, rows, dimensions, lengths, maxCosineDistance), `seed ${seed}, distance ${maxCosineDistance}`);
      for (let row = 0; row < rows; row++) {
        const keeper = found[row]!;
        if (keeper >= 0) assert.equal(found[keeper], -1, `row ${row} points to row ${keeper}, which is kept`);
      }
      assert.deepEqual(nearDuplicateRows(matrix, rows, dimensions, lengths, maxCosineDistance), found, 'the same rows give the same answer');
    }
  }
});

test('nearDuplicateRows does work about linear in the rows when 4,000 rows are one vector, or two near ones', () => {
  const rows = 4000;
  const dimensions = 64;
  const random = createRandom(11);
  const first = Float32Array.from({ length: dimensions }, () => random());
  const second = first.map((value, dim) => value + (dim === 0 ? 1e-5 : 0));
  for (const vectors of [[first], [first, second]]) {
    const matrix = new Float32Array(rows * dimensions);
    for (let row = 0; row < rows; row++) {
      const vector = vectors[row % vectors.length]!;
      let norm = 0;
      for (const value of vector) norm += value * value;
      for (let dim = 0; dim < dimensions; dim++) matrix[row * dimensions + dim] = vector[dim]! / Math.sqrt(norm);
    }
    const lengths = Array.from({ length: rows }, (_, row) => row % 3);
    const work = { pairsVisited: 0, pairsScored: 0, neighbourLookups: 0 };
    const found = nearDuplicateRows(matrix, rows, dimensions, lengths, 1e-6, { work });
    // The row visited first (the lowest of length 0) is kept; every other row points to it.
    assert.equal(found.filter((keeper) => keeper === -1).length, 1);
    assert.equal(found[0], -1);
    assert.ok(found.every((keeper, row) => row === 0 || keeper === 0));
    const total = work.pairsVisited + work.pairsScored + work.neighbourLookups;
    assert.ok(total >= rows - 1, `every row but the first looks for a kept row once: ${JSON.stringify(work)}`);
    assert.ok(total <= 3 * rows, `work ${JSON.stringify(work)} for ${rows} rows`);
  }
});
