import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteBudgetLru } from './byte-budget-lru.js';

const byLength = (value: string): number => value.length;

test('holds entries up to the byte budget and drops the least recently used first', () => {
  const cache = new ByteBudgetLru<string, string>({ maxBytes: 10, sizeOf: byLength });
  cache.set('a', 'aaaa');
  cache.set('b', 'bbb');
  cache.set('c', 'cc');
  assert.equal(cache.bytes, 9);
  // Reading "a" makes "b" the least recently used: the next entry that needs room drops "b", not "a".
  assert.equal(cache.get('a'), 'aaaa');
  cache.set('d', 'ddd');
  assert.deepEqual([...cache.keys()], ['c', 'a', 'd']);
  assert.equal(cache.bytes, 9);
  assert.equal(cache.get('b'), undefined);
  // An entry of 8 bytes needs the room of all but the most recent one.
  cache.set('e', 'eeeeeeee');
  assert.deepEqual([...cache.keys()], ['e']);
  assert.equal(cache.bytes, 8);
});

test('has() does not make an entry more recent; replacing an entry counts its new size once', () => {
  const cache = new ByteBudgetLru<string, string>({ maxBytes: 6, sizeOf: byLength });
  cache.set('a', 'aa');
  cache.set('b', 'bb');
  assert.ok(cache.has('a'));
  cache.set('a', 'aaa');
  assert.equal(cache.bytes, 5);
  assert.deepEqual([...cache.keys()], ['b', 'a']);
  cache.set('c', 'c');
  assert.equal(cache.bytes, 6);
  cache.set('d', 'd');
  assert.deepEqual([...cache.keys()], ['a', 'c', 'd'], '"b", the least recently used, made the room');
});

test('an entry larger than the budget is not kept, and evicts nothing', () => {
  const cache = new ByteBudgetLru<string, string>({ maxBytes: 4, sizeOf: byLength });
  cache.set('a', 'aa');
  cache.set('big', 'bbbbb');
  assert.deepEqual([...cache.keys()], ['a']);
  assert.equal(cache.get('big'), undefined);
  const none = new ByteBudgetLru<string, string>({ maxBytes: 0, sizeOf: byLength });
  none.set('x', 'x');
  assert.equal(none.size, 0);
});

test('delete and clear give their bytes back; a budget that is no number of bytes is refused', () => {
  const cache = new ByteBudgetLru<number, string>({ maxBytes: 100, sizeOf: byLength });
  cache.set(1, 'one');
  cache.set(2, 'two');
  assert.ok(cache.delete(1));
  assert.ok(!cache.delete(1));
  assert.equal(cache.bytes, 3);
  cache.clear();
  assert.equal(cache.bytes, 0);
  assert.equal(cache.size, 0);
  assert.throws(() => new ByteBudgetLru({ maxBytes: Number.NaN, sizeOf: byLength }), /finite number of bytes/);
  assert.throws(() => new ByteBudgetLru({ maxBytes: -1, sizeOf: byLength }), /finite number of bytes/);
});
