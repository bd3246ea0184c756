import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../../core/random.js';
import type { SparseVector } from '../../providers/embed/embedder.js';
import type { Store } from '../store.js';
import { openSqliteStore } from './sqlite-store.js';

const dimensions = 64;

function sparseVector(random: () => number): SparseVector {
  const columns = [...new Set(Array.from({ length: 6 }, () => Math.floor(random() * dimensions)))].sort((left, right) => left - right);
  const values = Float32Array.from(columns, () => random() - 0.5);
  const norm = Math.hypot(...values);
  return { dimensions, columns: Int32Array.from(columns), values: values.map((value) => value / norm) };
}

async function described(store: Store): Promise<unknown> {
  const space = store.vectors('phrases');
  const query = new Float32Array(dimensions).fill(0.125);
  return { ids: await space.ids(), sparse: await space.loadSparse(), scores: Array.from((await space.scoreMany(query, 1)).scores) };
}

test('new ids appended to a sparse space (after a deletion too) give the space one upsert of all of them gives', async () => {
  const random = createRandom(38);
  const items = Array.from({ length: 40 }, (_, index) => ({ id: `p${index}`, vector: sparseVector(random) }));
  const whole = openSqliteStore(':memory:');
  const appended = openSqliteStore(':memory:');
  await whole.vectors('phrases').upsert(items.filter((item) => item.id !== 'p3'), 'test');
  await appended.vectors('phrases').upsert(items.slice(0, 25), 'test');
  await appended.vectors('phrases').delete(['p3']);
  await appended.vectors('phrases').upsert(items.slice(25, 32), 'test');
  await appended.vectors('phrases').upsert(items.slice(32), 'test');
  assert.deepEqual(await described(appended), await described(whole));
  // A replaced vector goes through the full rewrite, and keeps its place.
  const replaced = { id: 'p5', vector: sparseVector(random) };
  await whole.vectors('phrases').upsert([replaced], 'test');
  await appended.vectors('phrases').upsert([replaced], 'test');
  assert.deepEqual(await described(appended), await described(whole));
  await whole.close();
  await appended.close();
});
