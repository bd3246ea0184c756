import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom } from '../../core/random.js';
import type { DenseMatrix } from '../dense-matrix.js';
import { buildDotKernelModule } from './dot-kernel-module.js';
import { ResidentMatrix, paddedStride, wasmSimdAvailable } from './resident-matrix.js';

function randomMatrix(rows: number, cols: number, seed: number): DenseMatrix {
  const random = createRandom(seed);
  return { rows, cols, data: Float32Array.from({ length: rows * cols }, () => random() * 2 - 1) };
}

/** float64 reference ⟨a_i, b_j⟩ and ‖a_i‖‖b_j‖, the scale that "relative" error is measured against. */
function reference(a: Float32Array, aOffset: number, b: Float32Array, bOffset: number, cols: number): { value: number; scale: number } {
  let value = 0;
  let aNorm = 0;
  let bNorm = 0;
  for (let col = 0; col < cols; col++) {
    const x = a[aOffset + col] as number;
    const y = b[bOffset + col] as number;
    value += x * y;
    aNorm += x * x;
    bNorm += y * y;
  }
  return { value, scale: Math.sqrt(aNorm * bNorm) };
}

function assertClose(actual: number, expected: { value: number; scale: number }, context: string): void {
  const error = Math.abs(actual - expected.value);
  assert.ok(error <= 1e-5 * Math.max(expected.scale, 1e-30) || error === 0, `${context}: ${actual} vs ${expected.value} (scale ${expected.scale})`);
}

