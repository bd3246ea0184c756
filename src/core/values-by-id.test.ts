import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ValuesById } from './values-by-id.js';

test('a value is found at its position, and by id when the ids moved, were removed before it, or are new', () => {
  const stored = new ValuesById(['kester', 'marle', 'weir'], ['k1', 'm1', 'w1']);
  assert.equal(stored.get('marle', 1), 'm1');
  assert.equal(stored.get('weir', 1), 'w1', 'marle removed: weir is one place earlier');
  assert.equal(stored.get('kester', 2), 'k1');
  assert.equal(stored.get('ferry', 3), undefined);
  assert.equal(stored.size, 3);
});

test('lists parsed from JSON are taken only when both hold strings and have one length; a record object becomes lists', () => {
  assert.equal(ValuesById.ofLists(['a'], ['x', 'y']), undefined);
  assert.equal(ValuesById.ofLists(['a'], [1]), undefined);
  assert.equal(ValuesById.ofLists({ a: 'x' }, []), undefined);
  assert.equal(ValuesById.ofLists(['a', 'b'], ['x', 'y'])?.get('b', 0), 'y');
  const earlier = ValuesById.ofRecord({ kester: 'k1', marle: 'm1' });
  assert.deepEqual([earlier.ids, earlier.values], [['kester', 'marle'], ['k1', 'm1']]);
});

test('indexOf gives where an id is, at its position or after a move, and −1 for one not there', () => {
  const stored = new ValuesById(['kester', 'marle', 'weir'], ['k1', 'm1', 'w1']);
  assert.equal(stored.indexOf('marle', 1), 1);
  assert.equal(stored.indexOf('weir', 1), 2);
  assert.equal(stored.indexOf('ferry', 0), -1);
});

test('aligned to a list the ids begin, an id past their end is not there; not aligned, every id is looked up', () => {
  const stored = new ValuesById(['kester', 'marle'], ['k1', 'm1']);
  assert.equal(stored.alignTo(['kester', 'marle', 'weir']), true);
  assert.equal(stored.get('weir', 2), undefined);
  assert.equal(stored.get('marle', 1), 'm1');
  const moved = new ValuesById(['kester', 'marle'], ['k1', 'm1']);
  assert.equal(moved.alignTo(['weir', 'kester', 'marle']), false);
  assert.equal(moved.get('marle', 2), 'm1', 'found by id');
  assert.equal(moved.alignTo(['kester']), false, 'a list shorter than the ids');
});
