import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sortedUnique } from './sorted-unique.js';

describe('sortedUnique', () => {
  it('returns a strictly ascending list itself', () => {
    const list = ['a', 'b', 'c'];
    assert.equal(sortedUnique(list), list);
    assert.deepEqual(sortedUnique([]), []);
  });

  it('sorts and drops repeats otherwise, in code-unit order', () => {
    assert.deepEqual(sortedUnique(['b', 'a', 'b']), ['a', 'b']);
    assert.deepEqual(sortedUnique(['a', 'a']), ['a']);
    assert.deepEqual(sortedUnique(['é', 'z', 'Z']), ['Z', 'z', 'é']);
  });
});
