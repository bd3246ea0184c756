import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replaceVectors } from './replace-vectors.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { VectorIndex } from './store.js';

test('a backend without replace gets the upsert and then the deletion, in insertion order', async () => {
  const store = openSqliteStore(':memory:');
  try {
    const stored = store.vectors('entities');
    const calls: string[] = [];
    // A backend written before `replace`: every other method, recorded.
    const older: VectorIndex = {
      upsert: async (items, embedderId) => {
        calls.push(`upsert ${items.map((item) => item.id).join(',')}`);
        await stored.upsert(items, embedderId);
      },
      delete: async (ids) => {
        calls.push(`delete ${ids.join(',')}`);
        await stored.delete(ids);
      },
      search: (query, k) => stored.search(query, k),
      scoreMany: (queries, count) => stored.scoreMany(queries, count),
      ids: () => stored.ids(),
      load: (ids) => stored.load(ids),
      loadSparse: () => stored.loadSparse(),
      clear: () => stored.clear(),
      count: () => stored.count(),
      info: () => stored.info(),
    };
    const vector = (values: number[]): Float32Array => Float32Array.from(values);
    await older.upsert([{ id: 'a', vector: vector([1, 0]) }, { id: 'b', vector: vector([0, 1]) }], 'test:2');
    await replaceVectors(older, ['a'], [{ id: 'c', vector: vector([1, 1]) }], 'test:2');
    assert.deepEqual(calls, ['upsert a,b', 'upsert c', 'delete a']);
    assert.deepEqual(await older.ids(), ['b', 'c']);
  } finally {
    await store.close();
  }
});
