import type pg from 'pg';
import { ByteBudgetLru } from '../../core/byte-budget-lru.js';
import { KgragError } from '../../core/errors.js';
import { tableSpec, type TableName } from '../schema.js';
import type { ScoredId, Store, TableAccess, TextSearchTable, VectorIndex, VectorSpace } from '../store.js';
import { postingsBytes, searchFullText, type FullTextCache, type PostingsCache } from './postgres-full-text.js';
import { createPostgresPluginTables, migratePostgresSchema, type PostgresSchemaState } from './postgres-migrations.js';
import { connectClient, inPostgresTransaction, sqlRunner, type SqlRunner } from './postgres-sql.js';
import { PostgresTable } from './postgres-table.js';
import { retireOlder, visibleAt } from './postgres-row-versions.js';
import { PostgresVectorIndex, type PostgresVectorAccess } from './postgres-vector-index.js';
import type { SpaceCache } from '../core/space-cache.js';
import { memoized } from '../core/memoized.js';
import { specOfTable } from '../core/spec-of-table.js';
import { assertVectorSpaceName, validatePluginTables, type PluginTables, type StoreExtensions } from '../store-extensions.js';

/** Which index of which workspace a store reads and writes: one database holds many workspaces, each many generations. */
export interface PostgresScope {
  workspace: string;
  /** One index version of the workspace (drafts and published indexes are generations). */
  generation: number;
}

/** Options of {@link openPostgresStore}; `tables` are plugins' tables, created in the schema beside the built-in ones. */
export interface PostgresStoreOptions extends StoreExtensions {
  /**
   * The Postgres schema that holds kgrag's tables, created when missing.
   * @default 'kgrag'
   */
  schema?: string;
  /** Answer vector searches by exact scans even where pgvector's HNSW index could answer them (approximately). */
  exactVectorSearch?: boolean;
  /**
   * Receives what the user should know but that does not stop the store: that the server has no pgvector. Once per
   * pool. By default written on stderr.
   */
  onWarning?: (message: string) => void;
  /**
   * The generation is a published one, which no writer changes again (a writer writes the next generation's row versions):
   * what a search reads of it (collection statistics, vector space descriptions) stays in memory without asking the
   * server for its revision each time. Only for reading.
   */
  published?: boolean;
  /**
   * The most bytes of BM25 postings the store keeps in memory between queries; the least recently used go first.
   * @default {@link defaultPostingsCacheBytes}
   */
  postingsCacheBytes?: number;
  /**
   * Called before each statement of a draft and before each commit: throws when the write may no longer go on (its
   * writer lock was lost with the connection that held it), so that nothing more is written without the lock.
   */
  writeGuard?: () => void;
}

/**
 * 64 MB of BM25 postings per open store. Every term of 2Wiki's fast index (6,119 passages) would take 51 MB in this
 * cache as `postingsBytes` counts it (chunks 30 MB: 35,774 terms, 242,890 row entries; entities 21 MB: 23,941
 * terms, 226,143 entries), so an index of that size is held whole, as it was before the budget; one many times
 * larger keeps its most asked terms, where the unbounded cache grew towards the postings of its whole vocabulary,
 * and of every phrase ever asked, in a long-running server.
 */
export const defaultPostingsCacheBytes = 64 * 1024 * 1024;

/** The default schema of kgrag's tables. */
export const defaultPostgresSchema = 'kgrag';

/** Migrated schemas per pool: migrations and the pgvector probe run once per pool and schema. */
const migrated = new WeakMap<pg.Pool, Map<string, Promise<PostgresSchemaState>>>();
/** Pools already warned about a missing pgvector. */
const warnedPools = new WeakSet<pg.Pool>();

/**
 * Migrates `schema` on `pool` once (concurrent openers share the one migration), and creates the plugin tables
 * `tables` in it once per set of specs.
 */
