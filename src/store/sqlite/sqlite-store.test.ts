import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { KgragError } from '../../core/errors.js';
import { describeStoreContract } from '../describe-store-contract.js';
import { openSqliteStore, sealSqliteStore } from './sqlite-store.js';
import { storeSchemaVersion } from '../migrations.js';

const directory = mkdtempSync(join(tmpdir(), 'kgrag-sqlite-'));
after(() => rmSync(directory, { recursive: true, force: true }));
let counter = 0;
let lastPath = '';

describeStoreContract('sqlite (file, WAL)', {
  async open(extensions) {
    lastPath = join(directory, `store-${counter++}.db`);
    return openSqliteStore(lastPath, { ...extensions });
  },
  async reopen(extensions) {
    return openSqliteStore(lastPath, { ...extensions });
  },
});

describeStoreContract('sqlite (memory)', { open: async (extensions) => openSqliteStore(':memory:', { ...extensions }) });

test('refuses an SQLite file that is not a kgrag index', () => {
  const path = join(directory, 'foreign.db');
  const foreign = new Database(path);
  foreign.exec('CREATE TABLE people (name TEXT)');
  foreign.close();
  assert.throws(() => openSqliteStore(path), (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_FOREIGN_DATABASE');
});

test('a file that is not a database gives a clear error', () => {
  const path = join(directory, 'garbage.db');
  writeFileSync(path, 'this is not sqlite at all, just some text that is long enough to be a header');
  assert.throws(() => openSqliteStore(path), (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_CORRUPT' && !/delete/i.test(`${error.message} ${error.hint}`));
});

test('a version-1 database is migrated: full-text index rebuilt without stopwords, reports.error added', async () => {
  const path = join(directory, 'version-1.db');
  const store = openSqliteStore(path);
  await store.table('chunks').upsert([
    { id: 'c1', documentId: 'd', ordinal: 0, text: 'The weir of the river', nTokens: 5, start: 0, end: 21 },
    { id: 'c2', documentId: 'd', ordinal: 1, text: 'A mill by the weir and the bridge and the quay', nTokens: 11, start: 21, end: 67 },
  ]);
  await store.close();
  // Rewrite the full-text index the way version 1 stored it (raw text, external content).
  const raw = new Database(path);
  for (const suffix of ['insert', 'delete', 'update']) raw.exec(`DROP TRIGGER chunks_fts_${suffix}`);
  raw.exec('DROP TABLE chunks_fts');
  raw.exec("CREATE VIRTUAL TABLE chunks_fts USING fts5(\"text\", content='chunks', content_rowid='hid', tokenize='unicode61 remove_diacritics 2')");
  raw.exec("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')");
  raw.pragma('user_version = 1');
  raw.close();

  const migrated = openSqliteStore(path);
  try {
    assert.deepEqual((await migrated.searchText('chunks', ['weir'], 5)).map((hit) => hit.id), ['c1', 'c2']);
    await migrated.table('chunks').upsert([{ id: 'c3', documentId: 'd', ordinal: 2, text: 'weir weir weir', nTokens: 3, start: 67, end: 81 }]);
    assert.equal((await migrated.searchText('chunks', ['weir'], 1))[0]?.id, 'c3');
  } finally {
    await migrated.close();
  }
  const check = new Database(path, { readonly: true });
  assert.equal(check.pragma('user_version', { simple: true }), storeSchemaVersion);
  assert.ok((check.prepare('PRAGMA table_info(reports)').all() as Array<{ name: string }>).some((column) => column.name === 'error'));
  check.close();
});

test('a version-3 database opens as it is: its dense vector spaces are read and searched, then a new space is sparse', async () => {
  const path = join(directory, 'version-3.db');
  const store = openSqliteStore(path);
  const vector = (values: number[]): Float32Array => Float32Array.from(values, (value) => value / Math.hypot(...values));
  await store.vectors('chunks').upsert([{ id: 'c', vector: vector([1, 1, 1, 1]) }], 'test:4');
  await store.close();
  // Version 3 kept every space in sqlite-vec and recorded no layout nor revision.
  const raw = new Database(path);
  raw.exec("DELETE FROM meta WHERE key LIKE 'vectors-revision:%'");
  raw.prepare("UPDATE meta SET value = json_remove(value, '$.layout') WHERE key LIKE 'vectors:%'").run();
  assert.equal((raw.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'vec_chunks'").get() as { n: number }).n, 1);
  raw.exec('CREATE INDEX relations_source ON relations ("source")');
  raw.pragma('user_version = 3');
  raw.close();

  const reopened = openSqliteStore(path);
  try {
    const chunks = reopened.vectors('chunks');
    assert.deepEqual(await chunks.info(), { embedderId: 'test:4', dimensions: 4, layout: 'dense', revision: 0 });
    assert.deepEqual((await chunks.search(vector([1, 1, 1, 1]), 1)).map((hit) => hit.id), ['c']);
    assert.deepEqual((await chunks.scoreMany(vector([1, 1, 1, 1]), 1)).rows, 1);
    assert.deepEqual((await reopened.table('relations').all()).length, 0);
    await chunks.clear();
    await chunks.upsert([{ id: 'd', vector: vector([0, 0, 1, 0]) }], 'test:4');
    assert.equal((await chunks.info())?.layout, 'sparse');
  } finally {
    await reopened.close();
  }
  const check = new Database(path, { readonly: true });
  assert.equal((check.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'relations_source'").get() as { n: number }).n, 0);
  check.close();
});

test('a version-4 database is migrated: its full-text indexes lose the terms of deleted rows, the cache gets its tag table', async () => {
  const path = join(directory, 'version-4.db');
  openSqliteStore(path).close();
  // Version 4's full-text index: contentless_delete, whose deletes leave the row's terms behind a tombstone.
  const raw = new Database(path);
  for (const suffix of ['insert', 'delete', 'update']) raw.exec(`DROP TRIGGER chunks_fts_${suffix}`);
  raw.exec('DROP TABLE chunks_fts');
  raw.exec('DROP TABLE llm_cache_sources');
  raw.exec("CREATE VIRTUAL TABLE chunks_fts USING fts5(\"text\", content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')");
  raw.exec('CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN INSERT INTO chunks_fts (rowid, "text") VALUES (new.hid, new."text"); END');
  raw.exec('CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN DELETE FROM chunks_fts WHERE rowid = old.hid; END');
  const insert = raw.prepare('INSERT INTO chunks (id, document_id, ordinal, "text", n_tokens, start, "end") VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (let index = 0; index < 50; index++) insert.run(`c${index}`, 'd', index, `weir number ${index}${index === 7 ? ' vanishedwordxq' : ''}`, 3, index, index + 1);
  raw.exec("DELETE FROM chunks WHERE id = 'c7'");
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.pragma('user_version = 4');
  raw.close();
  assert.ok(readFileSync(path).includes('anishedwordxq'), 'version 4 kept the deleted row\'s term');

  const migrated = openSqliteStore(path);
  try {
    assert.equal((await migrated.searchText('chunks', ['weir'], 100)).length, 49);
    assert.deepEqual(await migrated.searchText('chunks', ['vanishedwordxq'], 5), []);
    await migrated.table('llmCacheSources').upsert([{ key: 'k', source: 'h' }]);
    await migrated.table('externalIds').upsert([{ kind: 'entity', externalId: 'x', id: 'e', system: 'graphrag', record: {} }]);
  } finally {
    sealSqliteStore(migrated);
  }
  assert.ok(!readFileSync(path).includes('anishedwordxq'));
});

test('indexed text is the tokenizer words minus stopwords', async () => {
  const { fullTextIndexText } = await import('../core/full-text-index-text.js');
  assert.equal(fullTextIndexText('The Café of the Weir, and its 2 bridges!'), 'cafe weir its 2 bridges');
  assert.equal(fullTextIndexText(null), '');
});

test('a version-6 database is migrated: the dead chunk_edges table and the relations vector space are dropped, the rest kept', async () => {
  const path = join(directory, 'version-6.db');
  const store = openSqliteStore(path);
  await store.table('chunks').upsert([{ id: 'c1', documentId: 'd', ordinal: 0, text: 'The weir of the river', nTokens: 5, start: 0, end: 21 }]);
  await store.vectors('chunks').upsert([{ id: 'c1', vector: Float32Array.of(0.6, 0.8, 0, 0) }], 'test:4');
  await store.setMeta('kept', { value: 1 });
  await store.close();
  // What version 6 held beside that: an (always empty) chunk_edges table and, in older indexes, a relations space.
  const raw = new Database(path);
  raw.exec('CREATE TABLE IF NOT EXISTS chunk_edges ("a" TEXT NOT NULL, "b" TEXT NOT NULL, "weight" REAL NOT NULL, "kind" TEXT NOT NULL, PRIMARY KEY ("a", "b", "kind"))');
  raw.exec('CREATE INDEX IF NOT EXISTS chunk_edges_b ON chunk_edges ("b")');
  raw.exec('CREATE TABLE vec_relations_sparse (vid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)');
  raw.exec('CREATE TABLE vec_relations_postings (coordinate INTEGER PRIMARY KEY, postings BLOB NOT NULL)');
  raw.prepare('INSERT INTO meta (key, value) VALUES (?, ?), (?, ?)').run('vectors:relations', '{"embedderId":"test:4","dimensions":4,"layout":"sparse"}', 'vectors-revision:relations', '3');
  raw.pragma('user_version = 6');
  raw.close();

  const migrated = openSqliteStore(path);
  try {
    assert.equal((await migrated.table('chunks').all())[0]?.text, 'The weir of the river');
    assert.deepEqual((await migrated.searchText('chunks', ['weir'], 5)).map((hit) => hit.id), ['c1']);
    assert.deepEqual((await migrated.vectors('chunks').search(Float32Array.of(0.6, 0.8, 0, 0), 1)).map((hit) => hit.id), ['c1']);
    assert.deepEqual(await migrated.getMeta('kept'), { value: 1 });
    assert.equal(await migrated.getMeta('vectors:relations'), undefined);
    assert.equal(await migrated.getMeta('vectors-revision:relations'), undefined);
  } finally {
    await migrated.close();
  }
  const check = new Database(path, { readonly: true });
  const names = (check.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'chunk_edges%' OR name LIKE 'vec_relations%'").all() as Array<{ name: string }>).map((row) => row.name);
  assert.deepEqual(names, []);
  assert.equal(check.pragma('user_version', { simple: true }), storeSchemaVersion);
  check.close();
});

test('a whole table of more rows than one page of a read comes back once each, in insertion order, hid gaps and all', async () => {
  const store = openSqliteStore(':memory:');
  const documents = store.table('documents');
  const rows = Array.from({ length: 9000 }, (_, index) => ({
    id: `d${index}`,
    title: `Document ${index}`,
    source: `s${index}`,
    text: 't',
    metadata: { index },
    contentHash: 'h',
    createdAt: '2026-01-01',
  }));
  await documents.upsert(rows);
  await documents.deleteWhere('id', ['d0', 'd4095', 'd4096', 'd8999']);
  const kept = rows.filter((row) => !['d0', 'd4095', 'd4096', 'd8999'].includes(row.id));
  assert.deepEqual((await documents.all()).map(({ hid: _, ...row }) => row), kept);
  assert.deepEqual((await documents.pick(['id', 'metadata'])).map((row) => [row.id, row.metadata]), kept.map((row) => [row.id, row.metadata]));
  await store.close();
});

test('a large blob reads back as last written: by this connection, after a rollback, and after another connection wrote it', async () => {
  const path = join(directory, 'blobs.db');
  const store = openSqliteStore(path);
  const other = openSqliteStore(path);
  try {
    const large = (fill: number): Uint8Array => new Uint8Array(2 * 1024 * 1024).fill(fill);
    await store.setBlob('index', large(1));
    const read = (await store.getBlob('index')) as Uint8Array;
    assert.deepEqual(read, large(1));
    read.fill(9);
    assert.deepEqual(await store.getBlob('index'), large(1), 'a reader changing its bytes changes no later read');
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.setBlob('index', large(2));
        assert.deepEqual(await tx.getBlob('index'), large(2));
        throw new Error('the step failed');
      }),
      /the step failed/,
    );
    assert.deepEqual(await store.getBlob('index'), large(1), 'the rolled-back write is not read');
    await store.setBlob('index', large(5));
    await other.setBlob('index', large(3));
    assert.deepEqual(await store.getBlob('index'), large(3), "another connection's write is read");
    await store.setBlob('index', Uint8Array.of(4));
    assert.deepEqual(await store.getBlob('index'), Uint8Array.of(4));
  } finally {
    await other.close();
    await store.close();
  }
});

test('a large blob rewritten a little larger or smaller keeps its row in place: the log gets the changed pages, not the blob twice', async () => {
  const path = join(directory, 'padded-blobs.db');
  const content = (length: number): Uint8Array => Uint8Array.from({ length }, (_, index) => (index * 131) & 0xff);
  const megabytes = 4 * 1024 * 1024;
  const first = openSqliteStore(path);
  await first.setBlob('graph', content(megabytes));
  await first.close();
  // The file holds the blob; each rewrite below is measured by the write-ahead log it leaves before the next checkpoint.
  const logged = async (value: Uint8Array): Promise<number> => {
    const store = openSqliteStore(path, { autoCheckpointPages: 0 });
    try {
      await store.setBlob('graph', value);
      assert.deepEqual(await store.getBlob('graph'), value);
      return statSync(`${path}-wal`).size;
    } finally {
      await store.close();
    }
  };
  // An update appends to the blob's end: the pages before the change stay as they are.
  const grown = await logged(content(megabytes + 40_000));
  assert.ok(grown < megabytes / 8, `grown by 1 %: ${grown} bytes of log for a ${megabytes}-byte blob`);
  const shrunk = await logged(content(megabytes - 40_000));
  assert.ok(shrunk < megabytes / 8, `shrunk by 1 %: ${shrunk} bytes of log`);
  const reopened = openSqliteStore(path, { readonly: true });
  assert.deepEqual(await reopened.getBlob('graph'), content(megabytes - 40_000), 'no byte of the longer content is read back');
  await reopened.close();
});

test('a large meta record rewritten with its last entries changed keeps its row in place: the log gets the pages that changed', async () => {
  const path = join(directory, 'padded-meta.db');
  const digests = (changed: number): Record<string, string> => Object.fromEntries(Array.from({ length: 40_000 }, (_, index) => [`entity-${index}`, `${index >= 40_000 - changed ? 'updated' : 'old'}-${(index * 2654435761) % 1e9}`]));
  const first = openSqliteStore(path);
  await first.setMeta('digests', digests(0));
  await first.close();
  const store = openSqliteStore(path, { autoCheckpointPages: 0 });
  try {
    await store.setMeta('digests', digests(100));
    assert.deepEqual(await store.getMeta('digests'), digests(100));
    const logged = statSync(`${path}-wal`).size;
    assert.ok(logged < 256 * 1024, `${logged} bytes of log for a record of ${JSON.stringify(digests(100)).length} bytes`);
  } finally {
    await store.close();
  }
});

test('a whole space loaded once is handed out again until it changes, and some of its rows are copied out of it', async () => {
  const dimensions = 16;
  const vector = (index: number): Float32Array => {
    const row = new Float32Array(dimensions);
    row[index % dimensions] = 0.6;
    row[(index * 7 + 3) % dimensions] = index % dimensions === (index * 7 + 3) % dimensions ? 1 : 0.8;
    return row;
  };
  const items = (from: number, to: number) => Array.from({ length: to - from }, (_, offset) => ({ id: `c${from + offset}`, vector: vector(from + offset) }));
  const store = openSqliteStore(':memory:');
  const fresh = openSqliteStore(':memory:');
  try {
    await store.vectors('chunks').upsert(items(0, 40), 'test:16');
    await fresh.vectors('chunks').upsert(items(0, 40), 'test:16');
    const whole = await store.vectors('chunks').load();
    assert.equal((await store.vectors('chunks').load()).matrix, whole.matrix, 'the same matrix, not a copy of it');
    const some = ['c31', 'c2', 'c17', 'c99'];
    const kept = await store.vectors('chunks').load(some);
    assert.notEqual(kept.matrix.buffer, whole.matrix.buffer);
    assert.deepEqual(kept, await fresh.vectors('chunks').load(some), 'the rows the postings give');
    // A change is seen by the next load, whole or in part.
    await store.vectors('chunks').upsert(items(40, 45), 'test:16');
    await fresh.vectors('chunks').upsert(items(40, 45), 'test:16');
    const after = await store.vectors('chunks').load();
    assert.notEqual(after.matrix, whole.matrix);
    assert.deepEqual(after, await fresh.vectors('chunks').load());
    assert.deepEqual(await store.vectors('chunks').load(['c44', 'c0']), await fresh.vectors('chunks').load(['c44', 'c0']));
  } finally {
    await store.close();
    await fresh.close();
  }
});
