import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rankByScore } from './rank-by-score.js';

describe('rankByScore', () => {
  test('best first, ties by position; zeros follow in position order unless positiveOnly', () => {
    const scores = [0, 0.5, 0.9, 0.5, 0, 0.1];
    assert.deepEqual(rankByScore(scores, 4), [2, 1, 3, 5]);
    assert.deepEqual(rankByScore(scores, 6), [2, 1, 3, 5, 0, 4]);
    assert.deepEqual(rankByScore(scores, 10, true), [2, 1, 3, 5]);
    assert.deepEqual(rankByScore([], 3), []);
  });
});