export function postgresSchemaState(pool: pg.Pool, schema: string, tables: PluginTables = {}): Promise<PostgresSchemaState> {
  let schemas = migrated.get(pool);
  if (!schemas) migrated.set(pool, (schemas = new Map()));
  const once = (key: string, make: () => Promise<PostgresSchemaState>): Promise<PostgresSchemaState> => {
    let state = schemas.get(key);
    if (!state) {
      state = make();
      schemas.set(key, state);
      // A failed attempt (server down) is not remembered: the next open tries again.
      state.catch(() => schemas.delete(key));
    }
    return state;
  };
  const migratedSchema = once(schema, () => migratePostgresSchema(pool, schema));
  if (Object.keys(tables).length === 0) return migratedSchema;
  return once(`${schema}\u0000${JSON.stringify(tables)}`, async () => {
    const state = await migratedSchema;
    await createPostgresPluginTables(pool, state, tables);
    return state;
  });
}

function validScope(scope: PostgresScope): PostgresScope {
  if (typeof scope.workspace !== 'string' || scope.workspace.length === 0) {
    throw new KgragError('a Postgres store needs a workspace name', { code: 'STORE_INVALID_SCOPE', category: 'internal', details: { scope } });
  }
  if (!Number.isInteger(scope.generation) || scope.generation < 0 || scope.generation > 2 ** 31 - 1) {
    throw new KgragError(`generation ${scope.generation} is not a whole number between 0 and 2^31 - 1`, { code: 'STORE_INVALID_SCOPE', category: 'internal', details: { scope } });
  }
  return scope;
}

/**
 * Opens the store of one workspace generation in a Postgres database, migrating kgrag's schema first when needed.
 * The pool stays the caller's: `close()` ends the store, not the pool. Tables are the ones of `store/schema.ts`, whose
 * rows are versions of every generation of every workspace (`postgres-row-versions.ts`): the store sees the versions
 * of its generation, and writes only where its generation is the workspace's newest (a draft over the published one).
 * BM25 ranks as SQLite's FTS5 does (term statistics in tables); dense vectors use pgvector's HNSW index when the
 * server has pgvector, else an exact scan (with a warning, once per pool).
 */
export async function openPostgresStore(pool: pg.Pool, scope: PostgresScope, options: PostgresStoreOptions = {}): Promise<Store> {
  const { workspace, generation } = validScope(scope);
  const pluginTables = validatePluginTables(options.tables);
  const state = await postgresSchemaState(pool, options.schema ?? defaultPostgresSchema, pluginTables);
  const warn = options.onWarning ?? ((message: string) => process.stderr.write(`kgrag: warning: ${message}\n`));
  if (state.vector === undefined && !warnedPools.has(pool)) {
    warnedPools.add(pool);
    warn(
      `the Postgres server has no pgvector (${state.vectorUnavailable}); dense vectors are kept as float32 bytes and searched by an exact scan in kgrag, which is slower than an HNSW index on large spaces. Install pgvector on the server (CREATE EXTENSION vector) to index them`,
    );
  }
  const context: StoreContext = {
    pool,
    poolRunner: sqlRunner(pool),
    state,
    scope: [workspace, generation],
    exactSearch: options.exactVectorSearch === true,
    frozen: options.published === true,
    caches: new Map(),
    fullTextCaches: new Map(),
    postingsCache: new ByteBudgetLru({ maxBytes: options.postingsCacheBytes ?? defaultPostingsCacheBytes, sizeOf: postingsBytes }),
    closed: false,
    warn,
    pluginTables,
    guard: options.writeGuard ?? (() => undefined),
  };
  return new PostgresStore(context, undefined);
}

/** What a store and its transactions share. */
interface StoreContext {
  pool: pg.Pool;
  poolRunner: SqlRunner;
  state: PostgresSchemaState;
  scope: readonly [string, number];
  exactSearch: boolean;
  frozen: boolean;
  caches: Map<VectorSpace, SpaceCache>;
  fullTextCaches: Map<string, FullTextCache>;
  postingsCache: PostingsCache;
  closed: boolean;
  warn: (message: string) => void;
  pluginTables: PluginTables;
  guard: () => void;
}

