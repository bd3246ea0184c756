import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { KgragError } from '../../core/errors.js';
import { bm25Stopwords } from '../../text/stopwords.js';
import { wordTokens } from '../../text/word-tokens.js';
import { snakeCase, tableNames, tableSpec, type AnyTableSpec, type ColumnOf, type TableName, type TableRows } from '../schema.js';
import { createSparseSimilarityIndex, type SimilarityIndex } from '../../math/similarity-index.js';
import { topIndices } from '../../math/top-indices.js';
import {
  sparseLayoutMaxDensity,
  type ScoredId,
  type SparseVectorMatrix,
  type Store,
  type TableAccess,
  type TextSearchTable,
  type VectorIndex,
  type VectorItem,
  type VectorLayout,
  type VectorMatrix,
  type VectorSpace,
  type VectorSpaceInfo,
} from '../store.js';
import { decodePage, encodePage, pageBits, pageSize, pageSlots, sparseSlot, type SparseSlot } from './sparse-vector-pages.js';

/** `PRAGMA application_id` of kgrag databases ("kgrg"), so we never write into someone else's SQLite file. */
const applicationId = 0x6b677267;
/**
 * Bumped with each schema change; older files are migrated on open, newer ones refused.
 * 2: full-text indexes hold text without stopwords (BM25 document lengths as in classic IR).
 * 3: reports.error records why an LLM report failed.
 * 4: vector spaces may be sparse (`vec_<space>_sparse`, layout in `vectors:<space>`); dense spaces of version 3
 *    are read as they are, and an older kgrag must not open a file whose spaces it cannot read.
 */
const schemaVersion = 4;
/** SQL function that turns a column's text into what the full-text index stores. */
const indexTextFunction = 'kgrag_index_text';

/**
 * Text as the BM25 index sees it: the same words FTS5's unicode61 tokenizer finds, minus the BM25 stop
 * list. Queries drop the same words, so keeping them in documents would only inflate document lengths —
 * which moved Recall@5 on MuSiQue by 1.8 points against a textbook BM25.
 */
export function fullTextIndexText(text: string | null): string {
  return text === null ? '' : wordTokens(text).filter((token) => !bm25Stopwords.has(token)).join(' ');
}
/** sqlite-vec's largest `k`; larger searches fall back to a scan in JavaScript. */
const maxVecK = 4096;

type SqlValue = string | number | bigint | Buffer | null;
type SqlRow = Record<string, SqlValue>;

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Open read-only (queries from a second process while an index runs). */
  readonly?: boolean;
}

