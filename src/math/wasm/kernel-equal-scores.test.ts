import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../../core/random.js';
import { kernelEqualScores, kernelEqualScoresApply } from './kernel-equal-scores.js';
import { ResidentMatrix } from './resident-matrix.js';

/** Rows with about `density` of their coordinates non-zero, of mixed signs and magnitudes (some far below the others). */
function sparseRows(rows: number, cols: number, density: number, seed: number): Float32Array {
  const random = createRandom(seed);
  return Float32Array.from({ length: rows * cols }, () => (random() < density ? (random() * 2 - 1) * (random() < 0.1 ? 1e-20 : 1) : 0));
}

describe('kernelEqualScores', () => {
  test('equals the SIMD kernel bit for bit, for dimensions with and without padding and queries of any density', { skip: !kernelEqualScoresApply() }, () => {
    for (const [cols, seed] of [
      [64, 1],
      [67, 2],
      [1024, 3],
    ] as const) {
      const rows = 90;
      const matrix = { rows, cols, data: sparseRows(rows, cols, 0.3, seed) };
      const resident = ResidentMatrix.load(matrix, { backend: 'wasm-simd' });
      for (const [density, querySeed] of [
        [0.02, 10],
        [0.3, 11],
        [1, 12],
      ] as const) {
        const queries = sparseRows(3, cols, density, seed * 100 + querySeed);
        const expected = Array.from(resident.scoreQueries(queries, 3));
        const actual = new Float32Array(3 * rows);
        kernelEqualScores(matrix, queries, 3, actual);
        assert.deepEqual(Array.from(actual), expected, `cols ${cols}, density ${density}`);
      }
    }
  });

  test('scores query q against row r at q · rows + r', () => {
    const matrix = { rows: 2, cols: 4, data: Float32Array.of(1, 0, 0, 0, 0, 1, 0, 0) };
    const out = new Float32Array(4);
    kernelEqualScores(matrix, Float32Array.of(2, 3, 0, 0, 0.5, 0.25, 0, 0), 2, out);
    assert.deepEqual(Array.from(out), [2, 3, 0.5, 0.25]);
  });
});
