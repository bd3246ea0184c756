import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Int32List } from './int32-list.js';

describe('Int32List', () => {
  test('keeps what is pushed and appended, in order, past several growths', () => {
    const list = new Int32List(1);
    const expected: number[] = [];
    for (let value = 0; value < 100; value++) {
      list.push(value - 50);
      expected.push(value - 50);
    }
    list.appendAll(Int32Array.from([7, -8, 9]));
    list.appendAll([2 ** 31 - 1, -(2 ** 31)]);
    expected.push(7, -8, 9, 2 ** 31 - 1, -(2 ** 31));
    assert.equal(list.length, expected.length);
    assert.deepEqual(Array.from(list.toInt32Array()), expected);
  });

  test('copies: what it hands out and what it was made of are not shared with it', () => {
    const source = Int32Array.from([1, 2, 3]);
    const list = Int32List.of(source);
    source[0] = 99;
    const out = list.toInt32Array();
    out[1] = 99;
    list.push(4);
    assert.deepEqual(Array.from(list.toInt32Array()), [1, 2, 3, 4]);
    assert.deepEqual(Array.from(Int32List.of([0, 1, 255]).toUint8Array()), [0, 1, 255]);
    assert.equal(new Int32List().toInt32Array().length, 0);
  });
});