/**
 * Opens (creating if needed) the SQLite store of a workspace: better-sqlite3 with WAL, FTS5 for BM25
 * and sqlite-vec for vector search. `path` may be `:memory:` for tests.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  if (path !== ':memory:' && !options.readonly) mkdirSync(dirname(path), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: options.readonly === true, fileMustExist: options.readonly === true });
    sqliteVec.load(db);
    db.function(indexTextFunction, { deterministic: true }, (text: unknown) => fullTextIndexText(typeof text === 'string' ? text : null));
    db.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    migrate(db, path, options.readonly === true);
  } catch (error) {
    if (KgragError.isInstance(error)) throw error;
    throw new KgragError(`cannot open the index database "${path}": ${(error as Error).message}`, {
      code: 'STORE_OPEN_FAILED',
      category: 'store',
      hint: 'check that the workspace folder is writable and the file is a kgrag database (delete it to start over)',
      details: { path },
      cause: error,
    });
  }
  return new SqliteStore(db);
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
  if (readonly) {
    throw new KgragError(`"${path}" has no kgrag index yet`, {
      code: 'STORE_EMPTY',
      category: 'store',
      hint: 'run `kgrag index <paths>` first',
    });
  }
  db.transaction(() => {
    if (version === 0) {
      for (const name of tableNames) createTable(db, tableSpec(name));
      db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT, blob BLOB)');
    }
    if (version >= 1 && version < 2) rebuildFullTextIndexes(db);
    if (version >= 1 && version < 3) addColumnIfMissing(db, 'reports', 'error', 'TEXT');
    db.pragma(`application_id = ${applicationId}`);
    db.pragma(`user_version = ${schemaVersion}`);
  })();
}

function addColumnIfMissing(db: Database.Database, table: string, column: string, type: string): void {
  const columns = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
  if (!columns.some((existing) => existing.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN "${column}" ${type}`);
}

/** Version 1 indexed raw text; rebuild every full-text index from its table. */
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
    const ftsColumns = spec.fullText.map((column) => `"${snakeCase(column)}"`);
    const fts = `${spec.sqlName}_fts`;
    // A contentless FTS5 table (content='', rows deletable) kept in sync by triggers, holding the text
    // without stopwords; unicode61 without stemming matches the evaluation datasets' BM25 baseline.
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(${ftsColumns.join(', ')}, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`,
    );
    const newValues = ftsColumns.map((column) => `${indexTextFunction}(new.${column})`).join(', ');
    db.exec(`CREATE TRIGGER IF NOT EXISTS ${fts}_insert AFTER INSERT ON ${spec.sqlName} BEGIN
      INSERT INTO ${fts} (rowid, ${ftsColumns.join(', ')}) VALUES (new.hid, ${newValues}); END`);
    db.exec(`CREATE TRIGGER IF NOT EXISTS ${fts}_delete AFTER DELETE ON ${spec.sqlName} BEGIN
      DELETE FROM ${fts} WHERE rowid = old.hid; END`);
    db.exec(`CREATE TRIGGER IF NOT EXISTS ${fts}_update AFTER UPDATE ON ${spec.sqlName} BEGIN
      DELETE FROM ${fts} WHERE rowid = old.hid;
      INSERT INTO ${fts} (rowid, ${ftsColumns.join(', ')}) VALUES (new.hid, ${newValues}); END`);
  }
}

class SqliteStore implements Store {
  readonly backend = 'sqlite';
  private readonly statements = new Map<string, Database.Statement>();
  private readonly tables = new Map<TableName, SqliteTable<TableName>>();
  private readonly vectorIndexes = new Map<VectorSpace, SqliteVectorIndex>();
  private transactionDepth = 0;
  private closed = false;

  constructor(private readonly db: Database.Database) {}

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
    let access = this.tables.get(name);
    if (!access) {
      access = new SqliteTable(this, tableSpec(name));
      this.tables.set(name, access);
    }
    return access as unknown as TableAccess<T>;
  }

  vectors(space: VectorSpace): VectorIndex {
    let index = this.vectorIndexes.get(space);
    if (!index) {
      index = new SqliteVectorIndex(this, space);
      this.vectorIndexes.set(space, index);
    }
    return index;
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
    this.statement(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(key, JSON.stringify(value));
  }

  async getBlob(key: string): Promise<Uint8Array | undefined> {
    const row = this.statement('SELECT blob FROM meta WHERE key = ?').get(key) as { blob: Buffer | null } | undefined;
    // A view, not a copy: better-sqlite3 returns every blob in a buffer of its own (a 13 MB triple index was copied twice).
    return row?.blob == null ? undefined : new Uint8Array(row.blob.buffer, row.blob.byteOffset, row.blob.byteLength);
  }

  async setBlob(key: string, value: Uint8Array): Promise<void> {
    this.statement('INSERT INTO meta (key, blob) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET blob = excluded.blob').run(
      key,
      Buffer.from(value.buffer, value.byteOffset, value.byteLength),
    );
  }

  async transaction<R>(fn: (tx: Store) => Promise<R>): Promise<R> {
    const depth = this.transactionDepth;
    const savepoint = `sp${depth}`;
    this.db.exec(depth === 0 ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`);
    this.transactionDepth = depth + 1;
    try {
      const result = await fn(this);
      this.db.exec(depth === 0 ? 'COMMIT' : `RELEASE ${savepoint}`);
      return result;
    } catch (error) {
      if (depth === 0) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } else {
        this.db.exec(`ROLLBACK TO ${savepoint}`);
        this.db.exec(`RELEASE ${savepoint}`);
      }
      throw error;
    } finally {
      this.transactionDepth = depth;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.db.close();
  }
}

class SqliteTable<T extends TableName> implements TableAccess<T> {
  private readonly columns: Array<[string, { type: string; nullable?: boolean }]>;
  private readonly selectList: string;
  private readonly upsertSql: string;
  private readonly orderBy: string;

