import type pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { KgragError } from '../../core/errors.js';
import { currentProcessIdentity } from '../../core/process-identity.js';
import type { CachedChat } from '../../providers/llm/llm-response-cache.js';
import { describeHolder } from '../describe-holder.js';
import { createGenerationHolder } from '../generation-holder.js';
import type { BeginWriteOptions, IndexSnapshot, WorkspaceStatus, WorkspaceStorage, WriteSession, WriterHolder } from '../workspace-storage.js';
import { draftWriteSession, failedWriteSetup } from '../draft-write-session.js';
import { layeredQueryCache } from '../layered-query-cache.js';
import { readWriteRecord, startedWriteRecord, unpublishedRunOf, type WriteRecord } from '../write-record.js';
import { collectRetiredRows, discardPostgresDraft } from './postgres-generations.js';
import { openPostgresJobStore } from './postgres-job-store.js';
import { connectClient, sqlRunner, type SqlRunner } from './postgres-sql.js';
import { defaultPostgresSchema, openPostgresStore, postgresSchemaState, type PostgresStoreOptions } from './postgres-store.js';

/** How often a waiting writer tries the lock again. */
const lockPollMs = 250;

/** Options of {@link openPostgresWorkspaceStorage}. */
export interface PostgresWorkspaceStorageOptions extends Pick<PostgresStoreOptions, 'schema' | 'exactVectorSearch' | 'onWarning' | 'postingsCacheBytes' | 'tables'> {
  now?: () => Date;
  /** Where the database is, for messages (the URL without its password). */
  location?: string;
}

/** A writer's lock: the connection that holds it, and the check that it still does. */
interface HeldLock {
  client: pg.PoolClient;
  /** Throws once the connection dropped (see `lock`). */
  guard: () => void;
  onLost: (error: Error) => void;
}

/** A workspace's row in `workspaces`. */
interface WorkspaceRow {
  published_generation: number | null;
  published_at: string | null;
  draft_generation: number | null;
  draft_base: number | null;
  writer: WriterHolder | null;
  /** The last write's `WriteRecord` (a row of an older kgrag: only how a run ended). */
  unpublished: WriteRecord | null;
}

/**
 * A workspace in a Postgres database, shared by every process that opens it: each index version is a generation
 * (rows keyed by workspace and generation), `workspaces` says which one is published, and a query reads the
 * published one. A writer holds a session advisory lock on one connection for as long as it writes — the server
 * releases it when that connection ends, so a killed writer never leaves a stale lock — writes the next generation
 * as row versions over the published one (the rows it changes: `postgres-row-versions.ts`), and publishes by
 * switching the pointer in one transaction; the versions the new generation replaced are then deleted. A write that
 * stops before publishing leaves its draft generation, which the next writer resumes. Queries check the pointer at each snapshot, so several servers on one database
 * see a new index as soon as it is published.
 */
