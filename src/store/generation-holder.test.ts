import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';
import { createGenerationHolder } from './generation-holder.js';

test('queries that ask for a new generation at once share the one store opened for it, which stays open while any holds it', async () => {
  const holder = createGenerationHolder<number>();
  const opened: Store[] = [];
  const open = (generation: number) => async () => {
    // Opening takes a while (a database round trip): the second query asks before the first open ends.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const store = openSqliteStore(':memory:');
    opened.push(store);
    return { store, generation, publishedAt: null };
  };
  const first = await holder.hold(1, open(1));
  first.release();
  const [a, b] = await Promise.all([holder.hold(2, open(2)), holder.hold(2, open(2))]);
  assert.equal(a.store, b.store, 'one store for generation 2');
  assert.equal(opened.length, 2, 'generation 2 was opened once');
  a.release();
  // Still held by b: its store answers.
  assert.equal(await b.store.table('chunks').count(), 0);
  b.release();
  holder.retire();
});