  constructor(
    private readonly store: SqliteStore,
    private readonly spec: AnyTableSpec,
  ) {
    this.columns = Object.entries(spec.columns);
    const sqlColumns = this.columns.map(([name]) => `"${snakeCase(name)}"`);
    this.selectList = (spec.hid ? ['hid', ...sqlColumns] : sqlColumns).join(', ');
    const key = spec.key.map((column) => `"${snakeCase(column)}"`);
    const updates = sqlColumns.filter((column) => !key.includes(column)).map((column) => `${column} = excluded.${column}`);
    this.upsertSql =
      `INSERT INTO ${spec.sqlName} (${sqlColumns.join(', ')}) VALUES (${sqlColumns.map(() => '?').join(', ')}) ` +
      `ON CONFLICT (${key.join(', ')}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
    this.orderBy = spec.hid ? 'hid' : 'rowid';
  }

  async upsert(rows: ReadonlyArray<TableRows[T]>): Promise<void> {
    if (rows.length === 0) return;
    const statement = this.store.statement(this.upsertSql);
    const record = rows as unknown as ReadonlyArray<Record<string, unknown>>;
    const write = (): void => {
      for (const row of record) statement.run(this.encode(row));
    };
    await this.store.transaction(async () => write());
  }

  async get(keys: readonly string[]): Promise<Array<TableRows[T]>> {
    if (this.spec.key.length !== 1) throw new Error(`${this.spec.sqlName}: get() needs a single-column key; use where()`);
    return this.where(this.spec.key[0] as ColumnOf<T>, keys as ReadonlyArray<TableRows[T][ColumnOf<T>]>);
  }

  async all(): Promise<Array<TableRows[T]>> {
    const rows = this.store.statement(`SELECT ${this.selectList} FROM ${this.spec.sqlName} ORDER BY ${this.orderBy}`).all() as SqlRow[];
    return rows.map((row) => this.decode(row));
  }

  async where<C extends ColumnOf<T>>(column: C, values: ReadonlyArray<TableRows[T][C]>): Promise<Array<TableRows[T]>> {
    if (values.length === 0) return [];
    const rows = this.store
      .statement(
        `SELECT ${this.selectList} FROM ${this.spec.sqlName} WHERE "${snakeCase(column)}" IN (SELECT value FROM json_each(?)) ORDER BY ${this.orderBy}`,
      )
      .all(JSON.stringify(values)) as SqlRow[];
    return rows.map((row) => this.decode(row));
  }

  async pick<K extends ColumnOf<T>>(
    columns: readonly K[],
    where?: { column: ColumnOf<T>; values: readonly unknown[] },
  ): Promise<Array<Pick<TableRows[T], K> & { hid?: number }>> {
    if (where && where.values.length === 0) return [];
    const picked = this.columns.filter(([name]) => (columns as readonly string[]).includes(name));
    const list = [...(this.spec.hid ? ['hid'] : []), ...picked.map(([name]) => `"${snakeCase(name)}"`)].join(', ');
    const sql = `SELECT ${list} FROM ${this.spec.sqlName}${
      where ? ` WHERE "${snakeCase(where.column)}" IN (SELECT value FROM json_each(?))` : ''
    } ORDER BY ${this.orderBy}`;
    const rows = (where ? this.store.statement(sql).all(JSON.stringify(where.values)) : this.store.statement(sql).all()) as SqlRow[];
    return rows.map((row) => this.decode(row, picked)) as Array<Pick<TableRows[T], K> & { hid?: number }>;
  }

  async deleteWhere<C extends ColumnOf<T>>(column: C, values: ReadonlyArray<TableRows[T][C]>): Promise<number> {
    if (values.length === 0) return 0;
    const result = this.store
      .statement(`DELETE FROM ${this.spec.sqlName} WHERE "${snakeCase(column)}" IN (SELECT value FROM json_each(?))`)
      .run(JSON.stringify(values));
    return result.changes;
  }

  async clear(): Promise<void> {
    this.store.statement(`DELETE FROM ${this.spec.sqlName}`).run();
  }

  async count(): Promise<number> {
    return (this.store.statement(`SELECT count(*) AS n FROM ${this.spec.sqlName}`).get() as { n: number }).n;
  }

  private encode(row: Record<string, unknown>): SqlValue[] {
    return this.columns.map(([name, column]) => {
      const value = row[name];
      if (column.type === 'json' && value !== undefined) return JSON.stringify(value);
      if (value === undefined || value === null) {
        if (column.nullable) return null;
        throw new KgragError(`${this.spec.sqlName}.${name} is required but missing`, {
          code: 'STORE_MISSING_COLUMN',
          category: 'internal',
          details: { table: this.spec.sqlName, column: name },
        });
      }
      return value as SqlValue;
    });
  }

  private decode(row: SqlRow, columns = this.columns): TableRows[T] {
    const record: Record<string, unknown> = {};
    if (this.spec.hid) record.hid = row.hid;
    for (const [name, column] of columns) {
      const value = row[snakeCase(name)];
      record[name] = column.type === 'json' && typeof value === 'string' ? JSON.parse(value) : value;
    }
    return record as unknown as TableRows[T];
  }
}

/** What the meta record `vectors:<space>` holds; spaces written before the sparse layout have no `layout` (dense). */
interface StoredSpaceInfo {
  embedderId: string;
  dimensions: number;
  layout?: VectorLayout;
}

/** An exact in-memory index of a sparse space for `search`, valid while the space's revision is unchanged. */
interface SparseSearchCache {
  revision: number;
  ids: string[];
  index: SimilarityIndex;
}

/**
 * One space. Dense layout: a sqlite-vec `vec0` table plus a key table mapping our string ids to the integer
 * row ids vec0 needs (its text primary keys have no rowid, so insertion order would be lost). Sparse layout:
 * a key table (vid, id) and pages of coordinate/value pairs (`sparse-vector-pages.ts`), searched exactly
 * through postings built in memory on the first search and kept while the space's revision is unchanged. The
 * revision lives in its own meta record, which `clear()` keeps, so it never repeats.
 */
class SqliteVectorIndex implements VectorIndex {
  private readonly vecTable: string;
  private readonly keyTable: string;
  private readonly sparseKeyTable: string;
  private readonly pageTable: string;
  private readonly infoKey: string;
  private readonly revisionKey: string;
  private searchCache: SparseSearchCache | undefined;

  constructor(
    private readonly store: SqliteStore,
    private readonly space: VectorSpace,
  ) {
    this.vecTable = `vec_${space}`;
    this.keyTable = `vec_${space}_keys`;
    this.sparseKeyTable = `vec_${space}_sparse`;
    this.pageTable = `vec_${space}_pages`;
    this.infoKey = `vectors:${space}`;
    this.revisionKey = `vectors-revision:${space}`;
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
    for (const table of [this.vecTable, this.keyTable, this.sparseKeyTable, this.pageTable]) this.store.exec(`DROP TABLE IF EXISTS ${table}`);
  }

  async upsert(items: readonly VectorItem[], embedderId: string): Promise<void> {
    if (items.length === 0) return;
    const dimensions = items[0]?.vector.length ?? 0;
    let info = this.readInfo();
    if (info && (info.dimensions !== dimensions || info.embedderId !== embedderId)) {
      throw new KgragError(
        `the ${this.space} vectors were made by "${info.embedderId}" (${info.dimensions} dimensions), not "${embedderId}" (${dimensions})`,
        {
          code: 'STORE_VECTOR_SPACE_MISMATCH',
          category: 'config',
          hint: 'the embeddings configuration changed since indexing; re-run `kgrag index` to re-embed, or restore the old embeddings settings',
          details: { space: this.space, stored: { embedderId: info.embedderId, dimensions: info.dimensions }, given: { embedderId, dimensions } },
        },
      );
    }
    for (const item of items) {
      if (item.vector.length !== dimensions) {
        throw new KgragError(`vector of "${item.id}" has ${item.vector.length} dimensions, expected ${dimensions}`, {
          code: 'STORE_VECTOR_DIMENSION',
          category: 'internal',
        });
      }
    }
    await this.store.transaction(async () => {
      if (!info) {
        const layout = chooseLayout(items, dimensions);
        this.dropTables();
        if (layout === 'sparse') {
          this.store.exec(`CREATE TABLE ${this.sparseKeyTable} (vid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)`);
          this.store.exec(`CREATE TABLE ${this.pageTable} (page INTEGER PRIMARY KEY, vectors BLOB NOT NULL)`);
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
      const findKey = this.store.statement(`SELECT vid FROM ${this.idTable(info)} WHERE id = ?`, 'pluck');
      const insertKey = this.store.statement(`INSERT INTO ${this.idTable(info)} (id) VALUES (?)`);
      if (info.layout === 'sparse') {
        // An upsert keeps the row id (the insertion order) of an id that is already there.
        const changes = new Map<number, SparseSlot | undefined>();
        for (const item of items) {
          const vid = (findKey.get(item.id) as number | undefined) ?? Number(insertKey.run(item.id).lastInsertRowid);
          changes.set(vid, sparseSlot(item.vector));
        }
        this.rewritePages(changes, dimensions);
        return;
      }
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
        insertVector.run(BigInt(vid), toBuffer(item.vector));
      }
    });
  }

  /** Applies slot changes (undefined empties a slot), each touched page read and written once. */
  private rewritePages(changes: ReadonlyMap<number, SparseSlot | undefined>, dimensions: number): void {
    const byPage = new Map<number, Array<[number, SparseSlot | undefined]>>();
    for (const [vid, slot] of changes) {
      const page = vid >> pageBits;
      let list = byPage.get(page);
      if (!list) byPage.set(page, (list = []));
      list.push([vid & (pageSize - 1), slot]);
    }
    const read = this.store.statement(`SELECT vectors FROM ${this.pageTable} WHERE page = ?`, 'pluck');
    const write = this.store.statement(`INSERT INTO ${this.pageTable} (page, vectors) VALUES (?, ?) ON CONFLICT (page) DO UPDATE SET vectors = excluded.vectors`);
    const remove = this.store.statement(`DELETE FROM ${this.pageTable} WHERE page = ?`);
    for (const page of [...byPage.keys()].sort((left, right) => left - right)) {
      const existing = read.get(page) as Buffer | undefined;
      const slots = existing ? pageSlots(decodePage(existing, dimensions)) : new Array<SparseSlot | undefined>(pageSize).fill(undefined);
      for (const [slot, value] of byPage.get(page) ?? []) slots[slot] = value;
      const blob = encodePage(slots, dimensions);
      if (blob) write.run(page, blob);
      else remove.run(page);
    }
  }

  async search(query: Float32Array, k: number): Promise<ScoredId[]> {
    const info = this.readInfo();
    if (!info || k <= 0) return [];
    if (query.length !== info.dimensions) {
      throw new KgragError(`query vector has ${query.length} dimensions, the ${this.space} index has ${info.dimensions}`, {
        code: 'STORE_VECTOR_SPACE_MISMATCH',
        category: 'config',
        hint: 'the embeddings configuration changed since indexing; re-run `kgrag index` to re-embed',
      });
    }
    if (info.layout === 'sparse') return this.searchSparse(info, query, k);
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

  private searchSparse(info: VectorSpaceInfo, query: Float32Array, k: number): ScoredId[] {
    let cache = this.searchCache;
    if (cache?.revision !== info.revision) {
      const { revision, rows } = this.store.readSnapshot(() => ({ revision: this.readInfo()?.revision ?? 0, rows: this.readSparseRows(info.dimensions, true) }));
      cache = { revision, ids: rows.ids, index: createSparseSimilarityIndex(rows.ids.length, rows.dimensions, rows) };
      this.searchCache = cache;
    }
    const scores = cache.index.scoreMany(query, 1);
    const ids = cache.ids;
    return topIndices(scores, k).map((row) => ({ id: ids[row] as string, score: scores[row] as number }));
  }

  private async scan(query: Float32Array, k: number): Promise<ScoredId[]> {
    const { ids, dimensions, matrix } = await this.load();
    const scored: ScoredId[] = ids.map((id, row) => {
      let dot = 0;
      const offset = row * dimensions;
      for (let d = 0; d < dimensions; d++) dot += (matrix[offset + d] as number) * (query[d] as number);
      return { id, score: dot };
    });
    scored.sort((left, right) => right.score - left.score);
    return scored.slice(0, k);
  }

  async ids(): Promise<string[]> {
    const info = this.readInfo();
    if (!info) return [];
    return this.store.statement(`SELECT id FROM ${this.idTable(info)} ORDER BY vid`, 'pluck').all() as string[];
  }

  /**
   * The pages of a sparse space in order, with the (vid, id) of every stored vector — of `ids` only when given.
   * Reads both in the caller's snapshot.
   */
  private sparseKeysAndPages(ids: readonly string[] | undefined): { keys: Array<[number, string]>; pages: Map<number, Buffer> } {
    const keySql = `SELECT vid, id FROM ${this.sparseKeyTable}`;
    const keys = (
      ids === undefined
        ? this.store.statement(`${keySql} ORDER BY vid`, 'raw').all()
        : this.store.statement(`${keySql} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY vid`, 'raw').all(JSON.stringify(ids))
    ) as Array<[number, string]>;
    const pageRows = (
      ids === undefined
        ? this.store.statement(`SELECT page, vectors FROM ${this.pageTable} ORDER BY page`, 'raw').all()
        : this.store
            .statement(`SELECT page, vectors FROM ${this.pageTable} WHERE page IN (SELECT value FROM json_each(?)) ORDER BY page`, 'raw')
            .all(JSON.stringify([...new Set(keys.map(([vid]) => vid >> pageBits))]))
    ) as Array<[number, Buffer]>;
    return { keys, pages: new Map(pageRows) };
  }

  /**
   * Every vector of a sparse space as CSR rows in vid order (the caller holds a snapshot). A page's present
   * slots are its rows in vid order and their entries lie back to back, so each page is two array copies; the
   * ids, when asked for, are the key table's in the same order.
   */
  private readSparseRows(dimensions: number, withIds: boolean): SparseVectorMatrix {
    const blobs = this.store.statement(`SELECT vectors FROM ${this.pageTable} ORDER BY page`, 'pluck').all() as Buffer[];
    const pages = blobs.map((blob) => decodePage(blob, dimensions));
    let rows = 0;
    let nonZeros = 0;
    for (const page of pages) {
      nonZeros += page.values.length;
      for (let slot = 0; slot < pageSize; slot++) if ((page.lengths[slot] as number) > 0) rows++;
    }
    const rowPointers = new Int32Array(rows + 1);
    const columnIndices = new Int32Array(nonZeros);
    const values = new Float32Array(nonZeros);
    let row = 0;
    let entry = 0;
    for (const page of pages) {
      values.set(page.values, entry);
      columnIndices.set(page.coordinates, entry);
      for (let slot = 0; slot < pageSize; slot++) {
        const length = page.lengths[slot] as number;
        if (length === 0) continue;
        entry += length - 1;
        rowPointers[++row] = entry;
      }
    }
    const ids = withIds ? (this.store.statement(`SELECT id FROM ${this.sparseKeyTable} ORDER BY vid`, 'pluck').all() as string[]) : [];
    if (withIds && ids.length !== rows) {
      throw new KgragError(`the ${this.space} vectors do not match their ids (${rows} vectors, ${ids.length} ids)`, { code: 'STORE_CORRUPT', category: 'internal' });
    }
    return { ids, dimensions, revision: this.readInfo()?.revision ?? 0, rowPointers, columnIndices, values };
  }

  async load(ids?: readonly string[]): Promise<VectorMatrix> {
    return this.store.readSnapshot(() => {
      const info = this.readInfo();
      if (!info) return { ids: [], dimensions: 0, matrix: new Float32Array(0) };
      const { dimensions } = info;
      if (info.layout === 'sparse') {
        const { keys, pages } = this.sparseKeysAndPages(ids);
        const slotsOf = new Map<number, Array<SparseSlot | undefined>>();
        const matrix = new Float32Array(keys.length * dimensions);
        keys.forEach(([vid], row) => {
          const page = vid >> pageBits;
          let slots = slotsOf.get(page);
          if (!slots) {
            const blob = pages.get(page);
            slots = blob ? pageSlots(decodePage(blob, dimensions)) : [];
            slotsOf.set(page, slots);
          }
          const slot = slots[vid & (pageSize - 1)];
          if (!slot) throw new KgragError(`the ${this.space} vector of row ${vid} is missing`, { code: 'STORE_CORRUPT', category: 'internal' });
          const offset = row * dimensions;
          for (let entry = 0; entry < slot.values.length; entry++) matrix[offset + (slot.coordinates[entry] as number)] = slot.values[entry] as number;
        });
        return { ids: keys.map(([, id]) => id), dimensions, matrix };
      }
      return this.readDense(dimensions, ids);
    });
  }

  /** The vectors of a dense space (of `ids` when given) in vid order. */
  private readDense(dimensions: number, ids: readonly string[] | undefined): VectorMatrix {
    const sql = `SELECT keys.id AS id, v.embedding AS embedding FROM ${this.keyTable} keys JOIN ${this.vecTable} v ON v.vid = keys.vid`;
    const rows = (
      ids === undefined
        ? this.store.statement(`${sql} ORDER BY keys.vid`, 'raw').all()
        : this.store.statement(`${sql} WHERE keys.id IN (SELECT value FROM json_each(?)) ORDER BY keys.vid`, 'raw').all(JSON.stringify(ids))
    ) as Array<[string, Buffer]>;
    const matrix = new Float32Array(rows.length * dimensions);
    rows.forEach(([, blob], index) => matrix.set(new Float32Array(blob.buffer, blob.byteOffset, dimensions), index * dimensions));
    return { ids: rows.map(([id]) => id), dimensions, matrix };
  }

  async loadSparse(options: { withIds?: boolean } = {}): Promise<SparseVectorMatrix> {
    const withIds = options.withIds ?? true;
    const info = this.readInfo();
    if (!info) return { ids: [], dimensions: 0, revision: 0, rowPointers: new Int32Array(1), columnIndices: new Int32Array(0), values: new Float32Array(0) };
    if (info.layout === 'dense') {
      return this.store.readSnapshot(() => {
        const revision = this.readInfo()?.revision ?? 0;
        return { ...sparseRowsOf(this.readDense(info.dimensions, undefined), withIds), revision };
      });
    }
    return this.store.readSnapshot(() => this.readSparseRows(info.dimensions, withIds));
  }

  async delete(ids: readonly string[]): Promise<void> {
    const info = this.readInfo();
    if (ids.length === 0 || !info) return;
    await this.store.transaction(async () => {
      this.bumpRevision(info);
      const vids = this.store
        .statement(`SELECT vid FROM ${this.idTable(info)} WHERE id IN (SELECT value FROM json_each(?))`, 'pluck')
        .all(JSON.stringify(ids)) as number[];
      const deleteKey = this.store.statement(`DELETE FROM ${this.idTable(info)} WHERE vid = ?`);
      for (const vid of vids) deleteKey.run(vid);
      if (info.layout === 'sparse') {
        this.rewritePages(new Map(vids.map((vid) => [vid, undefined])), info.dimensions);
        return;
      }
      const deleteVector = this.store.statement(`DELETE FROM ${this.vecTable} WHERE vid = ?`);
      for (const vid of vids) deleteVector.run(BigInt(vid));
    });
  }

  async clear(): Promise<void> {
    const info = this.readInfo();
    await this.store.transaction(async () => {
      this.dropTables();
      this.store.statement('DELETE FROM meta WHERE key = ?').run(this.infoKey);
      if (info) this.bumpRevision(info);
    });
    this.searchCache = undefined;
  }

  async count(): Promise<number> {
    const info = this.readInfo();
    if (!info) return 0;
    return (this.store.statement(`SELECT count(*) AS n FROM ${this.idTable(info)}`).get() as { n: number }).n;
  }
}

/** The layout of a new space: sparse when at most {@link sparseLayoutMaxDensity} of the first vectors' coordinates are non-zero. */
function chooseLayout(items: readonly VectorItem[], dimensions: number): VectorLayout {
  let nonZeros = 0;
  for (const { vector } of items) for (let index = 0; index < vector.length; index++) if (vector[index] !== 0) nonZeros++;
  return nonZeros <= sparseLayoutMaxDensity * items.length * dimensions ? 'sparse' : 'dense';
}

/** Dense rows as sparse rows (zeros left out). */
function sparseRowsOf(dense: VectorMatrix, withIds: boolean): Omit<SparseVectorMatrix, 'revision'> {
  const { dimensions, matrix } = dense;
  const rows = dense.ids.length;
  const rowPointers = new Int32Array(rows + 1);
  let nonZeros = 0;
  for (let position = 0; position < matrix.length; position++) if (matrix[position] !== 0) nonZeros++;
  const columnIndices = new Int32Array(nonZeros);
  const values = new Float32Array(nonZeros);
  let entry = 0;
  for (let row = 0; row < rows; row++) {
    for (let dimension = 0; dimension < dimensions; dimension++) {
      const value = matrix[row * dimensions + dimension] as number;
      if (value === 0) continue;
      columnIndices[entry] = dimension;
      values[entry] = value;
      entry++;
    }
    rowPointers[row + 1] = entry;
  }
  return { ids: withIds ? dense.ids : [], dimensions, rowPointers, columnIndices, values };
}

function toBuffer(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}