export function openPostgresWorkspaceStorage(pool: pg.Pool, workspace: string, options: PostgresWorkspaceStorageOptions = {}): WorkspaceStorage {
  const now = options.now ?? (() => new Date());
  const schemaName = options.schema ?? defaultPostgresSchema;
  const storeOptions: PostgresStoreOptions = {
    schema: schemaName,
    ...(options.exactVectorSearch === undefined ? {} : { exactVectorSearch: options.exactVectorSearch }),
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    ...(options.postingsCacheBytes === undefined ? {} : { postingsCacheBytes: options.postingsCacheBytes }),
    ...(options.tables === undefined ? {} : { tables: options.tables }),
  };
  const generationOptions = { schema: schemaName, ...(options.tables === undefined ? {} : { tables: options.tables }) };
  const location = `${options.location ?? 'postgres'} (workspace "${workspace}")`;
  const pooled = sqlRunner(pool);
  const generations = createGenerationHolder<number>();

  const schema = async (): Promise<string> => (await postgresSchemaState(pool, schemaName)).schema;

  const readRow = async (run: SqlRunner = pooled): Promise<WorkspaceRow | undefined> => {
    const [row] = await run.rows<WorkspaceRow>(
      `SELECT published_generation, published_at, draft_generation, draft_base, writer, unpublished FROM ${await schema()}.workspaces WHERE workspace = $1`,
      [workspace],
    );
    return row;
  };

  const updateRow = async (run: SqlRunner, values: Partial<WorkspaceRow>): Promise<void> => {
    const columns = Object.keys(values) as Array<keyof WorkspaceRow>;
    const json = new Set<keyof WorkspaceRow>(['writer', 'unpublished']);
    const parameters = columns.map((column) => (json.has(column) && values[column] != null ? JSON.stringify(values[column]) : values[column]));
    await run.rows(
      `INSERT INTO ${await schema()}.workspaces (workspace, ${columns.join(', ')}) VALUES ($1, ${columns.map((_, index) => `$${index + 2}`).join(', ')})
       ON CONFLICT (workspace) DO UPDATE SET ${columns.map((column) => `${column} = excluded.${column}`).join(', ')}`,
      [workspace, ...parameters],
    );
  };

  /**
   * The row as one read shared by the callers that ask while it is on its way: a query asks for the status and the
   * snapshot at once, and both need only the pointer.
   */
  let rowInFlight: Promise<WorkspaceRow | undefined> | undefined;
  const readPublished = (): Promise<WorkspaceRow | undefined> => {
    rowInFlight ??= readRow().finally(() => {
      rowInFlight = undefined;
    });
    return rowInFlight;
  };

  /**
   * Refreshes the planner's statistics of kgrag's tables. Without them, right after an index is written, Postgres
   * plans a lookup by id as a scan of the whole generation (no statistics yet: 4–5 ms instead of 0.1 ms on 6,000
   * chunks); autovacuum would analyze them only later. A role not allowed to analyze leaves the planner as it is.
   */
  const analyze = async (): Promise<void> => {
    try {
      const tables = await pooled.rows<{ name: string }>(`SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = $1`, [schemaName]);
      if (tables.length > 0) await pooled.rows(`ANALYZE ${tables.map((table) => table.name).join(', ')}`);
    } catch {
      // Statistics are an optimisation: a failure costs query speed until autovacuum runs, nothing else.
    }
  };

  const snapshot = async (): Promise<IndexSnapshot | undefined> => {
    const row = await readPublished();
    const published = row?.published_generation ?? null;
    if (published === null) return undefined;
    return generations.hold(published, async () => ({
      store: await openPostgresStore(pool, { workspace, generation: published }, { ...storeOptions, published: true }),
      generation: published,
      publishedAt: row?.published_at ?? null,
    }));
  };

  const busyError = (holder: WriterHolder | undefined): KgragError =>
    new KgragError(`the workspace is being written by another process: ${holder ? describeHolder(holder) : 'a process on another connection'}`, {
      code: 'STORE_WRITER_BUSY',
      category: 'input',
      hint: 'wait for it to finish (kgrag index waits by default; --no-wait fails at once), or stop that process — an interrupted run is resumed by the next one',
      details: { holder, workspace },
    });

  /**
   * The advisory lock of this workspace's writer, on a connection of its own that holds it until released. The lock
   * lives as long as that connection: once it drops (the server restarted, the network cut), another writer may take
   * the lock, so `guard` refuses every later statement of this write, and the publish runs on the lock's connection,
   * which proves the lock is still held.
   */
  const lock = async (writeOptions: BeginWriteOptions): Promise<HeldLock> => {
    await schema();
    const client = await connectClient(pool);
    const run = sqlRunner(client);
    let lost: Error | undefined;
    const onLost = (error: Error): void => {
      lost ??= error;
    };
    client.on('error', onLost);
    const guard = (): void => {
      if (lost === undefined) return;
      throw new KgragError(`the connection that held the writer lock of ${location} was lost (${lost.message}); this run stopped writing, as another writer may hold the lock now`, {
        code: 'STORE_WRITER_LOCK_LOST',
        category: 'store',
        hint: 'run the same command again once the database is reachable: it resumes this run\'s draft',
        details: { retryAfterSeconds: 5 },
        cause: lost,
      });
    };
    let announced = false;
    try {
      for (;;) {
        writeOptions.signal?.throwIfAborted();
        const [taken] = await run.rows<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [`kgrag:writer:${schemaName}:${workspace}`]);
        if (taken?.locked) return { client, guard, onLost };
        const holder = (await readRow(run))?.writer ?? undefined;
        if (writeOptions.wait === false) throw busyError(holder);
        if (!announced && holder) {
          announced = true;
          writeOptions.onWait?.(holder);
        }
        await sleep(lockPollMs, undefined, writeOptions.signal === undefined ? {} : { signal: writeOptions.signal });
      }
    } catch (error) {
      client.off('error', onLost);
      client.release();
      throw error;
    }
  };

  const unlock = async ({ client, onLost }: HeldLock): Promise<void> => {
    client.off('error', onLost);
    try {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`kgrag:writer:${schemaName}:${workspace}`]);
      client.release();
    } catch {
      // A broken connection has lost the lock with it; it must not go back to the pool.
      client.release(true);
    }
  };

  const beginWrite = async (writeOptions: BeginWriteOptions): Promise<WriteSession> => {
    const held = await lock(writeOptions);
    /** The record this write keeps, once it has written it. */
    let started: WriteRecord | undefined;
    try {
      const holder: WriterHolder = { ...currentProcessIdentity(), command: writeOptions.command, startedAt: now().toISOString() };
      const row = await readRow();
      const base = row?.published_generation ?? -1;
      const generation = base + 1;
      const resumed = row?.draft_generation === generation && row.draft_base === base;
      // Recorded before the draft is touched: a writer killed from here on leaves a record readers report.
      const record = startedWriteRecord(holder, generation, resumed ? (readWriteRecord(row?.unpublished)?.deleting ?? []) : [], writeOptions.deleting);
      await updateRow(pooled, { writer: holder, unpublished: (started = record) });
      if (!resumed) {
        // What a lost draft wrote goes (a draft is recorded before it writes its first row), and the draft starts
        // as the published generation: it sees the published rows, and writes only what it changes.
        if (row?.draft_generation != null) await discardPostgresDraft(pool, workspace, base, generationOptions);
        // And what a writer that published but stopped before deleting the versions it replaced left (none, usually).
        if (base >= 0) await collectRetiredRows(pool, workspace, base, generationOptions);
        await updateRow(pooled, { draft_generation: generation, draft_base: base });
      }
      const store = await openPostgresStore(pool, { workspace, generation }, { ...storeOptions, writeGuard: held.guard });
      const earlier = readWriteRecord(row?.unpublished);
      return draftWriteSession(store, { generation, resumed, record, now, resumedFrom: earlier?.generation === generation ? earlier : undefined }, {
        async publish(draft) {
          await draft.close();
          await analyze();
          held.guard();
          await updateRow(sqlRunner(held.client), { published_generation: generation, published_at: now().toISOString(), draft_generation: null, draft_base: null, unpublished: null });
        },
        async published() {
          // Deleting means gone: the rows the new index replaced or deleted go at once (a query still reading the old
          // generation elsewhere finds them gone).
          await collectRetiredRows(pool, workspace, generation, generationOptions);
        },
        async discard() {
          await discardPostgresDraft(pool, workspace, base, generationOptions);
          await updateRow(pooled, { draft_generation: null, draft_base: null, unpublished: null });
        },
        async saveRecord(current) {
          await updateRow(pooled, { unpublished: current });
        },
        async recordEnd(ended) {
          await updateRow(pooled, { writer: null, ...(ended ? { unpublished: ended } : {}) });
        },
        release: () => unlock(held),
      });
    } catch (error) {
      return failedWriteSetup(error, { started, now, recordEnd: (ended) => updateRow(pooled, { writer: null, unpublished: ended }), release: () => unlock(held) });
    }
  };

  const queryCache = layeredQueryCache(
    {
      async get(key) {
        const [row] = await pooled.rows<{ value: CachedChat }>(`SELECT value FROM ${await schema()}.query_cache WHERE workspace = $1 AND key = $2`, [workspace, key]);
        return row?.value;
      },
      async set(key, value, createdAt) {
        await pooled.rows(
          `INSERT INTO ${await schema()}.query_cache (workspace, key, value, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (workspace, key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`,
          [workspace, key, JSON.stringify(value), createdAt],
        );
      },
    },
    now,
  );

  const clearQueryCache = async (): Promise<number> => {
    const inMemory = queryCache.clearMemory();
    const deleted = await pooled.rows<{ key: string }>(`DELETE FROM ${await schema()}.query_cache WHERE workspace = $1 RETURNING key`, [workspace]);
    return Math.max(inMemory, deleted.length);
  };

  /** The writer recorded for the workspace, if its lock is really held (a killed writer's record is stale). */
  const liveWriter = async (row: WorkspaceRow | undefined): Promise<WriterHolder | undefined> => {
    if (!row?.writer) return undefined;
    const [held] = await pooled.rows<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND objid = (hashtextextended($1, 0) & 4294967295)::oid AND classid = (hashtextextended($1, 0) >> 32 & 4294967295)::oid) AS held`,
      [`kgrag:writer:${schemaName}:${workspace}`],
    );
    return held?.held ? row.writer : undefined;
  };

  return {
    location,
    snapshot,
    beginWrite,
    queryCache,
    clearQueryCache,
    async status(): Promise<WorkspaceStatus> {
      const row = await readPublished();
      const writer = await liveWriter(row);
      const published = row?.published_generation ?? undefined;
      // The lock is what tells a running writer from a gone one: the server released it when the writer's connection ended.
      let unpublished = unpublishedRunOf(readWriteRecord(row?.unpublished), published, () => writer !== undefined);
      if (unpublished?.processGone) {
        // A writer that ended its write after the row was read has replaced its record by now.
        const fresh = await readRow();
        const freshWriter = await liveWriter(fresh);
        unpublished = unpublishedRunOf(readWriteRecord(fresh?.unpublished), fresh?.published_generation ?? undefined, () => freshWriter !== undefined);
      }
      return { generation: published, publishedAt: row?.published_at ?? null, writer, unpublished };
    },
    openDraft: (generation) => openPostgresStore(pool, { workspace, generation }, storeOptions),
    jobs: openPostgresJobStore(pool, pooled, schema, workspace),
    async close() {
      generations.retire();
    },
  };
}
