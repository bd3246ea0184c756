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

test('topIndices equals a full sort (score descending, index ascending) on scores with many ties', () => {
  let state = 7;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  for (const k of [1, 3, 17, 200]) {
    const scores = Float32Array.from({ length: 1000 }, () => Math.floor(next() * 40) / 8);
    const sorted = Array.from(scores.keys()).sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
    assert.deepEqual(topIndices(scores, k), sorted.slice(0, k));
    assert.deepEqual(topIndices(scores, k, 2), sorted.filter((index) => (scores[index] as number) > 2).slice(0, k));
  }
});
