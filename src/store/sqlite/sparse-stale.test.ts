/*
 * A draft's replaced sparse vectors (`deferSparseReplacements`): they go to the tails and their rows are marked stale,
 * and the stored lists stay as they were, until the draft removes content — then, and when such a draft is sealed,
 * no stale entry is left in the file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { createRandom } from '../../core/random.js';
import type { SparseVector } from '../../providers/embed/embedder.js';
import { decodeCoordinatePostings } from '../postings-codec.js';
import { replaceVectors } from '../replace-vectors.js';
import type { Store } from '../store.js';
import { openSqliteStore, sealSqliteStore } from './sqlite-store.js';
import { describedSparseSpace, randomSparseVector } from '../../../test/helpers/sparse-space.js';

/** A table of the file, read beside the open store (committed rows only). */
function fileRows<T>(path: string, sql: string): T[] {
  const db = new Database(path, { readonly: true });
  try {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(/FROM (\w+)/.exec(sql)?.[1]) !== undefined;
    return exists ? (db.prepare(sql).raw(true).all() as T[]) : [];
  } finally {
    db.close();
  }
}

const storedLists = (path: string): Array<[number, Buffer]> => fileRows(path, 'SELECT coordinate, postings FROM vec_phrases_postings ORDER BY coordinate');
const staleRows = (path: string): number[] => fileRows<[number]>(path, 'SELECT row FROM vec_phrases_stale ORDER BY row').map(([row]) => row);

