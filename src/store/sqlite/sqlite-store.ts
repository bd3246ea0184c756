import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { toEnvironmentError } from '../../core/environment-error.js';
import { KgragError } from '../../core/errors.js';
import { snakeCase, tableNames, tableSpec, type AnyTableSpec, type ColumnOf, type ColumnSpec, type TableName, type TableRows } from '../schema.js';
import { createSimilarityIndex } from '../../math/similarity-index.js';
import {
  appendedCoordinatePostings,
  concatenatedCoordinatePostings,
  coordinatePostingsAfterDeletion,
  coordinatePostingsHoldAny,
  csrRowsFromCoordinatePostings,
  decodeCoordinatePostings,
  encodeCoordinatePostings,
  scatterCoordinatePostings,
  type CoordinatePostings,
} from '../postings-codec.js';
import { blobContent, paddedBlob, paddedJson } from './padded-blob.js';
import { chooseLayout, denseOf, hasPostings, nonZerosOf, sparseRowsOfDense } from '../vector-items.js';
import { encodeColumnValue } from '../core/row-encoding.js';
import { TableBase, type RowFilter } from '../core/table-base.js';
import { pendingMigrationSteps, storeSchemaVersion, type MigrationStep } from '../migrations.js';
import { memoized } from '../core/memoized.js';
import { specOfTable } from '../core/spec-of-table.js';
import { assertVectorSpaceName, validatePluginTables, type PluginTables, type StoreExtensions } from '../store-extensions.js';
import { fullTextIndexText } from '../core/full-text-index-text.js';
import { emptySpaceCache, dotAt, maxKeptMatrixBytes, keepPostings, missingCoordinates, sparseScores, topScoredIds, type SpaceCache } from '../core/space-cache.js';
import { matrixInRowOrder } from '../matrix-in-row-order.js';
import { type SparseRow, type SparseRows } from '../core/sparse-rows.js';
import { assertQueryShape, assertSameEmbedder, uniformDimensions } from '../core/vector-checks.js';
import {
  type ScoredId,
  type SpaceScores,
  type Store,
  type TableAccess,
  type TextSearchTable,
  type VectorIndex,
  type VectorItem,
  type VectorLayout,
  type SparseVectorMatrix,
  type VectorMatrix,
  type VectorSpace,
  type VectorSpaceInfo,
} from '../store.js';
import { positionsOf } from '../../core/positions-of.js';

/** `PRAGMA application_id` of kgrag databases ("kgrg"), so we never write into someone else's SQLite file. */
const applicationId = 0x6b677267;
/** The schema version of the file (`PRAGMA user_version`): the shared list's (`store/migrations.ts`). */
const schemaVersion = storeSchemaVersion;
/** SQL function that turns a column's text into what the full-text index stores. */
const indexTextFunction = 'kgrag_index_text';

/** Bytes of the database file SQLite reads through a memory map. */
const mmapBytes = 256 * 1024 * 1024;
/** sqlite-vec's largest `k`; larger searches fall back to a scan in JavaScript. */
const maxVecK = 4096;
/**
 * The share of a coordinate's stored postings (in bytes) its appended tail may reach before an append folds the tail
 * into them: an append rewrites at most this share of a posting list, and folding every so many appends keeps the
 * rewriting of the whole list within a few times the bytes appended.
 */
const maxTailShare = 1 / 8;

/**
 * The share of a sparse space's rows that may be stale (see `SqliteVectorIndex.replaceInTails`) before a replacement
 * rewrites the lists instead: the tails hold every stale row's vector, and a query reads them beside the stored lists.
 */
const maxStaleShare = 1 / 8;

/** Blobs a connection keeps what it wrote of (see `SqliteStore.writtenBlobs`): from this size, up to the budget in all. */
const minWrittenBlobBytes = 1024 * 1024;
const writtenBlobBudget = 64 * 1024 * 1024;

/** Meta key a deferring draft sets, in the transaction that deletes chunks: it has removed content. */
const contentRemovedKey = 'draft:content-removed';

type SqlValue = string | number | bigint | Buffer | null;

/**
 * The rows of a read, one at a time. Large reads iterate rather than call `Statement.all`: that grows its result array
 * in native code, which took superlinear time on large tables (7.6 s for 1.6 million relation rows against 3.0 s
 * iterated; 32× the 100,000-row time, against 19×).
 */
function iterateRows<R>(statement: Database.Statement, parameter?: SqlValue | Record<string, SqlValue>): IterableIterator<R> {
  return (parameter === undefined ? statement.iterate() : statement.iterate(parameter)) as IterableIterator<R>;
}

/** Rows per page of {@link pagedRows}. */
const readPageRows = 4096;

/**
 * The pages of rows of a raw-mode read `WHERE hid > ? ORDER BY hid LIMIT n` (hid first), from the start; the caller
 * holds a snapshot.
 */
function* pagedRows(statement: Database.Statement): Generator<SqlValue[][]> {
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = statement.all(after) as SqlValue[][];
    yield rows;
    if (rows.length < readPageRows) return;
    after = (rows[rows.length - 1] as SqlValue[])[0] as number;
  }
}

/**
 * Every row of a read of narrow rows (the vector spaces' vids, ids and posting lists), from one `Statement.all`: for
 * rows of a number or a string it took half the time of iterating, at 40,000 rows as at 1.6 million (the superlinear
 * growth {@link iterateRows} avoids is that of wide rows).
 */
function allRows<R>(statement: Database.Statement, parameter?: SqlValue): R[] {
  return (parameter === undefined ? statement.all() : statement.all(parameter)) as R[];
}

/** Options of {@link openSqliteStore}; `tables` are plugins' tables, created with the built-in ones. */
export interface SqliteStoreOptions extends StoreExtensions {
  /** Open read-only (queries from a second process while an index runs). */
  readonly?: boolean;
  /**
   * Overwrite deleted content with zeros (`PRAGMA secure_delete`), so that a deleted row's bytes do not stay in free
   * pages or free space of pages where anyone reading the file could find them. Off only to show what it prevents.
   * @default true
   */
  secureDelete?: boolean;
  /**
   * Pages the write-ahead log may hold before a commit copies them into the database (`PRAGMA wal_autocheckpoint`;
   * 0: only when the store is sealed).
   * @default 1000 (SQLite's)
   */
  autoCheckpointPages?: number;
  /**
   * A draft that is sealed before anyone reads it: replaced sparse vectors go to the tails and their rows are marked
   * stale instead of rewriting the posting lists that hold them (`SqliteVectorIndex.replaceInTails`). A deletion from the
   * space rewrites those lists as it renumbers the rows, and the seal of a draft that removed content (chunks) rewrites
   * the lists still holding a stale entry.
   * @default false
   */
  deferSparseReplacements?: boolean;
  /**
   * Open a writable file without syncing it: no commit syncs (`synchronous = OFF`) until {@link syncSqliteCommits}, once
   * the caller has synced the file itself (a draft's copy of the published index is synced in the background while the
   * update runs, see `openSqliteWorkspaceStorage`). Both the switch to the write-ahead log and the log's first commit
   * sync the database file, and each waited for the whole fresh copy (276 MB for 2Wiki) to reach the disk.
   * @default false
   */
  unsyncedOpen?: boolean;
}

/**
 * Opens (creating if needed) the SQLite store of a workspace: better-sqlite3 with WAL, FTS5 for BM25
 * and sqlite-vec for vector search. `path` may be `:memory:` for tests.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const pluginTables = validatePluginTables(options.tables);
  let db: Database.Database;
  try {
    if (path !== ':memory:' && !options.readonly) mkdirSync(dirname(path), { recursive: true });
    db = new Database(path, { readonly: options.readonly === true, fileMustExist: options.readonly === true });
    sqliteVec.load(db);
    db.function(indexTextFunction, { deterministic: true }, (text: unknown) => fullTextIndexText(typeof text === 'string' ? text : null));
    db.pragma('busy_timeout = 5000');
    // Reads of large blobs (the stored triple index and a method's graph, 21 MB on 2Wiki) copy from mapped pages instead
    // of one read() per 4 KB page: half the CPU of loading them for a cold query.
    db.pragma(`mmap_size = ${mmapBytes}`);
    if (!options.readonly) {
      if (options.unsyncedOpen === true) db.pragma('synchronous = OFF');
      db.pragma('journal_mode = WAL');
      if (options.unsyncedOpen !== true) db.pragma('synchronous = NORMAL');
      if (options.secureDelete !== false) db.pragma('secure_delete = ON');
      if (options.autoCheckpointPages !== undefined) db.pragma(`wal_autocheckpoint = ${Math.max(0, Math.floor(options.autoCheckpointPages))}`);
    }
    migrate(db, path, options.readonly === true);
    if (!options.readonly) db.transaction(() => Object.values(pluginTables).forEach((spec) => createTable(db, spec)))();
  } catch (error) {
    if (KgragError.isInstance(error)) throw error;
    throw (
      toEnvironmentError(error, { doing: 'opening the index database', path }) ??
      new KgragError(`cannot open the index database "${path}": ${(error as Error).message}`, {
        code: 'STORE_OPEN_FAILED',
        category: 'store',
        hint: 'check that store.path names a kgrag index and its folder is writable; to build a new index, point store.path or -w at a new location',
        details: { path },
        cause: error,
      })
    );
  }
  return new SqliteStore(db, pluginTables, options.deferSparseReplacements === true && options.readonly !== true);
}

/**
 * Whether the database file at `path` must be rewritten before read-only connections can read it: it keeps a
 * write-ahead log (header byte 18 is 2: written before published indexes were sealed) or has an older
 * schema (`user_version`, header bytes 60–63). Reads the header only.
 */