/** Runs one task after another: savepoints of one transaction level must not interleave. */
class TaskQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<R>(task: () => Promise<R>): Promise<R> {
    const result = this.tail.then(task);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** The connection of an open transaction, at one savepoint depth. */
interface Session {
  run: SqlRunner;
  depth: number;
  /** Savepoints opened from this depth, one at a time. */
  queue: TaskQueue;
  /** Work to do once the outermost transaction has committed. */
  afterCommit: Array<() => Promise<void>>;
  /** False once the transaction ended: its store must not be used any more. */
  open: { value: boolean };
}

class PostgresStore implements Store, PostgresVectorAccess {
  readonly backend = 'postgres';
  private readonly tables = new Map<TableName, TableAccess<TableName>>();
  private readonly vectorIndexes = new Map<VectorSpace, VectorIndex>();

  constructor(
    private readonly context: StoreContext,
    private readonly session: Session | undefined,
  ) {}

  get schema(): string {
    return this.context.state.schema;
  }

  get scope(): readonly [string, number] {
    return this.context.scope;
  }

  get state(): PostgresSchemaState {
    return this.context.state;
  }

  get exactSearch(): boolean {
    return this.context.exactSearch;
  }

  get frozen(): boolean {
    return this.context.frozen;
  }

  get caches(): Map<VectorSpace, SpaceCache> {
    return this.context.caches;
  }

  get fullTextCaches(): Map<string, FullTextCache> {
    return this.context.fullTextCaches;
  }

  get postingsCache(): PostingsCache {
    return this.context.postingsCache;
  }

  runner(): SqlRunner {
    if (this.context.closed) throw new Error('the Postgres store is closed');
    this.context.guard();
    if (!this.session) return this.context.poolRunner;
    if (!this.session.open.value) throw new Error('a transaction store was used after its transaction ended; use the outer store');
    return this.session.run;
  }

  pool(): SqlRunner {
    this.context.guard();
    return this.context.poolRunner;
  }

  async atomically<R>(work: (run: SqlRunner) => Promise<R>): Promise<R> {
    return this.transaction((tx) => work((tx as PostgresStore).runner()));
  }

