import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lowerBound } from './lower-bound.js';

test('lowerBound finds where a value is or would go, for numbers and strings', () => {
  assert.equal(lowerBound([1, 3, 3, 7], 3), 1);
  assert.equal(lowerBound([1, 3, 3, 7], 4), 3);
  assert.equal(lowerBound([1, 3, 3, 7], 9), 4);
  assert.equal(lowerBound([], 1), 0);
  assert.equal(lowerBound(['ab', 'abc', 'b'], 'abc'), 1);
  assert.equal(lowerBound(['ab', 'abc', 'b'], 'a'), 0);
});