export function sqliteFileNeedsUpgrade(path: string): boolean {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, 'r');
    const header = Buffer.alloc(64);
    if (readSync(descriptor, header, 0, 64, 0) < 64) return false;
    const version = header.readUInt32BE(60);
    return header[18] === 2 || (version > 0 && version < schemaVersion);
  } catch {
    return false;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** The schema version (`user_version`) of the database file at `path`, or null when there is no such file. */
export function sqliteFileVersion(path: string): number | null {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, 'r');
    const header = Buffer.alloc(64);
    return readSync(descriptor, header, 0, 64, 0) < 64 ? 0 : header.readUInt32BE(60);
  } catch {
    return null;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/**
 * Makes a store's file self-contained and closes it: the write-ahead log is folded into the database and the
 * file switched to rollback journaling, so that it can be renamed into place and read by read-only
 * connections without a `-wal` or `-shm` file beside it.
 */
export function sealSqliteStore(store: Store, options: SealOptions = {}): void {
  if (!(store instanceof SqliteStore)) throw new Error('sealSqliteStore: not an SQLite store');
  store.seal(options.unsynced === true);
}

/** Syncs the commits of a store opened with `unsyncedOpen` from now on (`synchronous = NORMAL`), as any other store's. */
export function syncSqliteCommits(store: Store): void {
  if (!(store instanceof SqliteStore)) throw new Error('syncSqliteCommits: not an SQLite store');
  store.syncCommits();
}

/** Options of {@link sealSqliteStore}. */
export interface SealOptions {
  /**
   * Fold the log in without syncing it or the file (the caller syncs the file before it relies on it, and discards it
   * should the process stop before): syncing the log first wrote to disk, once more, every page it was about to copy.
   */
  unsynced?: boolean;
}

function migrate(db: Database.Database, path: string, readonly: boolean): void {
  const existingApplication = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  const hasTables = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n > 0;
  if (hasTables && existingApplication !== applicationId) {
    throw new KgragError(`"${path}" is an SQLite database, but not a kgrag index`, {
      code: 'STORE_FOREIGN_DATABASE',
      category: 'store',
      hint: 'choose another store.path or workspace folder; kgrag will not write into other databases',
      details: { path },
    });
  }
  if (version > schemaVersion) {
    throw new KgragError(`"${path}" was written by a newer kgrag (schema ${version}, this one knows ${schemaVersion})`, {
      code: 'STORE_TOO_NEW',
      category: 'store',
      hint: 'upgrade kgrag, or index into a new workspace',
      details: { path, version },
    });
  }
  if (version === schemaVersion) return;
  if (readonly && version > 0) {
    throw new KgragError(`"${path}" was written by an older kgrag (schema ${version}) and must be upgraded before it can be read`, {
      code: 'STORE_NEEDS_MIGRATION',
      category: 'store',
      hint: 'open it once with write access (any `kgrag index` or `kgrag query` run that may write the workspace upgrades it)',
      details: { path, version },
    });
  }
  if (readonly) {
    throw new KgragError(`"${path}" has no kgrag index yet`, {
      code: 'STORE_EMPTY',
      category: 'store',
      hint: 'run `kgrag index <paths>` first',
    });
  }
  const steps = version === 0 ? [] : pendingMigrationSteps(version);
  db.transaction(() => {
    if (version === 0) {
      for (const name of tableNames) createTable(db, tableSpec(name));
      db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT, blob BLOB)');
    }
    for (const step of steps) if (step.kind !== 'compact') migrationStep(db, step);
    db.pragma(`application_id = ${applicationId}`);
    db.pragma(`user_version = ${schemaVersion}`);
  })();
  // Rows an older kgrag deleted or replaced (a changed document's old version) left their bytes in free pages and
  // in the free space of pages; rewriting the file once drops them (2.6 s for 2Wiki's 190 MB fast index).
  if (steps.some((step) => step.kind === 'compact')) db.exec('VACUUM');
}

/** One step of the shared migration list, in SQLite's SQL. */
function migrationStep(db: Database.Database, step: MigrationStep): void {
  switch (step.kind) {
    case 'createTable':
      createTable(db, tableSpec(step.table));
      return;
    case 'addColumn': {
      const column = tableSpec(step.table).columns[step.column] as ColumnSpec;
      addColumnIfMissing(db, tableSpec(step.table).sqlName, snakeCase(step.column), sqlType({ ...column, nullable: true }));
      return;
    }
    case 'dropIndex':
      db.exec(`DROP INDEX IF EXISTS ${tableSpec(step.table).sqlName}_${step.columns.map(snakeCase).join('_')}`);
      return;
    case 'dropTable':
      db.exec(`DROP TABLE IF EXISTS ${step.sqlName}`);
      return;
    case 'dropVectorSpace':
      for (const table of vectorSpaceTables(step.space)) db.exec(`DROP TABLE IF EXISTS ${table}`);
      db.prepare('DELETE FROM meta WHERE key IN (?, ?)').run(...vectorSpaceMetaKeys(step.space));
      return;
    case 'rebuildFullText':
      rebuildFullTextIndexes(db);
      return;
    case 'compact':
      // VACUUM cannot run in a transaction: `migrate` runs it after the commit.
      return;
    case 'jobTables':
      // A SQLite workspace's jobs are files of the one server that serves it.
      return;
  }
}

