import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sklearnWordTokens } from './sklearn-word-tokens.js';

describe('sklearnWordTokens', () => {
  test('lower-cases and keeps runs of two or more word characters, as token_pattern (?u)\\b\\w\\w+\\b', () => {
    assert.deepEqual(sklearnWordTokens("A cat's 2 dogs, e.g. X-ray_machine 1961!"), ['cat', 'dogs', 'ray_machine', '1961']);
  });

  test('letters and digits of any script count; one-character runs and punctuation never do', () => {
    assert.deepEqual(sklearnWordTokens('Zürich Ω München — 東京 a b c'), ['zürich', 'münchen', '東京']);
    assert.deepEqual(sklearnWordTokens(''), []);
  });
});
