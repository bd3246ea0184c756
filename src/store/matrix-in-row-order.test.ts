import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matrixInRowOrder } from './matrix-in-row-order.js';

/** Five rows of two dimensions, row r holding r + 1 and −(r + 1). */
const loaded = () => ({ ids: ['a', 'b', 'c', 'd', 'e'], dimensions: 2, matrix: Float32Array.from([1, -1, 2, -2, 3, -3, 4, -4, 5, -5]) });

test('matrixInRowOrder gives the rows of the ids asked for, in their order, zeros for an id without a vector', () => {
  const same = loaded();
  assert.equal(matrixInRowOrder(same, ['a', 'b', 'c', 'd', 'e']), same.matrix, 'the same ids: the loaded matrix itself');
  assert.deepEqual(Array.from(matrixInRowOrder(loaded(), ['e', 'a', 'x'])), [5, -5, 1, -1, 0, 0]);
});
