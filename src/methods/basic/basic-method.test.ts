import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ScoredId } from '../../store/store.js';
import { basicMethod, reciprocalRankFusion } from './basic-method.js';
import { basicConfig } from './config.js';

/** Hits with arbitrary scores; RRF must only use their ranks. */
const hits = (...ids: string[]): ScoredId[] => ids.map((id, index) => ({ id, score: 100 - index * 7.5 }));

const near = (actual: number, expected: number): void => assert.ok(Math.abs(actual - expected) < 1e-15, `expected ${expected}, got ${actual}`);

describe('reciprocalRankFusion', () => {
  test('sums 1/(k + rank) over lists, ranks from 1, best first (k = 60)', () => {
    // dense: x y z; bm25: y w.
    // y: 1/62 + 1/61 ≈ 0.032520; x: 1/61 ≈ 0.016393; w: 1/62 ≈ 0.016129; z: 1/63 ≈ 0.015873.
    const fused = reciprocalRankFusion([hits('x', 'y', 'z'), hits('y', 'w')], 60);
    assert.deepEqual(
      fused.map((hit) => hit.id),
      ['y', 'x', 'w', 'z'],
    );
    const score = new Map(fused.map((hit) => [hit.id, hit.score]));
    near(score.get('y') as number, 1 / 62 + 1 / 61);
    near(score.get('x') as number, 1 / 61);
    near(score.get('w') as number, 1 / 62);
    near(score.get('z') as number, 1 / 63);
  });

  test('an id in only one list keeps its single term, and can still beat ids in both', () => {
    // a is first in list 1 only: 1/61 ≈ 0.016393. b is 40th in both: 2/(60 + 40) = 0.02. c is 70th in both: 2/130 ≈ 0.015385.
    const filler = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}${index}`);
    const first = hits('a', ...filler('p', 38), 'b', ...filler('q', 29), 'c');
    const second = hits(...filler('r', 39), 'b', ...filler('s', 29), 'c');
    const fused = reciprocalRankFusion([first, second], 60);
    const order = fused.map((hit) => hit.id);
    near(fused.find((hit) => hit.id === 'a')?.score as number, 1 / 61);
    near(fused.find((hit) => hit.id === 'b')?.score as number, 2 / 100);
    near(fused.find((hit) => hit.id === 'c')?.score as number, 2 / 130);
    assert.ok(order.indexOf('b') < order.indexOf('a'));
    assert.ok(order.indexOf('a') < order.indexOf('c'));
    assert.equal(order[0], 'b');
  });

  test('ties keep first-seen order (first list before second)', () => {
    // a and c are both first (1/61), b and d both second (1/62).
    const fused = reciprocalRankFusion([hits('a', 'b'), hits('c', 'd')], 60);
    assert.deepEqual(
      fused.map((hit) => hit.id),
      ['a', 'c', 'b', 'd'],
    );
    // Swapped ranks in two lists give exactly equal sums: 1/61 + 1/62 each; p was seen first.
    const swapped = reciprocalRankFusion([hits('p', 'q'), hits('q', 'p')], 60);
    assert.deepEqual(
      swapped.map((hit) => hit.id),
      ['p', 'q'],
    );
    assert.equal(swapped[0]?.score, swapped[1]?.score);
  });

  test('ignores the input scores and uses the given k', () => {
    const lowScores = [
      { id: 'a', score: -5 },
      { id: 'b', score: 1e9 },
    ];
    // k = 1: a 1/2, b 1/3.
    const fused = reciprocalRankFusion([lowScores], 1);
    assert.deepEqual(fused, [
      { id: 'a', score: 1 / 2 },
      { id: 'b', score: 1 / 3 },
    ]);
  });

  test('no lists or empty lists give nothing', () => {
    assert.deepEqual(reciprocalRankFusion([], 60), []);
    assert.deepEqual(reciprocalRankFusion([[], []], 60), []);
    // One list: same order, scores 1/61, 1/62, …
    assert.deepEqual(reciprocalRankFusion([hits('a', 'b')], 60), [
      { id: 'a', score: 1 / 61 },
      { id: 'b', score: 1 / 62 },
    ]);
  });

  test('does not modify its inputs', () => {
    const first = hits('x', 'y');
    const copy = structuredClone(first);
    reciprocalRankFusion([first, hits('y')], 60);
    assert.deepEqual(first, copy);
  });
});

describe('basicMethod', () => {
  test('declares its variants and parameter defaults (k 10, rrfK 60, candidates 50)', () => {
    assert.equal(basicMethod.name, 'basic');
    assert.deepEqual(basicMethod.variants, ['hybrid', 'bm25', 'dense']);
    assert.deepEqual(basicConfig.parse({}), { k: 10, rrfK: 60, candidates: 50 });
    assert.throws(() => basicConfig.parse({ k: 0 }));
    assert.throws(() => basicConfig.parse({ unknown: 1 }));
  });
});
