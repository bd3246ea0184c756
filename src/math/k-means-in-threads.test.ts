import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../core/random.js';
import { kMeansInThreads } from './k-means-in-threads.js';
import { kMeans } from './k-means.js';

/** Points around `clusters` random centres, overlapping enough that the restarts end in different clusterings. */
function overlappingBlobs(clusters: number, rows: number, cols: number, seed: number): { rows: number; cols: number; data: Float32Array } {
  const random = createRandom(seed);
  const centres = Float32Array.from({ length: clusters * cols }, () => random() * 2 - 1);
  const data = new Float32Array(rows * cols);
  for (let row = 0; row < rows; row++) {
    const centre = Math.floor(random() * clusters);
    for (let col = 0; col < cols; col++) data[row * cols + col] = (centres[centre * cols + col] as number) + (random() - 0.5) * 1.5;
  }
  return { rows, cols, data };
}

describe('kMeansInThreads', () => {
  const matrix = overlappingBlobs(12, 3000, 24, 7);

  test('gives the calling-thread result bit for bit, with any number of worker threads', async () => {
    const options = { restarts: 5, seed: 3 };
    const expected = kMeans(matrix, 8, options);
    const inertias = new Set<number>();
    for (let restart = 0; restart < 5; restart++) inertias.add(kMeans(matrix, 8, { restarts: 1, random: createRandom(restart) }).inertia);
    // The fixture is only a test of the choice between restarts if restarts end differently.
    assert.ok(inertias.size > 1, 'restarts should reach different local optima on overlapping blobs');
    for (const threads of [2, 3, 5]) {
      const threaded = await kMeansInThreads(matrix, 8, { ...options, threads, minimumWorkForThreads: 0 });
      assert.deepEqual(threaded.assignments, expected.assignments, `${threads} threads`);
      assert.deepEqual(threaded.centroids.data, expected.centroids.data, `${threads} threads`);
      assert.equal(threaded.inertia, expected.inertia);
      assert.equal(threaded.iterations, expected.iterations);
    }
  });

  test('runs small inputs, one restart or one thread in the calling thread, with the same result', async () => {
    const expected = kMeans(matrix, 4, { restarts: 2, seed: 9 });
    assert.deepEqual((await kMeansInThreads(matrix, 4, { restarts: 2, seed: 9 })).assignments, expected.assignments);
    assert.deepEqual((await kMeansInThreads(matrix, 4, { restarts: 2, seed: 9, threads: 1, minimumWorkForThreads: 0 })).assignments, expected.assignments);
  });

  test('rejects bad arguments as kMeans does', async () => {
    await assert.rejects(kMeansInThreads(matrix, 0, { restarts: 3, minimumWorkForThreads: 0 }), { code: 'MATH_INVALID_K' });
  });
});
