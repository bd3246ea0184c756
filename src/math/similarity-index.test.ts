import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../core/random.js';
import { createSimilarityIndex, createSparseSimilarityIndex, sparseQueriesBeforePostings, type SparseRows } from './similarity-index.js';

/** `count` sparse unit-ish rows of `dimensions` with `perRow` non-zeros each (some negative), coordinates ascending. */
function sparseRows(count: number, dimensions: number, perRow: number, seed: number): SparseRows {
  const random = createRandom(seed);
  const rowPointers = new Int32Array(count + 1);
  const columns: number[] = [];
  const values: number[] = [];
  for (let row = 0; row < count; row++) {
    const chosen = new Set<number>();
    while (chosen.size < perRow) chosen.add(Math.floor(random() * dimensions));
    for (const column of [...chosen].sort((left, right) => left - right)) {
      columns.push(column);
      values.push(random() - 0.4);
    }
    rowPointers[row + 1] = columns.length;
  }
  return { rowPointers, columnIndices: Int32Array.from(columns), values: Float32Array.from(values) };
}

function dense(rows: SparseRows, dimensions: number, rowOf: Int32Array, count: number): Float32Array {
  const data = new Float32Array(count * dimensions);
  for (let source = 0; source < rowOf.length; source++) {
    const row = rowOf[source] as number;
    if (row < 0) continue;
    for (let entry = rows.rowPointers[source] as number; entry < (rows.rowPointers[source + 1] as number); entry++) {
      data[row * dimensions + (rows.columnIndices[entry] as number)] = rows.values[entry] as number;
    }
  }
  return data;
}

test('a sparse index built from sparse rows scores as the dense vectors do, in the caller row order', () => {
  const dimensions = 64;
  const source = sparseRows(40, dimensions, 5, 3);
  // Source rows land reversed in the index; two are left out, and index row 41 has no source.
  const rowOf = Int32Array.from({ length: 40 }, (_, row) => (row === 7 || row === 20 ? -1 : 41 - row));
  const index = createSparseSimilarityIndex(42, dimensions, source, rowOf);
  const reference = createSimilarityIndex(42, dimensions, dense(source, dimensions, rowOf, 42));
  assert.equal(index.layout, 'sparse');
  const random = createRandom(9);
  const queries = Float32Array.from({ length: 3 * dimensions }, () => (random() < 0.2 ? random() - 0.5 : 0));
  const scores = index.scoreMany(queries, 3);
  const expected = reference.scoreMany(queries, 3);
  for (let position = 0; position < scores.length; position++) assert.ok(Math.abs((scores[position] as number) - (expected[position] as number)) < 1e-6);
  assert.equal(scores[1], 0);
  assert.equal(scores[41 - 7], 0);
});

test('scores are the same bit for bit before and after the index switches to postings', () => {
  const dimensions = 300;
  const source = sparseRows(500, dimensions, 12, 5);
  const rowOf = Int32Array.from({ length: 500 }, (_, row) => (row * 7) % 500);
  const random = createRandom(11);
  const query = (): Float32Array => Float32Array.from({ length: dimensions }, () => (random() < 0.1 ? random() - 0.5 : 0));
  const asked = Array.from({ length: sparseQueriesBeforePostings + 3 }, query);
  const index = createSparseSimilarityIndex(500, dimensions, source, rowOf);
  const rowByRow = asked.slice(0, sparseQueriesBeforePostings).map((vector) => index.scoreMany(vector, 1));
  // Past the limit the index answers through postings; the same questions again give the same scores.
  const afterwards = asked.slice(0, sparseQueriesBeforePostings).map((vector) => index.scoreMany(vector, 1));
  assert.deepEqual(afterwards, rowByRow);
  // A batch that crosses the limit is scored in one way too.
  const fresh = createSparseSimilarityIndex(500, dimensions, source, rowOf);
  const batch = new Float32Array(asked.length * dimensions);
  asked.forEach((vector, position) => batch.set(vector, position * dimensions));
  const batched = fresh.scoreMany(batch, asked.length);
  asked.forEach((vector, position) => assert.deepEqual(batched.subarray(position * 500, (position + 1) * 500), index.scoreMany(vector, 1)));
});
