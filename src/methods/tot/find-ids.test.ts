import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findIds } from './find-ids.js';
import { mostCommon } from './most-common.js';

describe('findIds', () => {
  const options = ['Q1', 'Q12', 'Q100', 'Q200'];

  test('matches whole ids: Q12 does not select Q1, nor Q100 Q1', () => {
    assert.deepEqual(findIds('Q12', options), ['Q12']);
    assert.deepEqual(findIds('I select Q100.', options), ['Q100']);
    assert.deepEqual(findIds('Q1', options), ['Q1']);
  });

  test('finds several, in order of first occurrence, once each, case-insensitively', () => {
    assert.deepEqual(findIds('q200, Q1 and Q200 again; [Q12]', options), ['Q200', 'Q1', 'Q12']);
  });

  test('ids glued to other word characters do not count', () => {
    assert.deepEqual(findIds('Q1000 XQ1 Q12_b', options), []);
  });
});

describe('mostCommon', () => {
  test('count descending, ties by first occurrence, like Counter.most_common', () => {
    assert.deepEqual(mostCommon(['b', 'a', 'c', 'a', 'c', 'd'], 2), ['a', 'c']);
    assert.deepEqual(mostCommon(['b', 'a', 'c'], 2), ['b', 'a']);
    assert.deepEqual(mostCommon([], 3), []);
  });
});