function addColumnIfMissing(db: Database.Database, table: string, column: string, type: string): void {
  const columns = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
  if (!columns.some((existing) => existing.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN "${column}" ${type}`);
}

/** Version 1 indexed raw text and versions before 5 kept deleted rows' terms: rebuild every full-text index from its table. */
function rebuildFullTextIndexes(db: Database.Database): void {
  for (const name of tableNames) {
    const spec = tableSpec(name);
    if (!spec.fullText) continue;
    for (const suffix of ['insert', 'delete', 'update']) db.exec(`DROP TRIGGER IF EXISTS ${spec.sqlName}_fts_${suffix}`);
    db.exec(`DROP TABLE IF EXISTS ${spec.sqlName}_fts`);
    createTable(db, spec);
    const columns = spec.fullText.map((column) => `"${snakeCase(column)}"`);
    db.exec(
      `INSERT INTO ${spec.sqlName}_fts (rowid, ${columns.join(', ')}) SELECT hid, ${columns.map((column) => `${indexTextFunction}(${column})`).join(', ')} FROM ${spec.sqlName}`,
    );
  }
}

function sqlType(spec: { type: string; nullable?: boolean }): string {
  const base = spec.type === 'integer' ? 'INTEGER' : spec.type === 'real' ? 'REAL' : 'TEXT';
  return spec.nullable ? base : `${base} NOT NULL`;
}

function createTable(db: Database.Database, spec: AnyTableSpec): void {
  const columns = Object.entries(spec.columns).map(([name, column]) => `"${snakeCase(name)}" ${sqlType(column)}`);
  const key = spec.key.map((column) => `"${snakeCase(column)}"`).join(', ');
  if (spec.hid) {
    // An explicit INTEGER PRIMARY KEY keeps hids stable across VACUUM, which may renumber implicit rowids.
    db.exec(`CREATE TABLE IF NOT EXISTS ${spec.sqlName} (hid INTEGER PRIMARY KEY, ${columns.join(', ')}, UNIQUE (${key}))`);
  } else {
    db.exec(`CREATE TABLE IF NOT EXISTS ${spec.sqlName} (${columns.join(', ')}, PRIMARY KEY (${key}))`);
  }
  for (const index of spec.indexes ?? []) {
    const indexColumns = index.map((column) => snakeCase(column));
    db.exec(
      `CREATE INDEX IF NOT EXISTS ${spec.sqlName}_${indexColumns.join('_')} ON ${spec.sqlName} (${indexColumns.map((c) => `"${c}"`).join(', ')})`,
    );
  }
  if (spec.fullText && spec.hid) {
    const fts = `${spec.sqlName}_fts`;
    const ftsColumns = spec.fullText.map((column) => `"${snakeCase(column)}"`);
    // A contentless FTS5 table (content='') kept in sync by triggers, holding the text without stopwords; unicode61
    // without stemming matches the evaluation datasets' BM25 baseline. With `secure-delete` a deleted row's terms
    // are taken out of the index's segments at once; the terms to take out are the row's old values, indexed again
    // by the same deterministic function (a change to `fullTextIndexText` must rebuild the indexes, as schema 2 did).
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(${ftsColumns.join(', ')}, content='', tokenize='unicode61 remove_diacritics 2')`);
    db.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('secure-delete', 1)`);
    const newValues = ftsColumns.map((column) => `${indexTextFunction}(new.${column})`).join(', ');
    const changed = ftsColumns.map((column) => `old.${column} IS NOT new.${column}`).join(' OR ');
    db.exec(`CREATE TRIGGER IF NOT EXISTS ${fts}_insert AFTER INSERT ON ${spec.sqlName} BEGIN
      INSERT INTO ${fts} (rowid, ${ftsColumns.join(', ')}) VALUES (new.hid, ${newValues}); END`);
    db.exec(fullTextDeleteTrigger(spec));
    db.exec(`CREATE TRIGGER IF NOT EXISTS ${fts}_update AFTER UPDATE ON ${spec.sqlName} WHEN ${changed} BEGIN
      ${fullTextDeletion(spec)};
      INSERT INTO ${fts} (rowid, ${ftsColumns.join(', ')}) VALUES (new.hid, ${newValues}); END`);
  }
}

/** The statement that takes a deleted row (`old`) out of its table's full-text index. */
function fullTextDeletion(spec: AnyTableSpec): string {
  const fts = `${spec.sqlName}_fts`;
  const ftsColumns = (spec.fullText ?? []).map((column) => `"${snakeCase(column)}"`);
  const oldValues = ftsColumns.map((column) => `${indexTextFunction}(old.${column})`).join(', ');
  return `INSERT INTO ${fts} (${fts}, rowid, ${ftsColumns.join(', ')}) VALUES ('delete', old.hid, ${oldValues})`;
}

function fullTextDeleteTrigger(spec: AnyTableSpec): string {
  return `CREATE TRIGGER IF NOT EXISTS ${spec.sqlName}_fts_delete AFTER DELETE ON ${spec.sqlName} BEGIN ${fullTextDeletion(spec)}; END`;
}

class SqliteStore implements Store {
  readonly backend = 'sqlite';
  private readonly statements = new Map<string, Database.Statement>();
  private readonly tables = new Map<TableName, SqliteTable<TableName>>();
  private readonly vectorIndexes = new Map<VectorSpace, SqliteVectorIndex>();
  private transactionDepth = 0;
  private closed = false;
  /**
   * Large blobs this connection wrote, by key: a step that reads a blob an earlier step of the same run wrote (the 13 MB
   * triple index `triples` writes, which `embed-triples` and `ppr-graph` read: 70-85 ms each out of the file) takes a
   * copy of it instead. Emptied by a rollback, which may undo the writes, and by a commit of another connection
   * (`data_version` moves), which may have written the same keys.
   */
  private readonly writtenBlobs = new Map<string, Uint8Array>();
  private writtenBlobBytes = 0;
  private writtenBlobsVersion = 0;
  private commitsSyncPending = false;

  constructor(
    private readonly db: Database.Database,
    private readonly pluginTables: PluginTables,
    private readonly deferSparse: boolean,
  ) {}

  /** Whether a sparse replacement may leave stale entries (`SqliteStoreOptions.deferSparseReplacements`). */
  defersSparseReplacements(): boolean {
    return this.deferSparse;
  }

  /**
   * Whether a sparse deletion may leave stale entries stale (renumbered) instead of dropping them: in a deferring draft
   * that has removed no content, whose stale entries are older vectors of text the index still holds.
   */
  keepsStaleEntries(): boolean {
    return this.deferSparse && !this.hasRemovedContent();
  }

  private hasRemovedContent(): boolean {
    return this.statement('SELECT 1 FROM meta WHERE key = ?', 'pluck').get(contentRemovedKey) !== undefined;
  }

  /** Called where chunks are deleted, in the deleting transaction: a deferring draft records that it removed content. */
  contentRemoved(): void {
    if (this.deferSparse && !this.hasRemovedContent()) this.statement("INSERT INTO meta (key, value) VALUES (?, 'true')").run(contentRemovedKey);
  }

  /**
   * Before a deferring draft publishes: when it removed content, no stale entry may stay (an older vector may hold the
   * removed text's words), so every sparse space's lists holding one are rewritten. The draft's own record goes.
   */
  private compactStaleSpaces(): void {
    if (!this.deferSparse || !this.hasRemovedContent()) return;
    const staleTables = allRows<string>(this.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'vec\\_%\\_stale' ESCAPE '\\'", 'pluck'));
    this.db.transaction(() => {
      for (const table of staleTables) new SqliteVectorIndex(this, table.slice('vec_'.length, -'_stale'.length) as VectorSpace).compactSparse();
      this.statement('DELETE FROM meta WHERE key = ?').run(contentRemovedKey);
    })();
  }

  /**
   * A cached prepared statement returning row objects, arrays (`raw`) or first columns (`pluck`). The mode is
   * part of the cache key: better-sqlite3's `raw()`/`pluck()` switch a statement for good.
   */
  statement(sql: string, mode: 'rows' | 'raw' | 'pluck' = 'rows'): Database.Statement {
    const key = `${mode}\u0000${sql}`;
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (mode === 'raw') statement.raw(true);
      if (mode === 'pluck') statement.pluck(true);
      this.statements.set(key, statement);
    }
    return statement;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  /** See {@link syncSqliteCommits}: inside a transaction, from the next one on. */
  syncCommits(): void {
    if (this.closed) return;
    if (this.db.inTransaction) this.commitsSyncPending = true;
    else this.db.pragma('synchronous = NORMAL');
  }

  /** Applies a {@link syncCommits} that came inside a transaction, before the next one begins. */
  private applyPendingSync(): void {
    if (!this.commitsSyncPending || this.db.inTransaction) return;
    this.commitsSyncPending = false;
    this.db.pragma('synchronous = NORMAL');
  }

  /**
   * Runs synchronous reads on one snapshot (a deferred transaction; inside a transaction already, that one), so
   * statements read together see one state even while another process commits.
   */
  readSnapshot<R>(read: () => R): R {
    if (this.db.inTransaction) return read();
    this.db.exec('BEGIN');
    try {
      return read();
    } finally {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    }
  }

  table<T extends TableName>(name: T): TableAccess<T> {
    return memoized(this.tables, name, () => new SqliteTable(this, specOfTable(name, this.pluginTables))) as unknown as TableAccess<T>;
  }

  vectors(space: VectorSpace): VectorIndex {
    return memoized(this.vectorIndexes, space, () => {
      assertVectorSpaceName(space);
      return new SqliteVectorIndex(this, space);
    });
  }

  async searchText(table: TextSearchTable, terms: readonly string[], k: number): Promise<ScoredId[]> {
    const unique = [...new Set(terms.map((term) => term.trim()).filter((term) => term.length > 0))];
    if (unique.length === 0 || k <= 0) return [];
    const spec = tableSpec(table);
    const query = unique.map((term) => `"${term.replaceAll('"', '""')}"`).join(' OR ');
    const key = snakeCase(spec.key[0] as string);
    const rows = this.statement(
      `SELECT t."${key}" AS id, -bm25(${spec.sqlName}_fts) AS score FROM ${spec.sqlName}_fts f
       JOIN ${spec.sqlName} t ON t.hid = f.rowid WHERE ${spec.sqlName}_fts MATCH ? ORDER BY bm25(${spec.sqlName}_fts), t.hid LIMIT ?`,
    ).all(query, k) as Array<{ id: string; score: number }>;
    return rows.map((row) => ({ id: row.id, score: row.score }));
  }

  async getMeta<V>(key: string): Promise<V | undefined> {
    const row = this.statement('SELECT value FROM meta WHERE key = ?').get(key) as { value: string | null } | undefined;
    return row?.value == null ? undefined : (JSON.parse(row.value) as V);
  }

  async setMeta(key: string, value: unknown): Promise<void> {
    // Undefined (stored as NULL) for a value JSON has no text for.
    const json = JSON.stringify(value) as string | undefined;
    // Large records are padded (see padded-blob.ts); `octet_length` reads the size from the row's header, not the text.
    const stored = (): number | undefined => (this.statement('SELECT octet_length(value) FROM meta WHERE key = ?', 'pluck').get(key) as number | null | undefined) ?? undefined;
    this.statement(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(key, json === undefined ? null : paddedJson(json, stored));
  }

  async getBlob(key: string): Promise<Uint8Array | undefined> {
    if (this.writtenBlobs.size > 0 && this.dataVersion() !== this.writtenBlobsVersion) this.forgetWrittenBlobs();
    const written = this.writtenBlobs.get(key);
    if (written !== undefined) return written.slice();
    const row = this.statement('SELECT blob FROM meta WHERE key = ?').get(key) as { blob: Buffer | null } | undefined;
    // A view, not a copy: better-sqlite3 returns every blob in a buffer of its own (a 13 MB triple index was copied twice).
    return row?.blob == null ? undefined : blobContent(new Uint8Array(row.blob.buffer, row.blob.byteOffset, row.blob.byteLength));
  }

  async blobKeys(): Promise<string[]> {
    return (this.statement('SELECT key FROM meta WHERE blob IS NOT NULL ORDER BY key').all() as Array<{ key: string }>).map((row) => row.key);
  }

  async metaKeys(): Promise<string[]> {
    return (this.statement('SELECT key FROM meta WHERE value IS NOT NULL ORDER BY key').all() as Array<{ key: string }>).map((row) => row.key);
  }

  async setBlob(key: string, value: Uint8Array): Promise<void> {
    // The stored size decides whether the row is rewritten in place (see padded-blob.ts); `length` reads no overflow page.
    const stored = (): number | undefined => (this.statement('SELECT length(blob) FROM meta WHERE key = ?', 'pluck').get(key) as number | null | undefined) ?? undefined;
    this.statement('INSERT INTO meta (key, blob) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET blob = excluded.blob').run(key, paddedBlob(value, stored));
    this.keepWrittenBlob(key, value);
  }

  private keepWrittenBlob(key: string, value: Uint8Array): void {
    if (this.writtenBlobs.size === 0) this.writtenBlobsVersion = this.dataVersion();
    const earlier = this.writtenBlobs.get(key);
    if (earlier !== undefined) {
      this.writtenBlobs.delete(key);
      this.writtenBlobBytes -= earlier.byteLength;
    }
    // Small blobs read back fast enough; the budget keeps the latest large ones.
    if (value.byteLength < minWrittenBlobBytes || value.byteLength > writtenBlobBudget) return;
    for (const [oldest, bytes] of this.writtenBlobs) {
      if (this.writtenBlobBytes + value.byteLength <= writtenBlobBudget) break;
      this.writtenBlobs.delete(oldest);
      this.writtenBlobBytes -= bytes.byteLength;
    }
    this.writtenBlobs.set(key, value.slice());
    this.writtenBlobBytes += value.byteLength;
  }

  private forgetWrittenBlobs(): void {
    this.writtenBlobs.clear();
    this.writtenBlobBytes = 0;
  }

  /** SQLite's count of other connections' commits to the file, as this connection sees it. */
  private dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  /**
   * Runs `fn` in a transaction (a savepoint when nested). A write the machine refuses — a full disk, a
   * read-only file, a lock held by another process — fails as a KgragError naming the database file.
   */
  async transaction<R>(fn: (tx: Store) => Promise<R>): Promise<R> {
    const depth = this.transactionDepth;
    const savepoint = `sp${depth}`;
    try {
      this.applyPendingSync();
      this.db.exec(depth === 0 ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`);
    } catch (error) {
      throw this.explained(error);
    }
    this.transactionDepth = depth + 1;
    try {
      const result = await fn(this);
      this.db.exec(depth === 0 ? 'COMMIT' : `RELEASE ${savepoint}`);
      return result;
    } catch (error) {
      this.forgetWrittenBlobs();
      if (depth === 0) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } else {
        this.db.exec(`ROLLBACK TO ${savepoint}`);
        this.db.exec(`RELEASE ${savepoint}`);
      }
      throw depth === 0 ? this.explained(error) : error;
    } finally {
      this.transactionDepth = depth;
    }
  }

  /**
   * Runs synchronous writes as one transaction (a savepoint inside an open one). Nothing else can run between its
   * statements, so concurrent callers (LLM replies cached as they arrive) never interleave their savepoints, as
   * calls of the asynchronous `transaction` on one connection can.
   */
  writeAtomically<R>(work: () => R): R {
    try {
      this.applyPendingSync();
      const run = this.db.transaction(work);
      return this.db.inTransaction ? run() : run.immediate();
    } catch (error) {
      throw this.explained(error);
    }
  }

  seal(unsynced: boolean): void {
    if (this.closed) return;
    try {
      this.compactStaleSpaces();
      if (unsynced) this.db.pragma('synchronous = OFF');
      // The log holds every page image the run wrote, deleted rows' included: it must be folded in and gone, or the
      // published file would be read with it (and a deleted document's text stay beside it).
      const [checkpoint] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      const mode = this.db.pragma('journal_mode = DELETE', { simple: true }) as string;
      if ((checkpoint?.busy ?? 0) !== 0 || mode !== 'delete') {
        throw new KgragError(`cannot seal the index database "${this.db.name}": another connection keeps its write-ahead log open`, {
          code: 'STORE_SEAL_BUSY',
          category: 'store',
          hint: 'close other programs that have the draft open (kgrag.db-draft) and run the command again; the draft is kept',
          details: { path: this.db.name },
        });
      }
    } catch (error) {
      if (KgragError.isInstance(error)) throw error;
      throw this.explained(error);
    }
    this.closed = true;
    this.statements.clear();
    this.forgetWrittenBlobs();
    this.db.close();
  }

  /** An environment error as a KgragError about this database file; any other error unchanged. */
  private explained(error: unknown): unknown {
    return toEnvironmentError(error, { doing: 'writing the index database', path: this.db.name }) ?? error;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.forgetWrittenBlobs();
    this.db.close();
  }
}

class SqliteTable<T extends TableName> extends TableBase<T> {
  private readonly upsertSql: string;
  private readonly orderBy: string;
  /** The chunks: deleting them removes content, which a deferring draft must not keep in stale vectors (`contentRemoved`). */
  private readonly holdsContent: boolean;

  constructor(
    private readonly store: SqliteStore,
    spec: AnyTableSpec,
  ) {
    super(spec);
    const sqlColumns = this.columns.map(([name]) => `"${snakeCase(name)}"`);
    const key = spec.key.map((column) => `"${snakeCase(column)}"`);
    const updates = sqlColumns.filter((column) => !key.includes(column)).map((column) => `${column} = excluded.${column}`);
    this.upsertSql =
      `INSERT INTO ${spec.sqlName} (${sqlColumns.join(', ')}) VALUES (${sqlColumns.map(() => '?').join(', ')}) ` +
      `ON CONFLICT (${key.join(', ')}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
    this.orderBy = spec.hid ? 'hid' : 'rowid';
    this.holdsContent = spec.sqlName === tableSpec('chunks').sqlName;
  }

  async upsert(rows: ReadonlyArray<TableRows[T]>): Promise<void> {
    if (rows.length === 0) return;
    const statement = this.store.statement(this.upsertSql);
    const record = rows as unknown as ReadonlyArray<Record<string, unknown>>;
    const write = (): void => {
      for (const row of record) statement.run(this.encode(row));
    };
    this.store.writeAtomically(write);
  }

  protected async select(columns: ReadonlyArray<[string, ColumnSpec]>, where: RowFilter | undefined): Promise<Array<Record<string, unknown>>> {
    const list = [...(this.spec.hid ? ['hid'] : []), ...columns.map(([name]) => `"${snakeCase(name)}"`)].join(', ');
    // One named parameter, read by the test of each column.
    const sql = `SELECT ${list} FROM ${this.spec.sqlName}${
      where ? ` WHERE ${where.columns.map((column) => `"${snakeCase(column)}" IN (SELECT value FROM json_each(@values))`).join(' OR ')}` : ''
    } ORDER BY ${this.orderBy}`;
    if (where || !this.spec.hid) return this.decodeAll([iterateRows<SqlValue[]>(this.store.statement(sql, 'raw'), where && { values: JSON.stringify(where.values) })], columns);
    // A whole table in pages of `Statement.all`, on one snapshot: a row at a time cost a call into the driver per row
    // (a fifth of reading 100,000 relations), and one `all` of the whole table grows its array superlinearly.
    const page = this.store.statement(`SELECT ${list} FROM ${this.spec.sqlName} WHERE hid > ? ORDER BY hid LIMIT ${readPageRows}`, 'raw');
    return this.store.readSnapshot(() => this.decodeAll(pagedRows(page), columns));
  }

  async deleteWhere<C extends ColumnOf<T>>(column: C, values: ReadonlyArray<TableRows[T][C]>): Promise<number> {
    if (values.length === 0) return 0;
    const result = this.store
      .statement(`DELETE FROM ${this.spec.sqlName} WHERE "${snakeCase(column)}" IN (SELECT value FROM json_each(?))`)
      .run(JSON.stringify(values));
    if (result.changes > 0 && this.holdsContent) this.store.contentRemoved();
    return result.changes;
  }

  async clear(): Promise<void> {
    if (this.holdsContent) this.store.contentRemoved();
    if (!this.spec.fullText || !this.spec.hid) {
      this.store.statement(`DELETE FROM ${this.spec.sqlName}`).run();
      return;
    }
    // Emptying the full-text index at once is far cheaper than taking every row out of it one by one; the delete
    // trigger is dropped meanwhile, since it would look for terms that are gone.
    const fts = `${this.spec.sqlName}_fts`;
    this.store.writeAtomically(() => {
      this.store.exec(`INSERT INTO ${fts} (${fts}) VALUES ('delete-all')`);
      this.store.exec(`DROP TRIGGER ${fts}_delete`);
      this.store.exec(`DELETE FROM ${this.spec.sqlName}`);
      this.store.exec(fullTextDeleteTrigger(this.spec));
    });
  }

  async count(): Promise<number> {
    return (this.store.statement(`SELECT count(*) AS n FROM ${this.spec.sqlName}`).get() as { n: number }).n;
  }

  private encode(row: Record<string, unknown>): SqlValue[] {
    return this.columns.map(([name, column]) => encodeColumnValue(this.spec, name, column, row[name]) as SqlValue);
  }

  /**
   * The records of raw rows (in pages) whose columns are `hid` (when the table has one) and then `columns`, decoded as
   * the rows are iterated (see {@link iterateRows}).
   */
  private decodeAll(pages: Iterable<Iterable<SqlValue[]>>, columns: ReadonlyArray<[string, ColumnSpec]>): Array<Record<string, unknown>> {
    const names = columns.map(([name]) => name);
    const json = columns.map(([, column]) => column.type === 'json');
    const first = this.spec.hid ? 1 : 0;
    const records: Array<Record<string, unknown>> = [];
    for (const rows of pages) for (const row of rows) {
      const record: Record<string, unknown> = {};
      if (this.spec.hid) record.hid = row[0];
      for (let column = 0; column < names.length; column++) {
        const value = row[first + column];
        record[names[column] as string] = json[column] === true && typeof value === 'string' ? JSON.parse(value) : value;
      }
      records.push(record);
    }
    return records;
  }
}

/** What the meta record `vectors:<space>` holds; spaces written before the sparse layout have no `layout` (dense). */
interface StoredSpaceInfo {
  embedderId: string;
  dimensions: number;
  layout?: VectorLayout;
}

/**
 * One space. Dense layout: a sqlite-vec `vec0` table plus a key table mapping our string ids to the integer
 * row ids vec0 needs (its text primary keys have no rowid, so insertion order would be lost). Sparse layout:
 * a key table (vid, id) and one row of postings per coordinate — the positions (in vid order) of the vectors
 * with a non-zero value there and the values — so a query reads only the postings of its own non-zero
 * coordinates (2Wiki's fact space: about 2 MB of 27 MB for a question). Appended rows' entries go to a tail per
 * coordinate (`_tail`), read after the list and folded into it past {@link maxTailShare}; a replacement rewrites the
 * lists of the coordinates it touches, a deletion the lists holding a row at or after its first deleted one
 * (positions shift). The revision lives in its own meta
 * record, which `clear()` keeps, so it never repeats.
 */
/**
 * The tables of a space: sqlite-vec's table and its key table (dense), the key, postings and appended-tail tables
 * (sparse), and `_pages`, which an early sparse layout used.
 */
function vectorSpaceTables(space: string): [vec: string, keys: string, sparseKeys: string, postings: string, tail: string, stale: string, pages: string] {
  return [`vec_${space}`, `vec_${space}_keys`, `vec_${space}_sparse`, `vec_${space}_postings`, `vec_${space}_tail`, `vec_${space}_stale`, `vec_${space}_pages`];
}

/** The meta records of a space: its description and its revision, which `clear()` keeps so that it never repeats. */
function vectorSpaceMetaKeys(space: string): [info: string, revision: string] {
  return [`vectors:${space}`, `vectors-revision:${space}`];
}

class SqliteVectorIndex implements VectorIndex {
  private readonly vecTable: string;
  private readonly keyTable: string;
  private readonly sparseKeyTable: string;
  private readonly postingTable: string;
  private readonly tailTable: string;
  private readonly staleTable: string;
  private readonly infoKey: string;
  private readonly revisionKey: string;
  private cache: SpaceCache | undefined;

  constructor(
    private readonly store: SqliteStore,
    private readonly space: VectorSpace,
  ) {
    [this.vecTable, this.keyTable, this.sparseKeyTable, this.postingTable, this.tailTable, this.staleTable] = vectorSpaceTables(space);
    [this.infoKey, this.revisionKey] = vectorSpaceMetaKeys(space);
  }

  private readInfo(): VectorSpaceInfo | undefined {
    const rows = this.store.statement('SELECT key, value FROM meta WHERE key IN (?, ?)').all(this.infoKey, this.revisionKey) as Array<{ key: string; value: string | null }>;
    let stored: StoredSpaceInfo | undefined;
    let revision = 0;
    for (const row of rows) {
      if (row.value === null) continue;
      if (row.key === this.infoKey) stored = JSON.parse(row.value) as StoredSpaceInfo;
      else revision = JSON.parse(row.value) as number;
    }
    if (!stored) return undefined;
    return { embedderId: stored.embedderId, dimensions: stored.dimensions, layout: stored.layout ?? 'dense', revision };
  }

  async info(): Promise<VectorSpaceInfo | undefined> {
    return this.readInfo();
  }

  /** The table holding the ids of the space's layout. */
  private idTable(info: VectorSpaceInfo): string {
    return info.layout === 'sparse' ? this.sparseKeyTable : this.keyTable;
  }

  private bumpRevision(info: VectorSpaceInfo | undefined): void {
    const stored = this.store.statement('SELECT value FROM meta WHERE key = ?', 'pluck').get(this.revisionKey) as string | null | undefined;
    const current = info?.revision ?? (stored == null ? 0 : (JSON.parse(stored) as number));
    this.store.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(this.revisionKey, JSON.stringify(current + 1));
  }

  private dropTables(): void {
    for (const table of vectorSpaceTables(this.space)) this.store.exec(`DROP TABLE IF EXISTS ${table}`);
  }

  /** The in-memory cache of the current revision (a fresh one after any write, here or in another process). */
  private cacheFor(info: VectorSpaceInfo): SpaceCache {
    if (this.cache?.revision !== info.revision) {
      const rows = (this.store.statement(`SELECT count(*) FROM ${this.idTable(info)}`, 'pluck').get() as number) ?? 0;
      this.cache = emptySpaceCache(info.revision, rows);
    }
    return this.cache;
  }

  async upsert(items: readonly VectorItem[], embedderId: string): Promise<void> {
    if (items.length === 0) return;
    const dimensions = uniformDimensions(items);
    let info = this.readInfo();
    assertSameEmbedder(this.space, info, embedderId, dimensions);
    await this.store.transaction(async () => {
      if (!info) {
        const layout = chooseLayout(items, dimensions);
        this.dropTables();
        if (layout === 'sparse') {
          this.store.exec(`CREATE TABLE ${this.sparseKeyTable} (vid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)`);
          this.store.exec(`CREATE TABLE ${this.postingTable} (coordinate INTEGER PRIMARY KEY, postings BLOB NOT NULL)`);
          this.createTail();
        } else {
          this.store.exec(
            `CREATE VIRTUAL TABLE ${this.vecTable} USING vec0(vid INTEGER PRIMARY KEY, embedding float[${dimensions}] distance_metric=cosine)`,
          );
          this.store.exec(`CREATE TABLE ${this.keyTable} (vid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)`);
        }
        const stored: StoredSpaceInfo = { embedderId, dimensions, layout };
        await this.store.setMeta(this.infoKey, stored);
      }
      this.bumpRevision(info);
      info = this.readInfo() as VectorSpaceInfo;
      if (info.layout === 'sparse') {
        this.upsertSparse(items, dimensions);
        return;
      }
      const findKey = this.store.statement(`SELECT vid FROM ${this.keyTable} WHERE id = ?`, 'pluck');
      const insertKey = this.store.statement(`INSERT INTO ${this.keyTable} (id) VALUES (?)`);
      const deleteVector = this.store.statement(`DELETE FROM ${this.vecTable} WHERE vid = ?`);
      const insertVector = this.store.statement(`INSERT INTO ${this.vecTable} (vid, embedding) VALUES (?, ?)`);
      for (const item of items) {
        const existing = findKey.get(item.id) as number | undefined;
        let vid: number | bigint;
        if (existing !== undefined) {
          vid = existing;
          deleteVector.run(BigInt(vid));
        } else {
          vid = insertKey.run(item.id).lastInsertRowid;
        }
        insertVector.run(BigInt(vid), toBuffer(denseOf(item.vector)));
      }
    });
  }

  /**
   * Replaces the vectors of ids already stored (keeping their position) and appends the others: new ids get the next
   * vids, so positions (ranks in vid order) of existing rows do not move. Only the posting lists of coordinates that a
   * replaced vector had or has are rewritten — found by reading every list, since nothing else records a row's
   * coordinates — and the old entries go with them; the other lists get the new rows' entries appended.
   */
  private upsertSparse(items: readonly VectorItem[], dimensions: number): void {
    if (this.appendSparse(items, dimensions)) return;
    const ids = allRows<string>(this.store.statement(`SELECT id FROM ${this.sparseKeyTable} ORDER BY vid`, 'pluck'));
    const stored = ids.length;
    const position = positionsOf(ids);
    // The last vector given for each row, as `mergeSparseRows` keeps it.
    const latest = new Map<number, SparseRow>();
    const added: string[] = [];
    for (const item of items) {
      let row = position.get(item.id);
      if (row === undefined) {
        row = stored + added.length;
        position.set(item.id, row);
        added.push(item.id);
      }
      latest.set(row, rowNonZeros(item, dimensions));
    }
    const insertKey = this.store.statement(`INSERT INTO ${this.sparseKeyTable} (id) VALUES (?)`);
    for (const id of added) insertKey.run(id);
    const replaced = new Uint8Array(stored);
    let replacedCount = 0;
    for (const row of latest.keys()) {
      if (row < stored) {
        replaced[row] = 1;
        replacedCount++;
      }
    }
    const entries = entriesByCoordinate([...latest].sort(([left], [right]) => left - right));
    this.createTail();
    const stale = this.staleRows();
    if (this.store.defersSparseReplacements() && stale.size + replacedCount <= maxStaleShare * (stored + added.length)) {
      this.replaceInTails(replaced, entries, stale);
      return;
    }
    this.rewriteLists(replaced, entries, stored, stale);
  }

  /**
   * A replacement that leaves the stored lists as they are: each replaced row is marked stale (its entries in the stored
   * lists are no longer read) and its whole new vector goes to the tails, with the new rows' entries. Only the tails
   * that held a replaced row or get an entry are rewritten; they are small. Used only in a draft
   * (`SqliteStore.defersSparseReplacements`): a deletion from the space drops the stale entries in the same rewrite that
   * drops the deleted rows' (`foldLists`), and a draft that removed content drops those left before it publishes
   * (`compactSparse`), since an older vector may hold the removed text's words.
   */
  private replaceInTails(replaced: Uint8Array, entries: ReadonlyMap<number, CoordinatePostings>, stale: ReadonlySet<number>): void {
    this.createStale();
    const markStale = this.store.statement(`INSERT OR IGNORE INTO ${this.staleTable} (row) VALUES (?)`);
    replaced.forEach((flag, row) => {
      if (flag === 1 && !stale.has(row)) markStale.run(row);
    });
    const tails = new Map(allRows<[number, Buffer]>(this.store.statement(`SELECT coordinate, postings FROM ${this.tailTable}`, 'raw')));
    const write = this.store.statement(`INSERT INTO ${this.tailTable} (coordinate, postings) VALUES (?, ?) ON CONFLICT (coordinate) DO UPDATE SET postings = excluded.postings`);
    const remove = this.store.statement(`DELETE FROM ${this.tailTable} WHERE coordinate = ?`);
    for (const coordinate of [...new Set([...tails.keys(), ...entries.keys()])].sort((left, right) => left - right)) {
      const tail = tails.get(coordinate);
      const entry = entries.get(coordinate);
      if (entry === undefined && (tail === undefined || !coordinatePostingsHoldAny(tail, replaced))) continue;
      const merged = mergedPostings(tail === undefined ? emptyPostings : decodeCoordinatePostings(tail), replaced, entry);
      if (merged.rows.length > 0) write.run(coordinate, encodeCoordinatePostings(merged.rows, merged.values));
      else if (tail !== undefined) remove.run(coordinate);
    }
  }

  /**
   * Rewrites the lists that hold a replaced or stale row, or get an entry before their last row: the stored list
   * without those rows' entries, its tail folded in, and the entries merged in row order. The other lists get the new
   * rows' entries appended. Afterwards no stored list holds a stale entry and no row is stale.
   */
  private rewriteLists(replaced: Uint8Array, entries: ReadonlyMap<number, CoordinatePostings>, stored: number, stale: ReadonlySet<number>): void {
    // Stale rows' stored entries go like replaced rows' entries; their tail entries are their current vectors and stay.
    const storedOut = replaced.slice();
    for (const row of stale) if (row < storedOut.length) storedOut[row] = 1;
    const lists = new Map<number, { stored?: Buffer; tail?: Buffer }>();
    for (const [coordinate, blob] of allRows<[number, Buffer]>(this.store.statement(`SELECT coordinate, postings FROM ${this.postingTable}`, 'raw'))) lists.set(coordinate, { stored: blob });
    for (const [coordinate, blob] of allRows<[number, Buffer]>(this.store.statement(`SELECT coordinate, postings FROM ${this.tailTable}`, 'raw'))) {
      lists.set(coordinate, { ...lists.get(coordinate), tail: blob });
    }
    // Cleared first: no row is stale below, so `appendToCoordinate` may fold tails into their lists.
    if (stale.size > 0) this.store.statement(`DELETE FROM ${this.staleTable}`).run();
    const write = this.store.statement(`INSERT INTO ${this.postingTable} (coordinate, postings) VALUES (?, ?) ON CONFLICT (coordinate) DO UPDATE SET postings = excluded.postings`);
    const deleteStored = this.store.statement(`DELETE FROM ${this.postingTable} WHERE coordinate = ?`);
    const deleteTail = this.store.statement(`DELETE FROM ${this.tailTable} WHERE coordinate = ?`);
    for (const coordinate of [...new Set([...lists.keys(), ...entries.keys()])].sort((left, right) => left - right)) {
      const list = lists.get(coordinate);
      const entry = entries.get(coordinate);
      // Scanned as bytes: only the lists that change are decoded (a replaced entity touches a few hundred of 1,024).
      // While rows are stale, a tail may hold rows before its stored list's last one: every tail is folded in.
      const removes =
        (list?.stored !== undefined && coordinatePostingsHoldAny(list.stored, storedOut)) ||
        (list?.tail !== undefined && (stale.size > 0 || coordinatePostingsHoldAny(list.tail, replaced)));
      if (!removes && (entry === undefined || (entry.rows[0] as number) >= stored)) {
        if (entry !== undefined) this.appendToCoordinate(coordinate, entry, list?.tail, { withStale: false, ...(list?.stored === undefined ? {} : { stored: list.stored }) });
        continue;
      }
      const tail = mergedPostings(list?.tail === undefined ? emptyPostings : decodeCoordinatePostings(list.tail), replaced, entry);
      const merged = mergedPostings(list?.stored === undefined ? emptyPostings : decodeCoordinatePostings(list.stored), storedOut, tail);
      if (merged.rows.length > 0) write.run(coordinate, encodeCoordinatePostings(merged.rows, merged.values));
      else if (list?.stored !== undefined) deleteStored.run(coordinate);
      if (list?.tail !== undefined) deleteTail.run(coordinate);
    }
  }

  /**
   * Rewrites the lists that hold stale entries, so that no older vector of a replaced row stays in the file: what a
   * draft that removed content does before it publishes.
   */
  compactSparse(): void {
    const stale = this.staleRows();
    if (stale.size > 0) this.foldLists(new Set(), stale);
  }

  /** The rows whose stored entries are not read: their vectors are wholly in the tails (see `replaceInTails`). */
  private staleRows(): Set<number> {
    if (this.store.statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", 'pluck').get(this.staleTable) === undefined) return new Set();
    return new Set(allRows<number>(this.store.statement(`SELECT row FROM ${this.staleTable}`, 'pluck')));
  }

  private createStale(): void {
    this.store.exec(`CREATE TABLE IF NOT EXISTS ${this.staleTable} (row INTEGER PRIMARY KEY)`);
  }

  /**
   * Appends `items` when every one is a new id: their rows come after every stored row (new vids are the largest), so
   * each coordinate they touch gets its postings extended, and the space is not read and transposed as a whole — an
   * update that embeds a few new texts into a space of 100,000 paid for all of them. False, and nothing written, when
   * an item replaces a stored vector or an id repeats.
   */
  private appendSparse(items: readonly VectorItem[], dimensions: number): boolean {
    const ids = items.map((item) => item.id);
    if (new Set(ids).size !== ids.length) return false;
    const stored = this.store.statement(`SELECT count(*) FROM ${this.sparseKeyTable} WHERE id IN (SELECT value FROM json_each(?))`, 'pluck').get(JSON.stringify(ids)) as number;
    if (stored > 0) return false;
    const first = this.store.statement(`SELECT count(*) FROM ${this.sparseKeyTable}`, 'pluck').get() as number;
    const insertKey = this.store.statement(`INSERT INTO ${this.sparseKeyTable} (id) VALUES (?)`);
    for (const id of ids) insertKey.run(id);
    const added = entriesByCoordinate(items.map((item, offset) => [first + offset, rowNonZeros(item, dimensions)] as const));
    this.createTail();
    // The touched coordinates' tails and stored lengths in one read each, and the stale rows once: per coordinate, the
    // three queries cost more than the appends (a 1 % add to 2Wiki touches nearly all 1,024 coordinates of each space).
    const coordinates = [...added.keys()].sort((left, right) => left - right);
    const parameter = JSON.stringify(coordinates);
    const tails = new Map(allRows<[number, Buffer]>(this.store.statement(`SELECT coordinate, postings FROM ${this.tailTable} WHERE coordinate IN (SELECT value FROM json_each(?))`, 'raw'), parameter));
    const storedLengths = new Map(allRows<[number, number]>(this.store.statement(`SELECT coordinate, length(postings) FROM ${this.postingTable} WHERE coordinate IN (SELECT value FROM json_each(?))`, 'raw'), parameter));
    const withStale = this.staleRows().size > 0;
    for (const coordinate of coordinates) {
      this.appendToCoordinate(coordinate, added.get(coordinate) as CoordinatePostings, tails.get(coordinate), { withStale, storedLength: storedLengths.get(coordinate) ?? 0 });
    }
    return true;
  }

  /**
   * Appends entries (rows after every stored one) to a coordinate's tail, or folds the tail into the stored list once
   * it passes {@link maxTailShare} of it. `stored` is the stored list when the caller has read it, else its length; with
   * stale rows in the space (`withStale`) the tail is never folded.
   */
  private appendToCoordinate(
    coordinate: number,
    entries: CoordinatePostings,
    storedTail: Buffer | undefined,
    { withStale, stored, storedLength = stored?.length ?? 0 }: { withStale: boolean; stored?: Buffer; storedLength?: number },
  ): void {
    const tail = appendedCoordinatePostings(storedTail, entries.rows, entries.values);
    // A stale row's entries in a tail are its current vector: folded into the stored list they would not be read.
    if (withStale || tail.length <= storedLength * maxTailShare) {
      this.store.statement(`INSERT INTO ${this.tailTable} (coordinate, postings) VALUES (?, ?) ON CONFLICT (coordinate) DO UPDATE SET postings = excluded.postings`).run(coordinate, tail);
      return;
    }
    const { rows, values } = decodeCoordinatePostings(tail);
    const current = stored ?? (this.store.statement(`SELECT postings FROM ${this.postingTable} WHERE coordinate = ?`, 'pluck').get(coordinate) as Buffer | undefined);
    this.store
      .statement(`INSERT INTO ${this.postingTable} (coordinate, postings) VALUES (?, ?) ON CONFLICT (coordinate) DO UPDATE SET postings = excluded.postings`)
      .run(coordinate, appendedCoordinatePostings(current, rows, values));
    if (storedTail !== undefined) this.store.statement(`DELETE FROM ${this.tailTable} WHERE coordinate = ?`).run(coordinate);
  }

  /** Creates the table of appended tails (a space written before they existed has none). */
  private createTail(): void {
    this.store.exec(`CREATE TABLE IF NOT EXISTS ${this.tailTable} (coordinate INTEGER PRIMARY KEY, postings BLOB NOT NULL)`);
  }

  private hasTail(): boolean {
    return this.store.statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", 'pluck').get(this.tailTable) !== undefined;
  }

  /**
   * The stored bytes of `coordinates` (all when undefined): the stored lists, coordinate ascending, their appended tails by
   * coordinate, and the stale rows (replaced: their stored entries are left out, their current ones are in the tails).
   */
  private readPostingBlobs(coordinates: readonly number[] | undefined): { stored: Array<[number, Buffer]>; tails: Map<number, Buffer>; stale: Set<number> } {
    const where = coordinates === undefined ? '' : ' WHERE coordinate IN (SELECT value FROM json_each(?))';
    const parameter = coordinates === undefined ? undefined : JSON.stringify(coordinates);
    const read = (table: string): Array<[number, Buffer]> =>
      allRows<[number, Buffer]>(this.store.statement(`SELECT coordinate, postings FROM ${table}${where} ORDER BY coordinate`, 'raw'), parameter);
    return { stored: read(this.postingTable), tails: new Map(this.hasTail() ? read(this.tailTable) : []), stale: this.staleRows() };
  }

  /**
   * The postings of `coordinates` (all when undefined), coordinate ascending, each followed by its appended tail: the
   * tail's rows come after the stored ones (appends take the largest positions, and any other write folds tails in).
   */
  private readPostings(coordinates: readonly number[] | undefined): Array<[number, CoordinatePostings]> {
    const { stored: lists, tails, stale } = this.readPostingBlobs(coordinates);
    const staleMask = staleRowMask(stale);
    const postings = lists.map(([coordinate, blob]): [number, CoordinatePostings] => {
      const tail = tails.get(coordinate);
      tails.delete(coordinate);
      const stored = decodeCoordinatePostings(blob);
      if (stale.size > 0) return [coordinate, mergedPostings(stored, staleMask, tail === undefined ? undefined : decodeCoordinatePostings(tail))];
      return [coordinate, tail === undefined ? stored : concatenatedCoordinatePostings(stored, decodeCoordinatePostings(tail))];
    });
    if (tails.size === 0) return postings;
    for (const [coordinate, tail] of tails) postings.push([coordinate, decodeCoordinatePostings(tail)]);
    return postings.sort(([left], [right]) => left - right);
  }

  async search(query: Float32Array, k: number): Promise<ScoredId[]> {
    const info = this.readInfo();
    if (!info || k <= 0) return [];
    assertQueryShape(this.space, info, query);
    if (info.layout === 'sparse') {
      return this.store.readSnapshot(() => {
        const current = this.readInfo() as VectorSpaceInfo;
        const cache = this.cacheFor(current);
        const scores = this.scoreSparse(current, cache, query, 1);
        cache.ids ??= allRows<string>(this.store.statement(`SELECT id FROM ${this.sparseKeyTable} ORDER BY vid`, 'pluck'));
        return topScoredIds(scores, cache.ids, k);
      });
    }
    if (k > maxVecK) return this.scan(query, k);
    const rows = this.store
      .statement(
        `SELECT keys.id AS id, knn.vid AS vid, knn.distance AS distance FROM
           (SELECT vid, distance FROM ${this.vecTable} WHERE embedding MATCH ? AND k = ?) knn
         JOIN ${this.keyTable} keys ON keys.vid = knn.vid`,
      )
      .all(toBuffer(query), k) as Array<{ id: string; vid: number; distance: number }>;
    // vec0 allows only one ORDER BY distance; ties are broken by insertion order here, for determinism.
    rows.sort((left, right) => left.distance - right.distance || left.vid - right.vid);
    return rows.map((row) => ({ id: row.id, score: 1 - row.distance }));
  }

  async scoreMany(queries: Float32Array, count: number): Promise<SpaceScores> {
    // A warm query of a sparse space whose postings are all in memory needs only the revision check.
    const known = this.readInfo();
    if (known?.layout === 'sparse' && this.cache?.revision === known.revision && hasPostings(this.cache.postings, queries, count, known.dimensions)) {
      return { revision: known.revision, rows: this.cache.rows, scores: this.scoreSparse(known, this.cache, queries, count) };
    }
    return this.store.readSnapshot(() => {
      const info = this.readInfo();
      if (!info) return { revision: 0, rows: 0, scores: new Float32Array(0) };
      assertQueryShape(this.space, info, queries, count);
      const cache = this.cacheFor(info);
      if (info.layout === 'sparse') return { revision: info.revision, rows: cache.rows, scores: this.scoreSparse(info, cache, queries, count) };
      if (!cache.dense) {
        const matrix = this.readDense(info.dimensions, undefined);
        cache.dense = createSimilarityIndex(matrix.ids.length, info.dimensions, matrix.matrix);
      }
      return { revision: info.revision, rows: cache.rows, scores: cache.dense.scoreMany(queries, count) };
    });
  }



  /** Sparse scores through the postings of the queries' non-zero coordinates, read once per revision. */
  private scoreSparse(info: VectorSpaceInfo, cache: SpaceCache, queries: Float32Array, count: number): Float32Array {
    const missing = missingCoordinates(cache, queries, count, info.dimensions);
    if (missing.length > 0) {
      keepPostings(cache, missing, this.readPostings(missing));
    }
    return sparseScores(cache, queries, count, info.dimensions);
  }

  private async scan(query: Float32Array, k: number): Promise<ScoredId[]> {
    const { ids, dimensions, matrix } = await this.load();
    const scored: ScoredId[] = ids.map((id, row) => ({ id, score: dotAt(matrix, row * dimensions, query) }));
    scored.sort((left, right) => right.score - left.score);
    return scored.slice(0, k);
  }

  async ids(): Promise<string[]> {
    const info = this.readInfo();
    if (!info) return [];
    return allRows<string>(this.store.statement(`SELECT id FROM ${this.idTable(info)} ORDER BY vid`, 'pluck'));
  }

  /**
   * Every vector of a sparse space as CSR rows in vid order, transposed from the postings (the caller holds a
   * snapshot), with the key table's ids in the same order.
   */
  private readSparseRows(): SparseRows {
    const rows = (this.store.statement(`SELECT count(*) FROM ${this.sparseKeyTable}`, 'pluck').get() as number) ?? 0;
    const postings = this.readPostings(undefined);
    const ids = allRows<string>(this.store.statement(`SELECT id FROM ${this.sparseKeyTable} ORDER BY vid`, 'pluck'));
    return { ids, ...csrRowsFromCoordinatePostings(postings, rows) };
  }

  async load(ids?: readonly string[]): Promise<VectorMatrix> {
    return this.store.readSnapshot(() => {
      const info = this.readInfo();
      if (!info) return { ids: [], dimensions: 0, matrix: new Float32Array(0) };
      const { dimensions } = info;
      const cache = this.cacheFor(info);
      // The kept matrix itself, not a copy (callers read it, see `VectorIndex.load`): an update's three chunk-vector
      // steps each copied 25 MB of 2Wiki into fresh pages. Some rows of it are copied out, not read from the postings.
      if (cache.matrix) return ids === undefined ? { ids: [...cache.matrix.ids], dimensions, matrix: cache.matrix.matrix } : rowsOf(cache.matrix, ids);
      const loaded = info.layout === 'dense' ? this.readDense(dimensions, ids) : this.readSparseAsDense(dimensions, ids);
      if (ids === undefined && loaded.matrix.byteLength <= maxKeptMatrixBytes) cache.matrix = { ids: [...loaded.ids], dimensions, matrix: loaded.matrix };
      return loaded;
    });
  }

  /**
   * The vectors of a sparse space (of `ids` when given) in vid order as a dense matrix, filled from the postings
   * directly: the transposition into rows that `readSparseRows` does would only be spread out again.
   */
  private readSparseAsDense(dimensions: number, ids: readonly string[] | undefined): VectorMatrix {
    const allIds = allRows<string>(this.store.statement(`SELECT id FROM ${this.sparseKeyTable} ORDER BY vid`, 'pluck'));
    const wanted = ids === undefined ? undefined : new Set(ids);
    const slot = new Int32Array(allIds.length).fill(-1);
    const kept: string[] = [];
    allIds.forEach((id, row) => {
      if (wanted !== undefined && !wanted.has(id)) return;
      slot[row] = kept.length;
      kept.push(id);
    });
    const matrix = new Float32Array(kept.length * dimensions);
    // A row's entries are its stored ones, unless it is stale, and its tails': a dense fill needs no order between them.
    const { stored, tails, stale } = this.readPostingBlobs(undefined);
    const skip = stale.size > 0 ? staleRowMask(stale) : undefined;
    for (const [coordinate, blob] of stored) scatterCoordinatePostings(blob, coordinate, { matrix, dimensions, slot, ...(skip ? { skip } : {}) });
    for (const [coordinate, blob] of tails) scatterCoordinatePostings(blob, coordinate, { matrix, dimensions, slot });
    return { ids: kept, dimensions, matrix };
  }

  async loadSparse(): Promise<SparseVectorMatrix> {
    return this.store.readSnapshot(() => {
      const info = this.readInfo();
      if (!info) return { ids: [], dimensions: 0, rowPointers: new Int32Array(1), columnIndices: new Int32Array(0), values: new Float32Array(0) };
      const { dimensions } = info;
      if (info.layout === 'sparse') {
        const rows = this.readSparseRows();
        return { ids: rows.ids, dimensions, rowPointers: rows.rowPointers, columnIndices: rows.columnIndices, values: rows.values };
      }
      const { ids, matrix } = this.readDense(dimensions, undefined);
      return { ids, dimensions, ...sparseRowsOfDense(matrix, ids.length, dimensions) };
    });
  }

  /** The vectors of a dense space (of `ids` when given) in vid order. */
  private readDense(dimensions: number, ids: readonly string[] | undefined): VectorMatrix {
    const sql = `SELECT keys.id AS id, v.embedding AS embedding FROM ${this.keyTable} keys JOIN ${this.vecTable} v ON v.vid = keys.vid`;
    const rows =
      ids === undefined
        ? allRows<[string, Buffer]>(this.store.statement(`${sql} ORDER BY keys.vid`, 'raw'))
        : allRows<[string, Buffer]>(this.store.statement(`${sql} WHERE keys.id IN (SELECT value FROM json_each(?)) ORDER BY keys.vid`, 'raw'), JSON.stringify(ids));
    const matrix = new Float32Array(rows.length * dimensions);
    rows.forEach(([, blob], index) => matrix.set(new Float32Array(blob.buffer, blob.byteOffset, dimensions), index * dimensions));
    return { ids: rows.map(([id]) => id), dimensions, matrix };
  }

  async delete(ids: readonly string[]): Promise<void> {
    const info = this.readInfo();
    if (ids.length === 0 || !info) return;
    await this.store.transaction(async () => {
      this.bumpRevision(info);
      if (info.layout === 'sparse') {
        this.deleteSparse(ids);
        return;
      }
      const vids = this.store
        .statement(`SELECT vid FROM ${this.keyTable} WHERE id IN (SELECT value FROM json_each(?))`, 'pluck')
        .all(JSON.stringify(ids)) as number[];
      const deleteKey = this.store.statement(`DELETE FROM ${this.keyTable} WHERE vid = ?`);
      const deleteVector = this.store.statement(`DELETE FROM ${this.vecTable} WHERE vid = ?`);
      for (const vid of vids) {
        deleteKey.run(vid);
        deleteVector.run(BigInt(vid));
      }
    });
  }

  /**
   * {@link VectorIndex.replace}. In a draft that keeps stale entries (it removed no content), a sparse space gives each
   * new id the row of a removed one: the row is renamed and its vector replaced like any other (its old entries are left
   * stale, not rewritten), so only the removed rows left over are deleted. A deletion moves every later row down and
   * rewrites every posting list after the first one removed: an add that dissolves ten communities rewrote all 1,024
   * lists of the reports' space for it (28 MB of log). Elsewhere: an upsert, then the deletion.
   */
  async replace(removed: readonly string[], items: readonly VectorItem[], embedderId: string): Promise<void> {
    const info = this.readInfo();
    if (removed.length === 0 || info?.layout !== 'sparse' || !this.store.keepsStaleEntries()) {
      await this.upsert(items, embedderId);
      await this.delete(removed);
      return;
    }
    // In one transaction: an upsert refused (another embedder or dimension) leaves no row renamed.
    await this.store.transaction(async () => {
      const given = new Set(items.map((item) => item.id));
      const stored = new Set(allRows<string>(this.store.statement(`SELECT id FROM ${this.sparseKeyTable} WHERE id IN (SELECT value FROM json_each(?))`, 'pluck'), JSON.stringify([...given])));
      const newIds = [...given].filter((id) => !stored.has(id));
      // Rows of removed ids, first row first, each taken by the next new id in the order the items came.
      const vacated = allRows<[number, string]>(
        this.store.statement(`SELECT vid, id FROM ${this.sparseKeyTable} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY vid`, 'raw'),
        JSON.stringify(removed.filter((id) => !given.has(id))),
      );
      const rename = this.store.statement(`UPDATE ${this.sparseKeyTable} SET id = ? WHERE vid = ?`);
      const reused = new Set<string>();
      vacated.slice(0, newIds.length).forEach(([vid, id], index) => {
        rename.run(newIds[index] as string, vid);
        reused.add(id);
      });
      await this.upsert(items, embedderId);
      await this.delete(removed.filter((id) => !reused.has(id)));
    });
  }

  /**
   * Deletes rows of a sparse space: the positions after a deleted row move down, so each posting list holding a row at
   * or after the first deleted one is rewritten. A draft that has removed no content keeps its stale rows, renumbered,
   * and its tails (an add that also deletes a few reports rewrites each list as it did); otherwise the stale entries
   * must go before the draft publishes, and they go in the same rewrite ({@link foldLists}).
   */
  private deleteSparse(ids: readonly string[]): void {
    const deleted = new Set(
      allRows<number>(this.store.statement(`SELECT vid FROM ${this.sparseKeyTable} WHERE id IN (SELECT value FROM json_each(?))`, 'pluck'), JSON.stringify(ids)),
    );
    if (deleted.size === 0) return;
    const stale = this.staleRows();
    if (stale.size > 0 && this.store.keepsStaleEntries()) this.renumberKeepingStale(deleted, stale);
    else this.foldLists(deleted, stale);
  }

  /** Each row's position once the `deleted` rows (by vid) are gone (−1: deleted), and the first deleted row; their keys go. */
  private positionsWithout(deleted: ReadonlySet<number>): { positions: Int32Array; firstDeleted: number } {
    const vids = allRows<number>(this.store.statement(`SELECT vid FROM ${this.sparseKeyTable} ORDER BY vid`, 'pluck'));
    const positions = new Int32Array(vids.length);
    let firstDeleted = vids.length;
    let next = 0;
    vids.forEach((vid, row) => {
      if (!deleted.has(vid)) positions[row] = next++;
      else {
        positions[row] = -1;
        firstDeleted = Math.min(firstDeleted, row);
      }
    });
    if (deleted.size > 0) this.store.statement(`DELETE FROM ${this.sparseKeyTable} WHERE vid IN (SELECT value FROM json_each(?))`).run(JSON.stringify([...deleted]));
    return { positions, firstDeleted };
  }

  /** A deletion that leaves the `stale` rows stale: stored lists and tails are renumbered apart, as bytes, and so are the stale rows. */
  private renumberKeepingStale(deleted: ReadonlySet<number>, stale: ReadonlySet<number>): void {
    const { positions, firstDeleted } = this.positionsWithout(deleted);
    for (const table of [this.postingTable, this.tailTable]) {
      const write = this.store.statement(`INSERT INTO ${table} (coordinate, postings) VALUES (?, ?) ON CONFLICT (coordinate) DO UPDATE SET postings = excluded.postings`);
      const remove = this.store.statement(`DELETE FROM ${table} WHERE coordinate = ?`);
      for (const [coordinate, blob] of allRows<[number, Buffer]>(this.store.statement(`SELECT coordinate, postings FROM ${table} ORDER BY coordinate`, 'raw'))) {
        const postings = coordinatePostingsAfterDeletion([blob], positions, firstDeleted);
        if (postings === null) remove.run(coordinate);
        else if (postings !== undefined) write.run(coordinate, postings);
      }
    }
    this.store.statement(`DELETE FROM ${this.staleTable}`).run();
    const markStale = this.store.statement(`INSERT INTO ${this.staleTable} (row) VALUES (?)`);
    for (const row of [...stale].sort((left, right) => left - right)) {
      const position = positions[row] ?? -1;
      if (position >= 0) markStale.run(position);
    }
  }

  /**
   * One rewrite of a sparse space's lists, as bytes: the entries of `deleted` rows (by vid) go and the positions after
   * them move down, stale rows' stored entries go while their tail entries (their current vectors) stay, and every
   * tail is folded into its list. A list with nothing to drop, no tail and no position moving is left as it is. No row
   * is decoded into arrays, nor the space transposed into rows and back (1.3 s for a 1 % deletion from 2Wiki's
   * spaces), and a deletion after replacements rewrites each list once, not once for the stale rows and again for the
   * deleted ones. `stale` are the space's stale rows. Afterwards no row is stale and no tail is left.
   */
  private foldLists(deleted: ReadonlySet<number>, stale: ReadonlySet<number>): void {
    // A row's new position (−1: deleted), for its tail entries; its stored entries' are −1 for a stale row too.
    const { positions, firstDeleted } = this.positionsWithout(deleted);
    let storedPositions = positions;
    let firstChanged = firstDeleted;
    const staleMask = deleted.size === 0 ? staleRowMask(stale) : undefined;
    if (stale.size > 0) {
      storedPositions = positions.slice();
      for (const row of stale) {
        if (row >= positions.length) continue;
        storedPositions[row] = -1;
        firstChanged = Math.min(firstChanged, row);
      }
    }
    const tails = new Map(this.hasTail() ? allRows<[number, Buffer]>(this.store.statement(`SELECT coordinate, postings FROM ${this.tailTable}`, 'raw')) : []);
    const stored = allRows<[number, Buffer]>(this.store.statement(`SELECT coordinate, postings FROM ${this.postingTable} ORDER BY coordinate`, 'raw'));
    const write = this.store.statement(`INSERT INTO ${this.postingTable} (coordinate, postings) VALUES (?, ?) ON CONFLICT (coordinate) DO UPDATE SET postings = excluded.postings`);
    const remove = this.store.statement(`DELETE FROM ${this.postingTable} WHERE coordinate = ?`);
    for (const [coordinate, blob] of stored) {
      const tail = tails.get(coordinate);
      tails.delete(coordinate);
      // Without a deletion, only positions of stale rows change: a list holding none and without a tail is as it was.
      if (staleMask !== undefined && tail === undefined && !coordinatePostingsHoldAny(blob, staleMask)) continue;
      const postings = coordinatePostingsAfterDeletion(tail === undefined ? [blob] : [blob, tail], storedPositions, firstChanged, stale.size > 0 ? positions : undefined);
      if (postings === null) remove.run(coordinate);
      else if (postings !== undefined) write.run(coordinate, postings);
    }
    // A tail without a stored list (appends fold those at once) moves to the stored lists even when unchanged.
    for (const [coordinate, tail] of tails) {
      const postings = coordinatePostingsAfterDeletion([tail], positions, firstDeleted);
      if (postings !== null) write.run(coordinate, postings ?? tail);
    }
    if (this.hasTail()) this.store.statement(`DELETE FROM ${this.tailTable}`).run();
    if (stale.size > 0) this.store.statement(`DELETE FROM ${this.staleTable}`).run();
  }

  async clear(): Promise<void> {
    const info = this.readInfo();
    await this.store.transaction(async () => {
      this.dropTables();
      this.store.statement('DELETE FROM meta WHERE key = ?').run(this.infoKey);
      if (info) this.bumpRevision(info);
    });
    this.cache = undefined;
  }

  async count(): Promise<number> {
    const info = this.readInfo();
    if (!info) return 0;
    return (this.store.statement(`SELECT count(*) AS n FROM ${this.idTable(info)}`).get() as { n: number }).n;
  }
}

function toBuffer(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** One item's non-zero coordinates (ascending) and values. */
function rowNonZeros(item: VectorItem, dimensions: number): SparseRow {
  if (!(item.vector instanceof Float32Array)) return nonZerosOf(item.vector);
  const { columnIndices, values } = sparseRowsOfDense(item.vector, 1, dimensions);
  return { columns: columnIndices, values };
}

const emptyPostings: CoordinatePostings = { rows: new Int32Array(0), values: new Float32Array(0) };

/** The entries of `rows` (given in ascending row order) by coordinate, each coordinate's rows ascending. */
function entriesByCoordinate(rows: ReadonlyArray<readonly [row: number, nonZeros: SparseRow]>): Map<number, CoordinatePostings> {
  const lists = new Map<number, { rows: number[]; values: number[] }>();
  for (const [row, { columns, values }] of rows) {
    for (let entry = 0; entry < columns.length; entry++) {
      const coordinate = columns[entry] as number;
      let list = lists.get(coordinate);
      if (!list) lists.set(coordinate, (list = { rows: [], values: [] }));
      list.rows.push(row);
      list.values.push(values[entry] as number);
    }
  }
  return new Map([...lists].map(([coordinate, list]) => [coordinate, { rows: Int32Array.from(list.rows), values: Float32Array.from(list.values) }]));
}

/** Stale rows as flags by row number (1: stale), as long as the largest of them needs. */
function staleRowMask(stale: ReadonlySet<number>): Uint8Array {
  let end = 0;
  for (const row of stale) end = Math.max(end, row + 1);
  const mask = new Uint8Array(end);
  for (const row of stale) mask[row] = 1;
  return mask;
}

/** A coordinate's postings without the entries of `replaced` rows, merged in row order with `entries` (their new ones and appended rows'). */
function mergedPostings(current: CoordinatePostings, replaced: Uint8Array, entries: CoordinatePostings | undefined): CoordinatePostings {
  const added = entries ?? emptyPostings;
  const rows = new Int32Array(current.rows.length + added.rows.length);
  const values = new Float32Array(rows.length);
  let size = 0;
  let next = 0;
  for (let entry = 0; entry < current.rows.length; entry++) {
    const row = current.rows[entry] as number;
    if (replaced[row] === 1) continue;
    for (; next < added.rows.length && (added.rows[next] as number) < row; next++, size++) {
      rows[size] = added.rows[next] as number;
      values[size] = added.values[next] as number;
    }
    rows[size] = row;
    values[size++] = current.values[entry] as number;
  }
  for (; next < added.rows.length; next++, size++) {
    rows[size] = added.rows[next] as number;
    values[size] = added.values[next] as number;
  }
  return { rows: rows.subarray(0, size), values: values.subarray(0, size) };
}

/** The rows of `ids` in a kept matrix, in its order (ids it lacks left out), copied into a matrix of their own. */
function rowsOf(kept: VectorMatrix, ids: readonly string[]): VectorMatrix {
  const wanted = new Set(ids);
  const present = kept.ids.filter((id) => wanted.has(id));
  return { ids: present, dimensions: kept.dimensions, matrix: matrixInRowOrder(kept, present) };
}
