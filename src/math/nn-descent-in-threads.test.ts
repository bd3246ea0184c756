import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../core/random.js';
import type { DenseMatrix } from './dense-matrix.js';
import { normalizeRows } from './dense-vectors.js';
import { nnDescent } from './nn-descent.js';
import { nnDescentInThreads } from './nn-descent-in-threads.js';

/** Unit vectors around 8 random centres, with a few exact duplicates (ties between equal scores). */
function clustered(rows: number, cols: number, seed: number): DenseMatrix {
  const random = createRandom(seed);
  const data = new Float32Array(rows * cols);
  for (let row = 0; row < rows; row++) {
    if (row % 97 === 5) {
      data.copyWithin(row * cols, (row - 1) * cols, row * cols);
      continue;
    }
    const centre = Math.floor(random() * 8);
    for (let col = 0; col < cols; col++) data[row * cols + col] = Math.sin(centre * 7.1 + col) + 0.7 * (random() - 0.5);
  }
  return normalizeRows({ rows, cols, data });
}

describe('nnDescentInThreads', () => {
  // 2,300 points: several 512-point chunks per round, the last one partial.
  const matrix = clustered(2300, 24, 3);
  const options = { sampleRate: 1, delta: 1e-4, seed: 9 };
  const alone = nnDescent(matrix, 12, options);

  for (const threads of [1, 2, 3]) {
    test(`${threads} thread(s) build the calling-thread graph bit for bit, round for round`, async () => {
      const graph = await nnDescentInThreads(matrix, 12, options, threads);
      assert.deepEqual(graph.indices, alone.indices);
      assert.deepEqual(graph.similarities, alone.similarities);
      assert.deepEqual(graph.updatesPerIteration, alone.updatesPerIteration);
      assert.equal(graph.iterations, alone.iterations);
      assert.equal(graph.scanRate, alone.scanRate);
    });
  }

  test('runs more than one round, so the workers are reused across rounds', () => {
    assert.ok(alone.iterations >= 2, `${alone.iterations} rounds`);
  });

  test('tiny inputs return without starting workers', async () => {
    const one = await nnDescentInThreads({ rows: 1, cols: 3, data: Float32Array.of(1, 0, 0) }, 2, {}, 2);
    assert.deepEqual(Array.from(one.indices), [-1, -1]);
  });
});