/** A deferring draft file and an in-memory store holding the same `count` random vectors; `write` upserts into both. */
async function withDraftAndWhole(
  seed: number,
  count: number,
  body: (pair: { path: string; draft: Store; whole: Store; random: () => number; items: Array<{ id: string; vector: SparseVector }>; write(batch: Array<{ id: string; vector: SparseVector }>): Promise<void> }) => Promise<void>,
): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-sparse-stale-'));
  const random = createRandom(seed);
  const items = Array.from({ length: count }, (_, index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
  const path = join(directory, 'draft.db');
  const draft = openSqliteStore(path, { deferSparseReplacements: true });
  const whole = openSqliteStore(':memory:');
  const write = async (batch: Array<{ id: string; vector: SparseVector }>): Promise<void> => {
    for (const store of [draft, whole]) await store.vectors('phrases').upsert(batch, 'test');
  };
  try {
    await write(items);
    await body({ path, draft, whole, random, items, write });
  } finally {
    await draft.close();
    await whole.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

test('in a draft, replaced vectors go to the tails and the stored lists are not rewritten; every read sees the new vectors', async () => {
  await withDraftAndWhole(1138, 200, async ({ path, draft, whole, random, write }) => {
    const before = storedLists(path);

    const replacements = [3, 40, 41, 99, 150, 199].map((index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
    const added = [{ id: 'p200', vector: randomSparseVector(random) }];
    await write([...replacements, ...added]);
    assert.deepEqual(storedLists(path), before, 'the stored lists are the same bytes');
    assert.deepEqual(staleRows(path), [3, 40, 41, 99, 150, 199]);
    assert.deepEqual(await describedSparseSpace(draft), await describedSparseSpace(whole));

    // Replaced again (a stale row's tail entries are replaced too), with others, then new rows appended alone.
    const again = [40, 7].map((index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
    await write(again);
    const appended = Array.from({ length: 5 }, (_, index) => ({ id: `q${index}`, vector: randomSparseVector(random) }));
    await write(appended);
    assert.deepEqual(storedLists(path), before);
    assert.deepEqual(staleRows(path), [3, 7, 40, 41, 99, 150, 199]);
    assert.deepEqual(await describedSparseSpace(draft), await describedSparseSpace(whole));

    // A deletion renumbers the rows; a draft that removed no content keeps its stale rows stale, renumbered (row 41 goes).
    const storedBefore = storedLists(path).length;
    for (const store of [draft, whole]) await store.vectors('phrases').delete(['p41', 'p120']);
    assert.deepEqual(staleRows(path), [3, 7, 40, 98, 148, 197]);
    assert.equal(storedLists(path).length, storedBefore);
    assert.deepEqual(await describedSparseSpace(draft), await describedSparseSpace(whole));
  });
});

test('past an eighth of the rows stale, a replacement rewrites the lists instead, and nothing stays stale', async () => {
  await withDraftAndWhole(1139, 80, async ({ path, draft, whole, random, items, write }) => {
    await write(items.slice(0, 8).map((item) => ({ id: item.id, vector: randomSparseVector(random) })));
    assert.equal(staleRows(path).length, 8);
    await write(items.slice(20, 25).map((item) => ({ id: item.id, vector: randomSparseVector(random) })));
    assert.deepEqual(staleRows(path), []);
    assert.deepEqual(await describedSparseSpace(draft), await describedSparseSpace(whole));
  });
});

test('a draft that removes chunks still defers replacements, and its seal rewrites the lists holding a stale entry', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'kgrag-sparse-stale-'));
  try {
    const random = createRandom(1140);
    const items = Array.from({ length: 120 }, (_, index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
    const replaced = [5, 60, 61].map((index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
    const path = join(directory, 'draft.db');
    const draft = openSqliteStore(path, { deferSparseReplacements: true });
    const whole = openSqliteStore(':memory:');
    for (const store of [draft, whole]) {
      await store.vectors('phrases').upsert(items, 'test');
      await store.vectors('phrases').upsert(replaced, 'test');
    }
    assert.deepEqual(staleRows(path), [5, 60, 61]);
    // The chunks go (a document deleted in the same run): the old vectors of rows 5, 60 and 61 may hold their words.
    await draft.table('chunks').clear();
    const after = [{ id: 'p9', vector: randomSparseVector(random) }];
    const other = openSqliteStore(join(directory, 'other.db'), { deferSparseReplacements: true });
    await other.vectors('phrases').upsert(items, 'test');
    await other.vectors('phrases').upsert(replaced, 'test');
    await other.table('chunks').clear();
    sealSqliteStore(other);
    for (const store of [draft, whole]) await store.vectors('phrases').upsert(after, 'test');
    assert.deepEqual(staleRows(path), [5, 9, 60, 61], 'a replacement after the removal waits in the tails too');
    assert.deepEqual(await describedSparseSpace(draft), await describedSparseSpace(whole));
    sealSqliteStore(draft);
    assert.deepEqual(staleRows(path), [], 'the seal leaves no stale entry');
    await draft.close();

    // Sealed without another vector write: the seal rewrote the lists, and the draft's record of the removal is gone.
    const sealed = join(directory, 'other.db');
    assert.deepEqual(staleRows(sealed), []);
    assert.deepEqual(fileRows(sealed, "SELECT key FROM meta WHERE key LIKE 'draft:%'"), []);
    const current = new Map<number, Map<number, number>>();
    for (const [coordinate, blob] of storedLists(sealed)) {
      const { rows, values } = decodeCoordinatePostings(blob);
      rows.forEach((row, entry) => {
        if (!current.has(row)) current.set(row, new Map());
        current.get(row)?.set(coordinate, values[entry] as number);
      });
    }
    for (const [index, item] of [5, 60, 61].map((row, at) => [row, replaced[at]] as const)) {
      const vector = item?.vector as SparseVector;
      const expected = new Map(Array.from(vector.columns, (column, entry) => [column, Math.fround(vector.values[entry] as number)]));
      assert.deepEqual(current.get(index), expected, `row ${index} holds its new vector only`);
    }
    const reopened = openSqliteStore(sealed, { readonly: true });
    const wholeBefore = openSqliteStore(':memory:');
    await wholeBefore.vectors('phrases').upsert(items, 'test');
    await wholeBefore.vectors('phrases').upsert(replaced, 'test');
    assert.deepEqual(await describedSparseSpace(reopened), await describedSparseSpace(wholeBefore));
    await reopened.close();
    await wholeBefore.close();
    await whole.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('in a draft that removed content, replacements and then a deletion leave the bytes of the space written anew without the deleted rows, with no stale row and no tail', async () => {
  await withDraftAndWhole(1141, 300, async ({ path, draft, random, items, write }) => {
    await draft.table('chunks').clear();
    const replaced = [2, 17, 150, 151, 298].map((index) => ({ id: `p${index}`, vector: randomSparseVector(random) }));
    await write(replaced);
    assert.deepEqual(staleRows(path), [2, 17, 150, 151, 298], 'replacements wait in the tails after the removal too');
    await draft.vectors('phrases').delete(['p0', 'p151', 'p200']);
    assert.deepEqual(staleRows(path), []);
    assert.deepEqual(fileRows(path, 'SELECT coordinate FROM vec_phrases_tail'), [], 'every tail is folded in');
    // The same space written at once: the kept rows in order, each with its current vector.
    const current = new Map(items.map((item) => [item.id, item.vector]));
    for (const item of replaced) current.set(item.id, item.vector);
    for (const id of ['p0', 'p151', 'p200']) current.delete(id);
    const anewPath = join(path, '..', 'anew.db');
    const anew = openSqliteStore(anewPath);
    try {
      await anew.vectors('phrases').upsert([...current].map(([id, vector]) => ({ id, vector })), 'test');
    } finally {
      await anew.close();
    }
    assert.deepEqual(storedLists(path), storedLists(anewPath));
  });
});

/** Every read of the space `phrases`, by id: what an update's reads see whatever the rows' order. */
async function spaceById(store: Store): Promise<unknown> {
  const space = store.vectors('phrases');
  const { ids, matrix } = await space.load();
  const dimensions = matrix.length / Math.max(1, ids.length);
  const query = new Float32Array(dimensions).fill(0.125);
  const { scores } = await space.scoreMany(query, 1);
  const some = ids.filter((_, index) => index % 3 === 1);
  const picked = await space.load(some);
  const sparse = await space.loadSparse();
  assert.deepEqual(sparse.ids, ids, 'the sparse rows come in the order of ids()');
  assert.deepEqual(picked.ids, some);
  assert.deepEqual(picked.matrix, Float32Array.from(some.flatMap((id) => [...matrix.subarray(ids.indexOf(id) * dimensions, (ids.indexOf(id) + 1) * dimensions)])));
  const byId = (values: (index: number) => unknown): Array<[string, unknown]> => ids.map((id, index): [string, unknown] => [id, values(index)]).sort(([left], [right]) => (left < right ? -1 : 1));
  return {
    count: await space.count(),
    vectors: byId((index) => Array.from(matrix.subarray(index * dimensions, (index + 1) * dimensions))),
    scores: byId((index) => scores[index]),
    top: new Set((await space.search(query, 7)).map((hit) => `${hit.id} ${hit.score.toFixed(6)}`)),
  };
}

test('in a draft that removed no content, a replace gives new ids the rows of removed ones: no list is rewritten, and every read sees what an upsert and a delete leave', async () => {
  await withDraftAndWhole(1142, 200, async ({ path, draft, whole, random }) => {
    const before = storedLists(path);
    const changed = [{ id: 'p10', vector: randomSparseVector(random) }];
    const added = Array.from({ length: 3 }, (_, index) => ({ id: `n${index}`, vector: randomSparseVector(random) }));
    const removed = ['p150', 'p40'];
    await replaceVectors(draft.vectors('phrases'), removed, [...changed, ...added], 'test');
    await whole.vectors('phrases').upsert([...changed, ...added], 'test');
    await whole.vectors('phrases').delete(removed);
    assert.deepEqual(storedLists(path), before, 'the stored lists are the same bytes');
    // The first new id takes the first removed row, the next the other; the third is appended.
    const ids = await draft.vectors('phrases').ids();
    assert.deepEqual([ids[10], ids[40], ids[150], ids.length, ids.at(-1)], ['p10', 'n0', 'n1', 201, 'n2']);
    assert.deepEqual(staleRows(path), [10, 40, 150]);
    assert.deepEqual(await spaceById(draft), await spaceById(whole));

    // More removed ids than new ones: the rows left over are deleted, and the others move down.
    await replaceVectors(draft.vectors('phrases'), ['p1', 'p2', 'n2'], [{ id: 'n3', vector: added[0]?.vector as SparseVector }], 'test');
    await whole.vectors('phrases').upsert([{ id: 'n3', vector: added[0]?.vector as SparseVector }], 'test');
    await whole.vectors('phrases').delete(['p1', 'p2', 'n2']);
    assert.deepEqual((await draft.vectors('phrases').ids()).slice(0, 3), ['p0', 'n3', 'p3']);
    assert.deepEqual(await spaceById(draft), await spaceById(whole));
  });
});

test('a replace in a draft that removed content, or outside a draft, deletes and appends: the order is insertion order', async () => {
  await withDraftAndWhole(1143, 120, async ({ draft, whole, random }) => {
    await draft.table('chunks').clear();
    const items = [{ id: 'n0', vector: randomSparseVector(random) }];
    await replaceVectors(draft.vectors('phrases'), ['p5'], items, 'test');
    await replaceVectors(whole.vectors('phrases'), ['p5'], items, 'test');
    const expected = [...Array.from({ length: 120 }, (_, index) => `p${index}`).filter((id) => id !== 'p5'), 'n0'];
    assert.deepEqual(await draft.vectors('phrases').ids(), expected);
    assert.deepEqual(await whole.vectors('phrases').ids(), expected);
    assert.deepEqual(await describedSparseSpace(draft), await describedSparseSpace(whole));
  });
});