describe('ResidentMatrix', () => {
  test('the SIMD kernel validates and is picked by default on this engine', () => {
    assert.ok(WebAssembly.validate(buildDotKernelModule({ sharedMemory: false })));
    assert.ok(wasmSimdAvailable());
    assert.ok(wasmSimdAvailable(true));
    assert.equal(ResidentMatrix.load(randomMatrix(3, 5, 1)).backend, 'wasm-simd');
    assert.equal(ResidentMatrix.load(randomMatrix(3, 5, 1), { backend: 'js' }).backend, 'js');
  });

  test('pads rows to a positive multiple of four floats', () => {
    assert.deepEqual([0, 1, 3, 4, 5, 8, 383, 384, 385].map(paddedStride), [4, 4, 4, 4, 8, 8, 384, 384, 388]);
  });

  // Dimensions that are not multiples of 4 (incl. below one SIMD chunk) and block sizes that leave
  // remainders for every micro-kernel shape (4 × 2, 4 × 1, 1 × 4, 1 × 1).
  for (const cols of [1, 3, 4, 7, 16, 33, 385]) {
    test(`SIMD equals the JavaScript path within 1e-5 relative (${cols} dimensions)`, () => {
      const matrix = randomMatrix(23, cols, cols);
      const queries = randomMatrix(7, cols, cols + 100);
      const simd = ResidentMatrix.load(matrix, { backend: 'wasm-simd' });
      const js = ResidentMatrix.load(matrix, { backend: 'js' });
      for (const queryCount of [1, 2, 4, 5, 7]) {
        const fast = simd.scoreQueries(queries.data, queryCount, 3, 20).slice();
        const slow = js.scoreQueries(queries.data, queryCount, 3, 20);
        for (let query = 0; query < queryCount; query++) {
          for (let row = 0; row < 17; row++) {
            const expected = reference(queries.data, query * cols, matrix.data, (row + 3) * cols, cols);
            assertClose(fast[query * 17 + row] as number, expected, `simd q${query} r${row}`);
            assertClose(slow[query * 17 + row] as number, expected, `js q${query} r${row}`);
          }
        }
      }
      const block = simd.scoreRowBlock(2, 11, 5, 23).slice();
      const jsBlock = js.scoreRowBlock(2, 11, 5, 23);
      for (let query = 0; query < 9; query++) {
        for (let row = 0; row < 18; row++) {
          const expected = reference(matrix.data, (query + 2) * cols, matrix.data, (row + 5) * cols, cols);
          assertClose(block[query * 18 + row] as number, expected, `block q${query} r${row}`);
          assertClose(jsBlock[query * 18 + row] as number, expected, `js block q${query} r${row}`);
        }
      }
      const queryIndices = Int32Array.from([22, 0, 5, 5, 9]);
      const rowIndices = Int32Array.from([1, 22, 3, 0, 7, 7, 13]);
      const gathered = simd.scoreRowSets(queryIndices, 5, rowIndices, 7).slice();
      for (let query = 0; query < 5; query++) {
        for (let row = 0; row < 7; row++) {
          const expected = reference(matrix.data, (queryIndices[query] as number) * cols, matrix.data, (rowIndices[row] as number) * cols, cols);
          assertClose(gathered[query * 7 + row] as number, expected, `gather q${query} r${row}`);
        }
      }
    });
  }

  test('⟨x, y⟩ and ⟨y, x⟩ are bit-identical whichever micro-kernel computes them', () => {
    const matrix = randomMatrix(13, 37, 5);
    const resident = ResidentMatrix.load(matrix);
    const all = resident.scoreRowBlock(0, 13, 0, 13).slice();
    for (let i = 0; i < 13; i++) for (let j = 0; j < 13; j++) assert.equal(all[i * 13 + j], all[j * 13 + i]);
    // The same pair through a 1 × 1 call, a single-query row sweep and a gather.
    const single = resident.scoreRowBlock(6, 7, 11, 12)[0];
    const sweep = resident.scoreRowBlock(6, 7, 0, 13)[11];
    const gathered = resident.scoreRowSets(Int32Array.of(11), 1, Int32Array.of(6), 1)[0];
    assert.equal(single, all[6 * 13 + 11]);
    assert.equal(sweep, all[6 * 13 + 11]);
    assert.equal(gathered, all[6 * 13 + 11]);
  });

  test('zero vectors score exactly 0 against everything', () => {
    const matrix = randomMatrix(6, 10, 9);
    matrix.data.fill(0, 2 * 10, 3 * 10);
    for (const backend of ['wasm-simd', 'js'] as const) {
      const resident = ResidentMatrix.load(matrix, { backend });
      const scores = resident.scoreRowBlock(0, 6, 0, 6);
      for (let other = 0; other < 6; other++) {
        assert.equal(scores[2 * 6 + other], 0);
        assert.equal(scores[other * 6 + 2], 0);
      }
      assert.deepEqual([...resident.scoreQueries(new Float32Array(10), 1)], [0, 0, 0, 0, 0, 0]);
    }
  });

  test('grows its memory for large query blocks and handles empty ranges', () => {
    const matrix = randomMatrix(300, 64, 2);
    const resident = ResidentMatrix.load(matrix);
    const queries = randomMatrix(300, 64, 3);
    const scores = resident.scoreQueries(queries.data, 300, 0, 300).slice();
    assert.equal(scores.length, 90000);
    assertClose(scores[299 * 300 + 17] as number, reference(queries.data, 299 * 64, matrix.data, 17 * 64, 64), 'last block');
    assert.equal(resident.scoreQueries(queries.data, 0, 0, 300).length, 0);
    assert.equal(resident.scoreRowBlock(4, 4, 0, 300).length, 0);
    assert.throws(() => resident.scoreRowBlock(0, 1, 0, 301), RangeError);
    assert.throws(() => resident.scoreRowSets(Int32Array.of(300), 1, Int32Array.of(0), 1), RangeError);
  });

  test('shared memory: slots attached in one thread see the same matrix and do not overwrite each other', () => {
    const matrix = randomMatrix(40, 21, 4);
    for (const backend of ['wasm-simd', 'js'] as const) {
      const shared = ResidentMatrix.loadShared(matrix, 2, 40 * 40 * 4, { backend });
      assert.equal(shared.storage instanceof SharedArrayBuffer || shared.storage.buffer instanceof SharedArrayBuffer, true);
      const first = ResidentMatrix.attach(shared, 0);
      const second = ResidentMatrix.attach(shared, 1);
      const firstScores = first.scoreRowBlock(0, 40, 0, 40);
      const expected = firstScores.slice();
      const secondScores = second.scoreRowBlock(0, 40, 0, 40);
      assert.deepEqual([...firstScores], [...expected]);
      assert.deepEqual([...secondScores], [...expected]);
      assert.throws(() => ResidentMatrix.attach(shared, 2), RangeError);
    }
    const tooSmall = ResidentMatrix.attach(ResidentMatrix.loadShared(matrix, 1, 16), 0);
    assert.throws(() => tooSmall.scoreRowBlock(0, 40, 0, 40), RangeError);
  });

  test('group sums: both backends add the rows in order, bit for bit equal to a plain float64 loop', () => {
    // 5,000 rows cross a 4,096-row kernel block; 37 columns leave padding in every row.
    for (const [rows, cols] of [[5000, 37], [9, 4], [1, 1]] as const) {
      const matrix = randomMatrix(rows, cols, rows + cols);
      const random = createRandom(7);
      const groups = Int32Array.from({ length: rows }, () => Math.floor(random() * 6));
      const expected = new Float64Array(6 * cols).fill(0.5);
      for (let row = 100 % rows; row < rows; row++) {
        for (let col = 0; col < cols; col++) expected[(groups[row] as number) * cols + col] = (expected[(groups[row] as number) * cols + col] as number) + (matrix.data[row * cols + col] as number);
      }
      for (const backend of ['wasm-simd', 'js'] as const) {
        const sums = new Float64Array(6 * cols).fill(0.5);
        ResidentMatrix.load(matrix, { backend }).addRowsToGroupSums(groups, 6, sums, 100 % rows, rows);
        assert.deepEqual(sums, expected, `${backend} ${rows}×${cols}`);
      }
    }
    const resident = ResidentMatrix.load(randomMatrix(3, 4, 1));
    assert.throws(() => resident.addRowsToGroupSums(Int32Array.of(0, 2, 1), 2, new Float64Array(8)), /row 1 has group 2/);
  });
});
