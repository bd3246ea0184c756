import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { flattenPaths } from './flatten-paths.js';
import type { OneHopPath } from './one-hop-traversal.js';

describe('flattenPaths', () => {
  const path = (seed: number, ...neighbourPassages: number[]): OneHopPath => ({
    seed: { passage: seed, score: 10 - seed },
    neighbours: neighbourPassages.map((passage, rank) => ({ passage, score: 1 - rank / 10, kinds: 2 })),
  });

  test('each seed then its best neighbour, then second neighbours, then third; distinct, up to the budget', () => {
    const paths = [path(0, 10, 11, 12), path(1, 10, 13), path(2, 14, 15, 16)];
    const ranked = flattenPaths(paths, 30);
    assert.deepEqual(
      ranked.map((item) => item.passage),
      [0, 10, 1, 2, 14, 11, 13, 15, 12, 16],
    );
    assert.deepEqual(
      ranked.map((item) => item.neighbourRank),
      [0, 1, 0, 0, 1, 2, 2, 2, 3, 3],
    );
    assert.equal(ranked[1]?.seed, 0);
    assert.deepEqual(
      flattenPaths(paths, 4).map((item) => item.passage),
      [0, 10, 1, 2],
    );
  });
});
