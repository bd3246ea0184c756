import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { isProcessRunning } from '../../core/process-identity.js';
import type { CachedChat } from '../../providers/llm/llm-response-cache.js';
import type { WriterHolder } from '../workspace-storage.js';
import { readWriteRecord, type WriteRecord } from '../write-record.js';

interface WriterRow {
  pid: number;
  hostname: string;
  start_ticks: number | null;
  command: string;
  started_at: string;
  token: string;
}

/** `application_id` of the state file ("kgst"), so it is never confused with an index. */
const stateApplicationId = 0x6b677374;

/**
 * The small SQLite file beside a workspace's index (`<index>-state`) that coordinates processes: the writer
 * lock, the record of the last write that has not published (`WriteRecord`), and the query-time LLM cache. It is not part of the index:
 * deleting it loses no indexed data. SQLite's own file locking makes taking the writer lock atomic across
 * processes, which a lock file cannot do when a stale lock has to be taken over.
 */
export class WorkspaceStateFile {
  private db: Database.Database | undefined;
  /** Set once opening for writing failed (a read-only folder or file system): later calls only read. */
  private readOnly = false;

  constructor(
    readonly path: string,
    private readonly options: { secureDelete?: boolean } = {},
  ) {}

  /**
   * The database, created on first use when `create`; opened read-only when it cannot be written; undefined
   * when it does not exist and is not to be created, or cannot be opened at all.
   */
  private open(create: boolean): Database.Database | undefined {
    if (this.db) return this.db;
    const exists = existsSync(this.path);
    if (!exists && (!create || this.readOnly)) return undefined;
    if (!this.readOnly) {
      try {
        const db = new Database(this.path);
        db.pragma('busy_timeout = 5000');
        // Rollback journaling: read-only processes can read it without a -shm file, and writes are tiny.
        db.pragma('journal_mode = DELETE');
        // Cleared cache entries are overwritten, not only unlinked from the tree (see `clearCached`).
        if (this.options.secureDelete !== false) db.pragma('secure_delete = ON');
        // Set once: writing it at every open made each reader (a query asking who writes) a writer of the file.
        if (db.pragma('application_id', { simple: true }) !== stateApplicationId) db.pragma(`application_id = ${stateApplicationId}`);
        db.exec(`
          CREATE TABLE IF NOT EXISTS writer (slot INTEGER PRIMARY KEY CHECK (slot = 1), pid INTEGER NOT NULL, hostname TEXT NOT NULL,
            start_ticks INTEGER, command TEXT NOT NULL, started_at TEXT NOT NULL, token TEXT NOT NULL);
          CREATE TABLE IF NOT EXISTS last_run (slot INTEGER PRIMARY KEY CHECK (slot = 1), status TEXT NOT NULL, step TEXT, error TEXT, at TEXT NOT NULL);
          CREATE TABLE IF NOT EXISTS llm_cache (key TEXT PRIMARY KEY, response TEXT NOT NULL, created_at TEXT NOT NULL);`);
        // The whole write record, as JSON; a state file of an older kgrag has only the columns of how a run ended.
        if (!this.hasColumn(db, 'last_run', 'record')) db.exec('ALTER TABLE last_run ADD COLUMN record TEXT');
        this.db = db;
        return db;
      } catch {
        this.readOnly = true;
      }
    }
    if (!existsSync(this.path)) return undefined;
    try {
      const db = new Database(this.path, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      this.db = db;
      return db;
    } catch {
      return undefined;
    }
  }

  /** Whether this process can write the state file (take the lock, persist the cache). */
  get writable(): boolean {
    return this.open(true) !== undefined && !this.readOnly;
  }

  private hasTable(db: Database.Database, name: string): boolean {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }

  private hasColumn(db: Database.Database, table: string, column: string): boolean {
    return (db.pragma(`table_info(${table})`) as Array<{ name: string }>).some((info) => info.name === column);
  }

  /**
   * Takes the writer lock for `holder` unless a running process holds it; returns that process then. A lock
   * whose process is gone (killed, crashed) is taken over in the same transaction that finds it stale.
   */
  tryLock(holder: WriterHolder, token: string): WriterHolder | undefined {
    const db = this.open(true);
    if (!db || this.readOnly) throw new Error(`the workspace state file "${this.path}" cannot be written`);
    const take = db.transaction((): WriterHolder | undefined => {
      const row = db.prepare('SELECT pid, hostname, start_ticks, command, started_at, token FROM writer WHERE slot = 1').get() as WriterRow | undefined;
      if (row && row.token !== token) {
        const current = holderOf(row);
        if (isProcessRunning(current)) return current;
      }
      db.prepare(
        `INSERT INTO writer (slot, pid, hostname, start_ticks, command, started_at, token) VALUES (1, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (slot) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname, start_ticks = excluded.start_ticks,
           command = excluded.command, started_at = excluded.started_at, token = excluded.token`,
      ).run(holder.pid, holder.hostname, holder.startTicks, holder.command, holder.startedAt, token);
      return undefined;
    });
    return take.immediate();
  }

  unlock(token: string): void {
    if (this.open(true) && !this.readOnly) this.db?.prepare('DELETE FROM writer WHERE slot = 1 AND token = ?').run(token);
  }

  /** The running writer, if any (a stale lock of a dead process is not reported). */
  writer(): WriterHolder | undefined {
    const db = this.open(false);
    if (!db || !this.hasTable(db, 'writer')) return undefined;
    const row = db.prepare('SELECT pid, hostname, start_ticks, command, started_at, token FROM writer WHERE slot = 1').get() as WriterRow | undefined;
    if (!row) return undefined;
    const holder = holderOf(row);
    return isProcessRunning(holder) ? holder : undefined;
  }

  /** Replaces the record of the last write (undefined: deletes it); does nothing when the file cannot be written. */
  setWriteRecord(record: WriteRecord | undefined): void {
    const db = this.open(true);
    if (!db || this.readOnly) return;
    if (record === undefined) db.prepare('DELETE FROM last_run').run();
    else {
      db.prepare(
        `INSERT INTO last_run (slot, status, step, error, at, record) VALUES (1, ?, ?, ?, ?, ?)
         ON CONFLICT (slot) DO UPDATE SET status = excluded.status, step = excluded.step, error = excluded.error, at = excluded.at, record = excluded.record`,
      ).run(record.status, record.step, record.error, record.at, JSON.stringify(record));
    }
  }

  writeRecord(): WriteRecord | undefined {
    const db = this.open(false);
    if (!db || !this.hasTable(db, 'last_run')) return undefined;
    const withRecord = this.hasColumn(db, 'last_run', 'record');
    const row = db.prepare(`SELECT status, step, error, at${withRecord ? ', record' : ''} FROM last_run WHERE slot = 1`).get() as
      | { status: string; step: string | null; error: string | null; at: string; record?: string | null }
      | undefined;
    if (!row) return undefined;
    return readWriteRecord(typeof row.record === 'string' ? JSON.parse(row.record) : { status: row.status, step: row.step, error: row.error, at: row.at });
  }

  getCached(key: string): CachedChat | undefined {
    const db = this.open(false);
    if (!db || !this.hasTable(db, 'llm_cache')) return undefined;
    const row = db.prepare('SELECT response FROM llm_cache WHERE key = ?').get(key) as { response: string } | undefined;
    return row ? (JSON.parse(row.response) as CachedChat) : undefined;
  }

  /** Stores a reply; returns false when the file cannot be written. */
  setCached(key: string, value: CachedChat, now: string): boolean {
    const db = this.open(true);
    if (!db || this.readOnly) return false;
    db.prepare('INSERT INTO llm_cache (key, response, created_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET response = excluded.response')
      .run(key, JSON.stringify(value), now);
    return true;
  }

  /**
   * Deletes every cached reply and returns how many there were. The rows' bytes are overwritten (`secure_delete`) and
   * the file compacted, so none of a reply survives in it. Throws when the file exists but cannot be written.
   */
  clearCached(): number {
    const db = this.open(false);
    if (!db || !this.hasTable(db, 'llm_cache')) return 0;
    if (this.readOnly) throw new Error(`the workspace state file "${this.path}" cannot be written`);
    const removed = db.prepare('DELETE FROM llm_cache').run().changes;
    // Compaction only returns the zeroed pages to the file system; a reader holding the file keeps it from running.
    try {
      db.exec('VACUUM');
    } catch {
      // The deleted rows are already overwritten; the file stays its size until a later clear.
    }
    return removed;
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}

function holderOf(row: WriterRow): WriterHolder {
  return { pid: row.pid, hostname: row.hostname, startTicks: row.start_ticks, command: row.command, startedAt: row.started_at };
}
