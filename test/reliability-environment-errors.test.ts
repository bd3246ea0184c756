import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { toEnvironmentError } from '../src/core/environment-error.js';
import { KgragError } from '../src/core/errors.js';
import { formatErrorLine } from '../src/core/format-error-line.js';
import { startMockOpenAiServer } from '../src/testing/mock-openai-server.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import type { TableRows } from '../src/store/schema.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

/*
 * Issue 16: a full disk, a read-only or locked database, a YAML alias bomb and other refusals of the machine
 * were reported as "this looks like a bug in kgrag". Each now says what happened and what to do, where it
 * happens (the store, the configuration, file writes) and, for raw errors, in the CLI's last resort.
 * None suggests deleting the index.
 */

const root = mkdtempSync(join(tmpdir(), 'kgrag-reliability-env-'));
after(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const freshPath = (): string => join(root, `store-${counter++}`, 'kgrag.db');

/**
 * SQLite limits such as `max_page_count` and `busy_timeout` belong to one connection and no public option
 * sets them, so the test sets them on the store's own connection.
 */
function setConnectionPragma(store: Store, pragma: string): void {
  const exec = (store as unknown as { exec?: (sql: string) => void }).exec;
  assert.ok(exec, 'the SQLite store can run a statement');
  exec.call(store, `PRAGMA ${pragma}`);
}

function documents(count: number): Array<TableRows['documents']> {
  return Array.from({ length: count }, (_, index) => ({
    id: `doc-${index}`,
    title: `Document ${index}`,
    source: `file-${index}.txt`,
    text: `Text of document ${index}. `.repeat(40),
    metadata: {},
    contentHash: `hash-${index}`,
    createdAt: '2024-01-01T00:00:00.000Z',
  }));
}

/** An environment error about `path` that says what to do and never suggests deleting anything. */
function explains(code: string, path?: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(KgragError.isInstance(error), `expected a KgragError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.equal(error.category, 'environment');
    if (path !== undefined) assert.ok(error.message.includes(path), `names ${path}: ${error.message}`);
    assert.ok((error.hint ?? '').length > 20, 'has a hint');
    assert.doesNotMatch(`${error.message} ${error.hint}`, /delete|remove|bug in kgrag/i);
    return true;
  };
}

describe('environment errors at the store', () => {
  test('a full disk while writing the index names the database and says to free space', async () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    setConnectionPragma(store, 'max_page_count = 1');
    await assert.rejects(store.table('documents').upsert(documents(500)), explains('ENV_DISK_FULL', path));
    await store.close();
  });

  test('a write to a read-only database is explained', async () => {
    const path = freshPath();
    await (await openSqliteStore(path)).close();
    const store = openSqliteStore(path, { readonly: true });
    await assert.rejects(store.table('documents').upsert(documents(1)), explains('ENV_READ_ONLY', path));
    await store.close();
  });

  test('a database locked by another process is explained, not reported as a bug', async () => {
    const path = freshPath();
    const store = openSqliteStore(path);
    setConnectionPragma(store, 'busy_timeout = 20');
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      await assert.rejects(store.table('documents').upsert(documents(1)), (error: unknown) => {
        explains('ENV_DATABASE_LOCKED', path)(error);
        assert.match((error as KgragError).hint ?? '', /another kgrag command/);
        return true;
      });
    } finally {
      other.exec('ROLLBACK');
      other.close();
      await store.close();
    }
  });

  test('a damaged database file is refused without suggesting to delete it', () => {
    const path = freshPath();
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, 'not an SQLite file, but long enough to look like a header of one');
    assert.throws(
      () => openSqliteStore(path),
      (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_CORRUPT' && !/delete|remove/i.test(`${error.message} ${error.hint}`),
    );
  });
});

describe('the last-resort classifier of raw errors', () => {
  const rawError = (fn: () => unknown): unknown => {
    try {
      fn();
    } catch (error) {
      return error;
    }
    assert.fail('expected an error');
  };
  const notABug = (error: unknown, pattern: RegExp): void => {
    assert.ok(!KgragError.isInstance(error), 'a raw error, as it reaches the CLI');
    const line = formatErrorLine(error);
    assert.doesNotMatch(line, /bug in kgrag|delete/i);
    assert.match(line, pattern);
  };

  test('SQLite: full, read-only, locked', () => {
    const full = new Database(':memory:');
    full.pragma('max_page_count = 2');
    notABug(rawError(() => full.exec('CREATE TABLE t (x); INSERT INTO t VALUES (randomblob(100000))')), /disk is full — free space/);
    const path = freshPath();
    mkdirSync(join(path, '..'), { recursive: true });
    const writer = new Database(path);
    writer.exec('CREATE TABLE t (x)');
    const readOnly = new Database(path);
    readOnly.pragma('query_only = 1');
    notABug(rawError(() => readOnly.exec('INSERT INTO t VALUES (1)')), /read-only.* — make .* writable/);
    writer.exec('BEGIN IMMEDIATE');
    const blocked = new Database(path, { timeout: 10 });
    notABug(rawError(() => blocked.exec('BEGIN IMMEDIATE')), /locked by another process.* — .*wait for it to finish/);
    writer.exec('ROLLBACK');
    for (const db of [full, writer, readOnly, blocked]) db.close();
  });

  test('Node: no space left, name too long, too many open files', () => {
    if (existsSync('/dev/full')) notABug(rawError(() => writeFileSync('/dev/full', 'x')), /disk is full/);
    notABug(rawError(() => openSync(join(root, 'n'.repeat(300)), 'r')), /path is too long .* — use a shorter/);
    const tooMany = Object.assign(new Error('EMFILE: too many open files, open \'/data/a.txt\''), { code: 'EMFILE', path: '/data/a.txt' });
    notABug(tooMany, /too many open files.*\(\/data\/a\.txt\).* — raise the open-file limit/);
    assert.equal(toEnvironmentError(new Error('something else')), undefined, 'other errors stay bugs');
  });

  test('a package missing from the install is an incomplete install, named with its fix', async () => {
    const missing = await import('kgrag-no-such-package' as string).then(
      () => assert.fail('the import should fail'),
      (error: unknown) => error,
    );
    notABug(missing, /A package kgrag needs is not installed.*kgrag-no-such-package.* — reinstall kgrag/);
  });
});

describe('environment and configuration errors in the CLI', () => {
  test('a YAML alias bomb in kgrag.yaml is a configuration error, not a bug', async () => {
    const workspace = join(root, 'alias-bomb');
    mkdirSync(workspace, { recursive: true });
    const levels = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]'];
    for (let level = 1; level < 8; level += 1) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      levels.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${previous}`).join(', ')}]`);
    }
    writeFileSync(join(workspace, 'kgrag.yaml'), `${levels.join('\n')}\n`);
    const run = await runCliCaptured(['query', 'anything', '-w', workspace], { cwd: root });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /kgrag\.yaml: its YAML aliases .* expand to too many values \(an alias bomb\)/);
    assert.doesNotMatch(run.stderr, /bug in kgrag/);
  });

  test('a report that cannot be written for lack of space says so', { skip: !existsSync('/dev/full') && 'no /dev/full here' }, async () => {
    const server = await startMockOpenAiServer({ reply: () => ({ personas: ['a reader'], tasks: ['reading'], questions: ['What is it about?'] }) });
    try {
      const run = await runCliCaptured(['generate-questions', '--description', 'd', '--personas', '1', '--tasks', '1', '--questions', '1', '-o', '/dev/full', '-w', join(root, 'ws-full')], {
        cwd: root,
        env: { KGRAG_LLM_BASE_URL: server.url, KGRAG_LLM_MODEL: 'mock-model' },
      });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /kgrag: error: The disk is full while writing the questions \(\/dev\/full\): .* — free space on the disk/);
    } finally {
      await server.close();
    }
  });
});
