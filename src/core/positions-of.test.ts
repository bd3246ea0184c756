import assert from 'node:assert/strict';
import { test } from 'node:test';
import { positionsOf } from './positions-of.js';

test('positionsOf: each item at its position, the last one for an item listed twice, as a map of pairs gives', () => {
  const items = ['b', 'a', 'c', 'a'];
  assert.deepEqual([...positionsOf(items)], [...new Map(items.map((item, index) => [item, index]))]);
  assert.deepEqual([...positionsOf(items)], [['b', 0], ['a', 3], ['c', 2]]);
  assert.equal(positionsOf([]).size, 0);
});
