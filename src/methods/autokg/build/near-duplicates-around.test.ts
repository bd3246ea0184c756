import assert from 'node:assert/strict';
import { test } from 'node:test';
import { finishTask } from '../../../core/cooperative-task.js';
import { createRandom } from '../../../core/random.js';
import type { DenseMatrix } from '../../../math/dense-matrix.js';
import { normalizeRows } from '../../../math/dense-vectors.js';
import { nearDuplicateRows } from '../../../math/near-duplicate-rows.js';
import { nearDuplicatesAroundTask } from './near-duplicates-around.js';

/**
 * A pool of unit vectors where many are exact copies or tiny perturbations of earlier ones (chains of near-duplicates,
 * some within the distance of each other and some just outside), with token counts that often tie.
 */
function pool(size: number, cols: number, seed: number): { data: Float32Array; lengths: Int32Array } {
  const random = createRandom(seed);
  const data = Float32Array.from({ length: size * cols }, () => random() * 2 - 1);
  for (let row = 1; row < size; row++) {
    if (random() >= 0.4) continue;
    const of = Math.floor(random() * row);
    for (let col = 0; col < cols; col++) data[row * cols + col] = (data[of * cols + col] as number) + (random() < 0.5 ? 0 : (random() - 0.5) * 2e-3);
  }
  normalizeRows({ rows: size, cols, data });
  return { data, lengths: Int32Array.from({ length: size }, () => 1 + Math.floor(random() * 4)) };
}

function pick(source: Float32Array, cols: number, ids: readonly number[]): DenseMatrix {
  const data = new Float32Array(ids.length * cols);
  ids.forEach((id, row) => data.set(source.subarray(id * cols, (id + 1) * cols), row * cols));
  return { rows: ids.length, cols, data };
}

test('searching around the rows left out before and the new ones finds what a search of all rows finds, over adds and deletes', () => {
  const cols = 10;
  const distance = 1e-6 * 4;
  // More rows than one tile of the search (256).
  const { data, lengths } = pool(800, cols, 5);
  const random = createRandom(9);
  let ids = Array.from({ length: 300 }, (_, id) => id);
  let nextId = 300;
  let leftOut = new Set<number>();
  {
    const matrix = pick(data, cols, ids);
    nearDuplicateRows(matrix.data, matrix.rows, cols, Int32Array.from(ids, (id) => lengths[id] as number), distance).forEach((twin, row) => {
      if (twin >= 0) leftOut.add(ids[row] as number);
    });
  }
  let found = 0;
  for (let round = 0; round < 15; round++) {
    const before = new Set(ids);
    const next = ids.filter(() => random() >= 0.08);
    for (let index = Math.floor(random() * 12); index > 0; index--) next.splice(Math.floor(random() * (next.length + 1)), 0, nextId++);
    const matrix = pick(data, cols, next);
    const nextLengths = Int32Array.from(next, (id) => lengths[id] as number);
    const candidates = next.flatMap((id, row) => (!before.has(id) || leftOut.has(id) ? [row] : []));
    const around = finishTask(nearDuplicatesAroundTask(matrix, nextLengths, distance, candidates));
    const all = nearDuplicateRows(matrix.data, matrix.rows, cols, nextLengths, distance);
    assert.deepEqual(Array.from(around), Array.from(all), `round ${round}`);
    leftOut = new Set(next.filter((_, row) => (all[row] as number) >= 0));
    found += leftOut.size;
    ids = next;
  }
  assert.ok(found > 0, 'the pool has near-duplicates');
});
