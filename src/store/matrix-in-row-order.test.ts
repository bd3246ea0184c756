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

test('in place, ids that are some of the loaded ids in their order move up within the loaded matrix; others are copied', () => {
  for (const ids of [['b', 'c', 'e'], ['a', 'b', 'd', 'e'], ['e'], [], ['a', 'c', 'd', 'e']]) {
    const given = loaded();
    const moved = matrixInRowOrder(given, ids, { inPlace: true });
    assert.deepEqual(Array.from(moved), Array.from(matrixInRowOrder(loaded(), ids)), ids.join());
    assert.equal(moved.buffer, given.matrix.buffer, `${ids.join()}: no new matrix`);
  }
  for (const ids of [['c', 'b'], ['a', 'x']]) {
    const given = loaded();
    const copied = matrixInRowOrder(given, ids, { inPlace: true });
    assert.deepEqual(Array.from(copied), Array.from(matrixInRowOrder(loaded(), ids)), ids.join());
    assert.notEqual(copied.buffer, given.matrix.buffer, `${ids.join()}: not some of the ids in their order, so copied`);
  }
});
