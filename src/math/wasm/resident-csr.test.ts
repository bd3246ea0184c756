import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../../core/random.js';
import type { CsrMatrix } from '../csr-matrix.js';
import { ResidentCsr } from './resident-csr.js';

/** A random sparse matrix with some empty rows and columns in arbitrary order. */
function randomCsr(rows: number, seed: number): CsrMatrix {
  const random = createRandom(seed);
  const rowPointers = new Int32Array(rows + 1);
  const columns: number[] = [];
  const values: number[] = [];
  for (let row = 0; row < rows; row++) {
    const count = row % 7 === 3 ? 0 : Math.floor(random() * 9);
    for (let entry = 0; entry < count; entry++) {
      columns.push(Math.floor(random() * rows));
      values.push(random() * 2 - 1);
    }
    rowPointers[row + 1] = columns.length;
  }
  return { rows, cols: rows, rowPointers, columnIndices: Int32Array.from(columns), values: Float64Array.from(values) };
}

describe('ResidentCsr', () => {
  for (const width of [1, 2, 4, 8]) {
    test(`a block of ${width} columns: the same sums in the same order as a plain loop, bit for bit`, () => {
      const matrix = randomCsr(301, width);
      const random = createRandom(99);
      const x = Float64Array.from({ length: matrix.rows * width }, () => random() - 0.5);
      const expected = new Float64Array(matrix.rows * width);
      for (let row = 0; row < matrix.rows; row++) {
        for (let column = 0; column < width; column++) {
          let sum = 0;
          for (let entry = matrix.rowPointers[row] as number; entry < (matrix.rowPointers[row + 1] as number); entry++) {
            sum += (matrix.values[entry] as number) * (x[(matrix.columnIndices[entry] as number) * width + column] as number);
          }
          expected[row * width + column] = sum;
        }
      }
      const y = new Float64Array(matrix.rows * width).fill(Number.NaN);
      const resident = ResidentCsr.of(matrix);
      assert.ok(resident, 'this engine runs the SIMD kernel');
      assert.equal(resident.multiplyBlock(x, width, y), true);
      assert.deepEqual(y, expected);
      // The copy is made once per matrix and reused.
      assert.equal(ResidentCsr.of(matrix), resident);
    });
  }

  test('a width without a kernel leaves the product to the caller', () => {
    const matrix = randomCsr(10, 1);
    const y = new Float64Array(30);
    assert.equal(ResidentCsr.of(matrix)?.multiplyBlock(new Float64Array(30), 3, y), false);
    assert.deepEqual(y, new Float64Array(30));
  });
});
