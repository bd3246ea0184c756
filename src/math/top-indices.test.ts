import assert from 'node:assert/strict';
import { test } from 'node:test';
import { topIndices } from './top-indices.js';

test('topIndices: best first, ties to the lower index, only scores above the floor, at most k', () => {
  const scores = [0.2, 0.9, 0.5, 0.9, 0, -1, 0.5];
  assert.deepEqual(topIndices(scores, 4), [1, 3, 2, 6]);
  assert.deepEqual(topIndices(scores, 10, 0), [1, 3, 2, 6, 0]);
  assert.deepEqual(topIndices(scores, 0), []);
  assert.deepEqual(topIndices([Number.NaN, 1], 2), [1]);
});
