import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countTerms } from './term-count-matrix.js';
import { topTfidfTerms } from './top-tfidf-terms.js';

describe('topTfidfTerms', () => {
  test('ranks each row’s terms by count × smooth idf, ties by term id, skipping what `skip` rejects', () => {
    // n = 3. Row 0: "the" (df 3, idf 1) × 2 = 2; "river" (df 1, idf ln 2 + 1 ≈ 1.693); "kester" (df 2, idf ≈ 1.288) × 2 ≈ 2.575.
    const matrix = countTerms(['the the river kester kester', 'the kester bridge', 'the weir']);
    const vocabulary = matrix.vocabulary;
    const names = (ids: Int32Array) => Array.from(ids, (id) => vocabulary[id]);
    const top = topTfidfTerms(matrix, 2);
    assert.deepEqual(names(top[0] as Int32Array), ['kester', 'the']);
    // Row 1: bridge ≈ 1.693 > kester ≈ 1.288 > the = 1.
    assert.deepEqual(names(top[1] as Int32Array), ['bridge', 'kester']);
    const withoutThe = topTfidfTerms(matrix, 2, (term) => term === 'the');
    assert.deepEqual(names(withoutThe[0] as Int32Array), ['kester', 'river']);
    assert.deepEqual(names(withoutThe[2] as Int32Array), ['weir']);
  });
});
