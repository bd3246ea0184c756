import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appendAll } from './append-all.js';
import { maxOf, minOf } from './max-of.js';

test('maxOf and minOf behave like Math.max and Math.min, for lists of any length', () => {
  assert.equal(maxOf([3, -1, 7]), 7);
  assert.equal(minOf([3, -1, 7]), -1);
  assert.equal(maxOf([]), Number.NEGATIVE_INFINITY);
  assert.equal(minOf([]), Number.POSITIVE_INFINITY);
  assert.ok(Number.isNaN(maxOf([1, Number.NaN, 2])));
  const many = Array.from({ length: 200_000 }, (_, index) => index);
  assert.equal(maxOf(many), 199_999);
  assert.equal(minOf(new Set(many)), 0);
});

test('appendAll appends 200,000 items in order', () => {
  const target = ['first'];
  const items = Array.from({ length: 200_000 }, (_, index) => `item ${index}`);
  assert.equal(appendAll(target, items), target);
  assert.equal(target.length, 200_001);
  assert.equal(target[1], 'item 0');
  assert.equal(target.at(-1), 'item 199999');
});
