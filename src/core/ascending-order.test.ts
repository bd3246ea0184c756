import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from './random.js';
import { ascendingOrder } from './ascending-order.js';

const fullSort = (ids: readonly string[]): number[] => Array.from(ids.keys()).sort((left, right) => ((ids[left] as string) < (ids[right] as string) ? -1 : 1));

test('ascendingOrder equals a full sort: sorted prefix with an appended tail, unsorted, sorted, tiny', () => {
  const random = createRandom(7);
  const id = (): string => Math.floor(random() * 1e9).toString(36);
  const distinct = (count: number): string[] => [...new Set(Array.from({ length: count * 2 }, id))].slice(0, count);
  const cases: string[][] = [[], ['a'], ['b', 'a'], ['a', 'b', 'c']];
  for (let round = 0; round < 50; round++) {
    const ids = distinct(1 + Math.floor(random() * 300));
    const split = Math.floor(random() * ids.length);
    // An appending table: its earlier rows sorted, new rows after them in any order, some of them below earlier ones.
    cases.push([...ids.slice(0, split).sort(), ...ids.slice(split)], ids, [...ids].sort());
  }
  for (const ids of cases) {
    const { order, rank } = ascendingOrder(ids);
    assert.deepEqual(Array.from(order), fullSort(ids), JSON.stringify(ids.slice(0, 8)));
    assert.deepEqual(Array.from(order, (position) => rank[position]), Array.from(ids.keys()), 'rank inverts order');
  }
});