  async snapshot<R>(read: (run: SqlRunner) => Promise<R>): Promise<R> {
    if (this.session) return read(this.runner());
    if (this.context.closed) throw new Error('the Postgres store is closed');
    this.context.guard();
    return inPostgresTransaction(this.context.pool, read, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  async afterCommit(action: () => Promise<void>): Promise<void> {
    if (this.session) this.session.afterCommit.push(action);
    else await this.afterCommitted(action);
  }

  /** Runs follow-up work of a committed write; its failure is told, not thrown: the write itself succeeded. */
  private async afterCommitted(action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (error) {
      this.context.warn(`could not build the HNSW index of a vector space (searches scan its rows meanwhile): ${(error as Error).message}`);
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    if (this.context.closed) throw new Error('the Postgres store is closed');
    this.context.guard();
    return connectClient(this.context.pool);
  }

  table<T extends TableName>(name: T): TableAccess<T> {
    return memoized(this.tables, name, () => new PostgresTable(this, specOfTable(name, this.context.pluginTables)) as unknown as TableAccess<TableName>) as unknown as TableAccess<T>;
  }

  vectors(space: VectorSpace): VectorIndex {
    return memoized(this.vectorIndexes, space, () => {
      assertVectorSpaceName(space);
      return new PostgresVectorIndex(this, space);
    });
  }

  async searchText(table: TextSearchTable, terms: readonly string[], k: number): Promise<ScoredId[]> {
    const index = { spec: tableSpec(table), schema: this.schema, scope: this.scope, caches: this.fullTextCaches, postings: this.postingsCache, frozen: this.frozen };
    return searchFullText(this.runner(), index, terms, k);
  }

  async getMeta<V>(key: string): Promise<V | undefined> {
    const [row] = await this.runner().rows<{ value: string | null }>(`SELECT value FROM ${this.schema}.meta WHERE workspace = $1 AND ${visibleAt()} AND key = $3`, [
      ...this.scope,
      key,
    ]);
    return row?.value == null ? undefined : (JSON.parse(row.value) as V);
  }

  async setMeta(key: string, value: unknown): Promise<void> {
    await this.runner().rows(
      this.metaWrite('value'),
      [...this.scope, key, JSON.stringify(value)],
    );
  }

  /**
   * Writes one of a meta key's two columns (`$4`): a new version of the key's row that keeps the other column's value,
   * retiring an older version, or in place of the version the generation wrote.
   */
  private metaWrite(column: 'value' | 'blob'): string {
    const other = column === 'value' ? 'blob' : 'value';
    return (
      `WITH retired AS (${retireOlder(`${this.schema}.meta`, 'key = $3')}) ` +
      `INSERT INTO ${this.schema}.meta (workspace, generation, key, ${column}, ${other}) ` +
      `SELECT $1, $2, $3, $4::${column === 'value' ? 'text' : 'bytea'}, (SELECT ${other} FROM ${this.schema}.meta WHERE workspace = $1 AND ${visibleAt()} AND key = $3) ` +
      `ON CONFLICT (workspace, key, generation) DO UPDATE SET ${column} = excluded.${column}`
    );
  }

  async getBlob(key: string): Promise<Uint8Array | undefined> {
    const [row] = await this.runner().rows<{ blob: Buffer | null }>(`SELECT blob FROM ${this.schema}.meta WHERE workspace = $1 AND ${visibleAt()} AND key = $3`, [
      ...this.scope,
      key,
    ]);
    return row?.blob == null ? undefined : new Uint8Array(row.blob.buffer, row.blob.byteOffset, row.blob.byteLength);
  }

  async setBlob(key: string, value: Uint8Array): Promise<void> {
    await this.runner().rows(
      this.metaWrite('blob'),
      [...this.scope, key, Buffer.from(value.buffer, value.byteOffset, value.byteLength)],
    );
  }

  async blobKeys(): Promise<string[]> {
    const rows = await this.runner().rows<{ key: string }>(
      `SELECT key FROM ${this.schema}.meta WHERE workspace = $1 AND ${visibleAt()} AND blob IS NOT NULL ORDER BY key COLLATE "C"`,
      [...this.scope],
    );
    return rows.map((row) => row.key);
  }

  async metaKeys(): Promise<string[]> {
    const rows = await this.runner().rows<{ key: string }>(
      `SELECT key FROM ${this.schema}.meta WHERE workspace = $1 AND ${visibleAt()} AND value IS NOT NULL ORDER BY key COLLATE "C"`,
      [...this.scope],
    );
    return rows.map((row) => row.key);
  }

  /**
   * Runs `fn` on one connection between BEGIN and COMMIT (a savepoint when nested; savepoints of one level one at a
   * time). Work that must follow the commit (building an HNSW index, which locks the shared table) runs after it.
   */
  async transaction<R>(fn: (tx: Store) => Promise<R>): Promise<R> {
    if (this.session) {
      const session = this.session;
      return session.queue.run(async () => {
        const run = this.runner();
        const savepoint = `kgrag_sp${session.depth}`;
        await run.rows(`SAVEPOINT ${savepoint}`);
        const inner: Session = { ...session, depth: session.depth + 1, queue: new TaskQueue(), open: { value: true } };
        try {
          const result = await fn(new PostgresStore(this.context, inner));
          await run.rows(`RELEASE SAVEPOINT ${savepoint}`);
          return result;
        } catch (error) {
          await run.rows(`ROLLBACK TO SAVEPOINT ${savepoint}`);
          await run.rows(`RELEASE SAVEPOINT ${savepoint}`);
          throw error;
        } finally {
          inner.open.value = false;
        }
      });
    }
    const client = await this.connect();
    const session: Session = { run: sqlRunner(client), depth: 1, queue: new TaskQueue(), afterCommit: [], open: { value: true } };
    let broken = false;
    let result: R;
    try {
      await session.run.rows('BEGIN');
      result = await fn(new PostgresStore(this.context, session));
      this.context.guard();
      await session.run.rows('COMMIT');
    } catch (error) {
      broken = await client.query('ROLLBACK').then(
        () => false,
        () => true,
      );
      throw error;
    } finally {
      session.open.value = false;
      client.release(broken || undefined);
    }
    for (const action of session.afterCommit) await this.afterCommitted(action);
    return result;
  }

  async close(): Promise<void> {
    if (!this.session) this.context.closed = true;
  }
}
