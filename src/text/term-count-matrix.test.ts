import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countTerms, termCountRows } from './term-count-matrix.js';

describe('countTerms', () => {
  test('counts each text’s terms against a sorted vocabulary, ids ascending within a row', () => {
    const matrix = countTerms(['the cat sat', 'the dog sat down', 'a cat and a dog', '']);
    assert.deepEqual(matrix.vocabulary, ['and', 'cat', 'dog', 'down', 'sat', 'the']);
    assert.equal(termCountRows(matrix), 4);
    assert.deepEqual(Array.from(matrix.rowPointers), [0, 3, 7, 10, 10]);
    assert.deepEqual(Array.from(matrix.termIds), [1, 4, 5, 2, 3, 4, 5, 0, 1, 2]);
    assert.deepEqual(Array.from(matrix.counts), [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  test('repeated words add up; a custom tokenizer replaces the default', () => {
    const matrix = countTerms(['dog dog cat dog'], (text) => text.split(' '));
    assert.deepEqual(matrix.vocabulary, ['cat', 'dog']);
    assert.deepEqual(Array.from(matrix.counts), [1, 3]);
  });
});
