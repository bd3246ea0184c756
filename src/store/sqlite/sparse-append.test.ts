import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { createRandom } from '../../core/random.js';
import type { SparseVector } from '../../providers/embed/embedder.js';
import { openSqliteStore } from './sqlite-store.js';
import { describedSparseSpace, randomSparseVector } from '../../../test/helpers/sparse-space.js';

test('new ids appended to a sparse space (after a deletion too) give the space one upsert of all of them gives', async () => {
  const random = createRandom(38);
  const items = Array.from({ length: 40 }, (_, index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
  const whole = openSqliteStore(':memory:');
  const appended = openSqliteStore(':memory:');
  await whole.vectors('phrases').upsert(items.filter((item) => item.id !== 'p3'), 'test');
  await appended.vectors('phrases').upsert(items.slice(0, 25), 'test');
  await appended.vectors('phrases').delete(['p3']);
  await appended.vectors('phrases').upsert(items.slice(25, 32), 'test');
  await appended.vectors('phrases').upsert(items.slice(32), 'test');
  assert.deepEqual(await describedSparseSpace(appended), await describedSparseSpace(whole));
  // A replaced vector goes through the full rewrite, and keeps its place.
  const replaced = { id: 'p5', vector: randomSparseVector(random) };
  await whole.vectors('phrases').upsert([replaced], 'test');
  await appended.vectors('phrases').upsert([replaced], 'test');
  assert.deepEqual(await describedSparseSpace(appended), await describedSparseSpace(whole));
  await whole.close();
  await appended.close();
});

/** The sum of the stored bytes of a space's postings and of its appended tails, read from the file. */
function storedPostingBytes(path: string, space: string): { postings: number; tails: number } {
  const db = new Database(path, { readonly: true });
  try {
    const sum = (table: string): number => {
      const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
      return exists ? ((db.prepare(`SELECT coalesce(sum(length(postings)), 0) FROM ${table}`).pluck().get() as number) ?? 0) : 0;
    };
    return { postings: sum(`vec_${space}_postings`), tails: sum(`vec_${space}_tail`) };
  } finally {
    db.close();
  }
}

test('a small append leaves the stored postings as they are and writes only the new entries; reads, merges and reopening see the whole space', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-sparse-tail-'));
  try {
    const random = createRandom(381);
    const items = Array.from({ length: 600 }, (_, index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
    const path = join(directory, 'appended.db');
    const whole = openSqliteStore(':memory:');
    const appended = openSqliteStore(path);
    await appended.vectors('phrases').upsert(items.slice(0, 500), 'test');
    const before = storedPostingBytes(path, 'phrases');
    await appended.vectors('phrases').upsert(items.slice(500, 505), 'test');
    const after = storedPostingBytes(path, 'phrases');
    assert.equal(after.postings, before.postings);
    assert.ok(after.tails > 0 && after.tails < before.postings / 20, `tails of ${after.tails} bytes against postings of ${before.postings}`);
    await whole.vectors('phrases').upsert(items.slice(0, 505), 'test');
    assert.deepEqual(await describedSparseSpace(appended), await describedSparseSpace(whole));
    // Appends until the tails pass their share are folded into the postings: the same space, read in another connection too.
    for (let start = 505; start < 600; start += 5) await appended.vectors('phrases').upsert(items.slice(start, start + 5), 'test');
    await whole.vectors('phrases').upsert(items.slice(505), 'test');
    assert.ok(storedPostingBytes(path, 'phrases').tails < storedPostingBytes(path, 'phrases').postings / 4);
    assert.deepEqual(await describedSparseSpace(appended), await describedSparseSpace(whole));
    await appended.close();
    const reopened = openSqliteStore(path, { readonly: true });
    assert.deepEqual(await describedSparseSpace(reopened), await describedSparseSpace(whole));
    await reopened.close();
    // A deletion and a replacement rewrite the postings whole, tails included.
    const again = openSqliteStore(path);
    for (const store of [again, whole]) {
      await store.vectors('phrases').delete(['p3', 'p505']);
      await store.vectors('phrases').upsert([{ id: 'p7', vector: randomSparseVector(createRandom(7)) }], 'test');
    }
    assert.equal(storedPostingBytes(path, 'phrases').tails, 0);
    assert.deepEqual(await describedSparseSpace(again), await describedSparseSpace(whole));
    await again.close();
    await whole.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a sparse space written before appended tails existed is read and appended to', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-sparse-tail-'));
  try {
    const random = createRandom(382);
    const items = Array.from({ length: 80 }, (_, index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
    const path = join(directory, 'older.db');
    const older = openSqliteStore(path);
    await older.vectors('phrases').upsert(items.slice(0, 70), 'test');
    await older.close();
    const raw = new Database(path);
    raw.exec('DROP TABLE IF EXISTS vec_phrases_tail');
    raw.close();
    const whole = openSqliteStore(':memory:');
    await whole.vectors('phrases').upsert(items.slice(0, 70), 'test');
    const reopened = openSqliteStore(path);
    assert.deepEqual(await describedSparseSpace(reopened), await describedSparseSpace(whole));
    await reopened.vectors('phrases').upsert(items.slice(70), 'test');
    await whole.vectors('phrases').upsert(items.slice(70), 'test');
    assert.deepEqual(await describedSparseSpace(reopened), await describedSparseSpace(whole));
    await reopened.close();
    await whole.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('replacing a vector among appended ones rewrites only the posting lists of the coordinates it had or has', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-sparse-replace-'));
  try {
    const random = createRandom(383);
    const items = Array.from({ length: 300 }, (_, index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
    const path = join(directory, 'replaced.db');
    const store = openSqliteStore(path);
    await store.vectors('phrases').upsert(items, 'test');
    await store.close();
    const listsOf = (): Map<number, string> => {
      const db = new Database(path, { readonly: true });
      const rows = db.prepare('SELECT coordinate, hex(postings) AS postings FROM vec_phrases_postings').all() as Array<{ coordinate: number; postings: string }>;
      db.close();
      return new Map(rows.map((row) => [row.coordinate, row.postings]));
    };
    const before = listsOf();
    const old = items[40]?.vector as SparseVector;
    const replacement = { id: 'p40', vector: randomSparseVector(random) };
    const added = { id: 'p300', vector: randomSparseVector(random) };
    const again = openSqliteStore(path);
    await again.vectors('phrases').upsert([added, replacement], 'test');
    await again.close();
    const after = listsOf();
    const touched = new Set([...old.columns, ...replacement.vector.columns]);
    const changed = [...before.keys()].filter((coordinate) => after.get(coordinate) !== before.get(coordinate));
    assert.ok(changed.length > 0);
    assert.deepEqual(changed.filter((coordinate) => !touched.has(coordinate)), []);
    const whole = openSqliteStore(':memory:');
    await whole.vectors('phrases').upsert([...items.slice(0, 40), replacement, ...items.slice(41), added], 'test');
    const reopened = openSqliteStore(path, { readonly: true });
    assert.deepEqual(await describedSparseSpace(reopened), await describedSparseSpace(whole));
    await reopened.close();
    await whole.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a deletion rewrites only the posting lists that hold a row at or after the first deleted one, to the bytes of a space written without the deleted rows', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-sparse-delete-'));
  try {
    const random = createRandom(384);
    const items = Array.from({ length: 305 }, (_, index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
    const path = join(directory, 'deleted.db');
    const store = openSqliteStore(path);
    await store.vectors('phrases').upsert(items.slice(0, 300), 'test');
    // An append leaves tails, which the deletion folds in.
    await store.vectors('phrases').upsert(items.slice(300), 'test');
    await store.close();
    const raw = new Database(path);
    raw.exec('CREATE TABLE written (coordinate INTEGER)');
    for (const event of ['INSERT', 'UPDATE']) raw.exec(`CREATE TRIGGER written_${event} AFTER ${event} ON vec_phrases_postings BEGIN INSERT INTO written VALUES (new.coordinate); END`);
    raw.exec('CREATE TRIGGER written_delete AFTER DELETE ON vec_phrases_postings BEGIN INSERT INTO written VALUES (old.coordinate); END');
    raw.close();
    const deleted = ['p290', 'p296', 'p303'];
    const again = openSqliteStore(path);
    await again.vectors('phrases').delete(deleted);
    await again.close();
    const db = new Database(path, { readonly: true });
    const written = new Set(db.prepare('SELECT coordinate FROM written').pluck().all() as number[]);
    const lists = new Map((db.prepare('SELECT coordinate, hex(postings) AS postings FROM vec_phrases_postings').all() as Array<{ coordinate: number; postings: string }>).map((row) => [row.coordinate, row.postings]));
    assert.equal(db.prepare('SELECT count(*) FROM vec_phrases_tail').pluck().get(), 0);
    db.close();
    const afterFirst = new Set(items.slice(290).flatMap((item) => [...(item.vector as SparseVector).columns]));
    assert.ok(written.size > 0);
    assert.deepEqual([...written].filter((coordinate) => !afterFirst.has(coordinate)), []);

    const wholePath = join(directory, 'whole.db');
    const whole = openSqliteStore(wholePath);
    await whole.vectors('phrases').upsert(items.filter((item) => !deleted.includes(item.id)), 'test');
    await whole.close();
    const wholeDb = new Database(wholePath, { readonly: true });
    const wholeLists = new Map((wholeDb.prepare('SELECT coordinate, hex(postings) AS postings FROM vec_phrases_postings').all() as Array<{ coordinate: number; postings: string }>).map((row) => [row.coordinate, row.postings]));
    wholeDb.close();
    assert.deepEqual(lists, wholeLists);
    const [reopened, wholeReopened] = [openSqliteStore(path, { readonly: true }), openSqliteStore(wholePath, { readonly: true })];
    assert.deepEqual(await describedSparseSpace(reopened), await describedSparseSpace(wholeReopened));
    await reopened.close();
    await wholeReopened.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
