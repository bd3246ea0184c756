import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { TableName } from '../schema.js';
import type { RowAccess, Store } from '../store.js';
import type { WorkspaceStorage } from '../workspace-storage.js';
import type { WriteRecord } from '../write-record.js';
import { openSqliteWorkspaceStorage } from './sqlite-workspace-storage.js';
import { WorkspaceStateFile } from './workspace-state-file.js';

const root = mkdtempSync(join(tmpdir(), 'kgrag-sqlite-workspace-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A state file as kgrag wrote it before writes were recorded when they start: only how the last run ended. */
function olderStateFile(path: string): void {
  const db = new Database(path);
  db.exec(`
    CREATE TABLE writer (slot INTEGER PRIMARY KEY CHECK (slot = 1), pid INTEGER NOT NULL, hostname TEXT NOT NULL,
      start_ticks INTEGER, command TEXT NOT NULL, started_at TEXT NOT NULL, token TEXT NOT NULL);
    CREATE TABLE last_run (slot INTEGER PRIMARY KEY CHECK (slot = 1), status TEXT NOT NULL, step TEXT, error TEXT, at TEXT NOT NULL);
    CREATE TABLE llm_cache (key TEXT PRIMARY KEY, response TEXT NOT NULL, created_at TEXT NOT NULL);
    INSERT INTO last_run VALUES (1, 'failed', 'reports', 'the model went away', '2026-01-01T00:00:00.000Z');`);
  db.close();
}

describe('the write record of a SQLite workspace', () => {
  it('reads how a run ended from a state file of an older kgrag, read-only as well, and writes the full record there', async () => {
    mkdirSync(join(root, 'older'));
    const path = join(root, 'older', 'kgrag.db');
    olderStateFile(`${path}-state`);
    const storage = openSqliteWorkspaceStorage(path);
    const expected = { status: 'failed', step: 'reports', error: 'the model went away', at: '2026-01-01T00:00:00.000Z', command: null, startedAt: null, deleting: [], processGone: false };
    assert.deepEqual((await storage.status()).unpublished, expected);

    const session = await storage.beginWrite({ command: 'kgrag delete notes.md' });
    await session.recordDeletion([{ id: 'a'.repeat(64), title: 'Notes' }]);
    assert.equal((await storage.status()).unpublished, undefined, 'a write in progress is no unpublished run');
    await session.end({ status: 'failed', step: 'chunk', error: 'disk full' });
    const ended = (await storage.status()).unpublished;
    assert.equal(ended?.command, 'kgrag delete notes.md');
    assert.deepEqual(ended?.deleting, [{ id: 'a'.repeat(64), title: 'Notes' }]);
    assert.equal(ended?.processGone, false);
    await storage.close();
  });

  it('records the documents a write is to delete with its start, and does not write them again once the draft exists', async () => {
    const path = join(root, 'planned', 'kgrag.db');
    const storage = openSqliteWorkspaceStorage(path);
    const notes = { id: 'b'.repeat(64), title: 'Notes' };
    const session = await storage.beginWrite({ command: 'kgrag delete notes.md', deleting: [notes] });
    const file = new WorkspaceStateFile(`${path}-state`);
    assert.deepEqual(file.writeRecord()?.deleting, [notes], 'named before the draft was made');
    // What the draft writes next would be written over by a second record: none is.
    file.setWriteRecord({ ...(file.writeRecord() as WriteRecord), step: 'marker' });
    await session.recordDeletion([notes]);
    assert.equal(file.writeRecord()?.step, 'marker', 'the same documents are not recorded again');
    await session.recordDeletion([notes, { id: 'c'.repeat(64), title: 'More' }]);
    assert.deepEqual(file.writeRecord()?.deleting.map((document) => document.title), ['Notes', 'More']);
    await session.end({ status: 'failed', step: 'chunk', error: 'disk full' });
    file.close();
    await storage.close();
  });

  it('ignores a running record of a generation that is already published (a writer killed between publishing and clearing it)', async () => {
    const path = join(root, 'published', 'kgrag.db');
    const storage = openSqliteWorkspaceStorage(path);
    const first = await storage.beginWrite({ command: 'kgrag index docs/' });
    await first.publish();
    await first.end();
    // What a writer had recorded, by a process that is gone (no pid is above Linux's largest, 2^22).
    const file = new WorkspaceStateFile(`${path}-state`);
    const gone = { pid: 2 ** 22 + 1, hostname: hostname(), startTicks: null };
    const running = { status: 'running' as const, step: null, error: null, at: 'then', command: 'kgrag index docs/', startedAt: 'then', deleting: [], process: gone };
    file.setWriteRecord({ ...running, generation: 0 });
    assert.equal((await storage.status()).unpublished, undefined);
    file.setWriteRecord({ ...running, generation: 1 });
    assert.equal((await storage.status()).unpublished?.processGone, true, 'a killed writer of the next generation is reported');
    file.close();
    await storage.close();
  });
});

describe('plugin tables in a SQLite workspace', () => {
  it('are in every draft and published generation, read-only readers included, and keep their rows across publishes', async () => {
    mkdirSync(join(root, 'plugin'));
    const tables = { pluginScores: { sqlName: 'plugin_scores', key: ['id'], hid: false, columns: { id: { type: 'text' as const }, score: { type: 'real' as const } } } };
    const storage = openSqliteWorkspaceStorage(join(root, 'plugin', 'kgrag.db'), { tables });
    const scores = (store: Store): RowAccess<{ id: string; score: number }> => store.table('pluginScores' as TableName) as unknown as RowAccess<{ id: string; score: number }>;
    for (const [round, rows] of [[1, [{ id: 'a', score: 1 }]], [2, [{ id: 'b', score: 2 }]]] as const) {
      const session = await storage.beginWrite({ command: `kgrag index (round ${round})` });
      await scores(session.store).upsert(rows);
      await session.publish();
      await session.end();
    }
    const snapshot = await storage.snapshot();
    try {
      assert.deepEqual(await scores(snapshot?.store as Store).all(), [
        { id: 'a', score: 1 },
        { id: 'b', score: 2 },
      ]);
    } finally {
      snapshot?.release();
      await storage.close();
    }
    assert.throws(() => openSqliteWorkspaceStorage(join(root, 'plugin', 'other.db'), { tables: { chunks: tables.pluginScores } }), /built-in table/);
  });
});

/** A workspace in a new folder under `root` whose first write, meta `round` = 1, is published. */
async function publishedWorkspace(name: string): Promise<{ path: string; storage: WorkspaceStorage }> {
  mkdirSync(join(root, name));
  const path = join(root, name, 'kgrag.db');
  const storage = openSqliteWorkspaceStorage(path);
  const first = await storage.beginWrite({ command: 'kgrag index (first)' });
  await first.store.setMeta('round', 1);
  await first.publish();
  await first.end();
  return { path, storage };
}

/** Asserts the published index's meta `round`, then closes `storage`. */
async function assertPublishedRound(storage: WorkspaceStorage, round: number): Promise<void> {
  const snapshot = await storage.snapshot();
  try {
    assert.equal(await snapshot?.store.getMeta('round'), round);
  } finally {
    snapshot?.release();
    await storage.close();
  }
}

describe('the draft of an update', () => {
  it('keeps its commits in its write-ahead log until it publishes (none is copied into the draft file before), across a resumed run too', async () => {
    const { path, storage } = await publishedWorkspace('log');
    const published = readFileSync(path);
    // Blobs of 5 MB: more than SQLite's default of 1,000 pages (4 MB) in the log would make a commit checkpoint.
    const blob = (seed: number): Uint8Array => {
      const bytes = new Uint8Array(5 * 1024 * 1024);
      for (let index = 0; index < bytes.length; index++) bytes[index] = (index * seed) % 251;
      return bytes;
    };
    const update = await storage.beginWrite({ command: 'kgrag index (update)' });
    await update.store.setBlob('first', blob(3));
    await update.store.setBlob('second', blob(5));
    // Past the header, which switching the draft to a write-ahead log changes.
    assert.ok(readFileSync(`${path}-draft`).subarray(100).equals(published.subarray(100)), 'the draft file is the published copy until sealed');
    await update.end({ status: 'failed', step: 'chunk', error: 'stopped' });
    const resumed = await storage.beginWrite({ command: 'kgrag index (resumed)' });
    assert.equal(resumed.resumed, true);
    await resumed.store.setMeta('round', 2);
    await resumed.publish();
    await resumed.end();
    const snapshot = await storage.snapshot();
    try {
      assert.equal(await snapshot?.store.getMeta('round'), 2);
      assert.deepEqual(await snapshot?.store.getBlob('second'), blob(5));
    } finally {
      snapshot?.release();
      await storage.close();
    }
  });
});

describe('a draft whose copy may not be on the disk', () => {
  it('is marked synced once it is, by the time its writer lets go of the lock; unmarked, it is resumed only in the boot it was copied in', async () => {
    const { path, storage } = await publishedWorkspace('synced');
    assert.equal(existsSync(`${path}-draft.synced`), false, 'a published draft leaves no mark');
    const update = await storage.beginWrite({ command: 'kgrag index (update)' });
    await update.store.setMeta('round', 2);
    await update.end({ status: 'interrupted', step: null, error: null });
    assert.equal(existsSync(`${path}-draft.synced`), true);
    // What a process killed before the sync finished leaves: the draft without its mark, in the page cache all the same.
    rmSync(`${path}-draft.synced`);
    const killed = await storage.beginWrite({ command: 'kgrag index (after a kill)' });
    assert.equal(killed.resumed, true, 'an unmarked draft of this boot is resumed');
    assert.equal(await killed.store.getMeta('round'), 2);
    await killed.end({ status: 'interrupted', step: null, error: null });
    assert.equal(existsSync(`${path}-draft.synced`), true, 'and marked once synced');
    // What a machine that stopped before the sync finished leaves: the draft without its mark, copied in another boot.
    rmSync(`${path}-draft.synced`);
    writeFileSync(`${path}-draft.boot`, 'another boot');
    const next = await storage.beginWrite({ command: 'kgrag index (next)' });
    assert.equal(next.resumed, false);
    assert.equal(await next.store.getMeta('round'), 1, 'the next write copies the published index again');
    await next.end({ status: 'interrupted', step: null, error: null });
    const resumed = await storage.beginWrite({ command: 'kgrag index (resumed)' });
    assert.equal(resumed.resumed, true, 'a marked draft is resumed');
    await resumed.store.setMeta('round', 3);
    await resumed.publish();
    await resumed.end();
    assert.equal(existsSync(`${path}-draft.synced`), false);
    assert.equal(existsSync(`${path}-draft.boot`), false);
    await assertPublishedRound(storage, 3);
  });
});

describe('a draft whose seal was cut short', () => {
  it('is not resumed: its log was folded in without a sync, so the next write copies the published index again', async () => {
    const { path, storage } = await publishedWorkspace('sealing');
    const update = await storage.beginWrite({ command: 'kgrag index (update)' });
    await update.store.setMeta('round', 2);
    await update.end({ status: 'interrupted', step: null, error: null });
    // What a process killed while sealing leaves beside its draft.
    writeFileSync(`${path}-draft.sealing`, '');
    const next = await storage.beginWrite({ command: 'kgrag index (next)' });
    assert.equal(next.resumed, false);
    assert.equal(await next.store.getMeta('round'), 1);
    assert.equal(existsSync(`${path}-draft.sealing`), false);
    await next.store.setMeta('round', 3);
    await next.publish();
    await next.end();
    assert.equal(existsSync(`${path}-draft.sealing`), false);
    assert.equal(existsSync(`${path}-draft`), false);
    await assertPublishedRound(storage, 3);
  });
});

describe('the workspace state file', () => {
  it('is not written by a process that only reads it', () => {
    mkdirSync(join(root, 'state'));
    const path = join(root, 'state', 'kgrag.db-state');
    const writer = new WorkspaceStateFile(path);
    assert.equal(writer.tryLock({ pid: process.pid, hostname: hostname(), startTicks: null, command: 'kgrag index', startedAt: 'now' }, 'token'), undefined);
    writer.close();
    // The header's file change counter (bytes 24–27) counts the transactions that wrote the file.
    const changes = (): number => readFileSync(path).readUInt32BE(24);
    const before = changes();
    const reader = new WorkspaceStateFile(path);
    assert.equal(reader.writer()?.pid, process.pid);
    reader.close();
    assert.equal(changes(), before);
  });
});
