import { isAbsolute, join } from 'node:path';
import type pg from 'pg';
import type { KgragConfig } from '../core/config/config-schema.js';
import { redactUrl } from '../core/redact-url.js';
import { openSqliteWorkspaceStorage } from '../store/sqlite/sqlite-workspace-storage.js';
import type { StoreExtensions } from '../store/store-extensions.js';
import type { WorkspaceStorage } from '../store/workspace-storage.js';
import { postgresWorkspaceName } from './postgres-workspace-name.js';

/**
 * Opens the storage of a workspace for a `store.backend`: its published index, drafts and writer lock, with the tables
 * the workspace's method plugins declare beside the built-in ones.
 */
export type WorkspaceStorageOpener = (config: KgragConfig, workspace: string, extensions: StoreExtensions) => Promise<WorkspaceStorage>;

/** A pool of connections to a database, and how its user lets go of it. */
interface PoolLease {
  pool: pg.Pool;
  release(): Promise<void>;
}

/** Where a workspace's Postgres storage gets its pool: one of its own, or one shared by every workspace on the database. */
type PoolSource = (store: KgragConfig['store'], workspaceName: string) => Promise<PoolLease>;

async function newPool(store: KgragConfig['store'], applicationName: string): Promise<pg.Pool> {
  const { default: pgModule } = await import('pg');
  // TCP keepalive: a writer's lock connection that dies without a word (a network cut) is noticed, and the lock with it;
  // a server that does not answer a connection (a host gone from the network) fails it after 10 s instead of never.
  // The application name tells kgrag's connections apart in pg_stat_activity.
  const pool = new pgModule.Pool({ connectionString: store.url, max: store.poolSize, keepAlive: true, connectionTimeoutMillis: 10_000, application_name: applicationName.slice(0, 63) });
  // An idle connection the server drops must not crash the process; the next statement reports the failure.
  pool.on('error', () => undefined);
  return pool;
}

const ownPool: PoolSource = async (store, workspaceName) => {
  const pool = await newPool(store, `kgrag ${workspaceName}`);
  return { pool, release: () => pool.end() };
};

/**
 * One pool per database URL for every workspace that opens through it, ended when the last lets go: `store.poolSize` is
 * then the connections of the whole process to that database (the first workspace's setting sizes the pool).
 */
function sharedPools(): PoolSource {
  const pools = new Map<string, { pool: Promise<pg.Pool>; users: number }>();
  return async (store) => {
    const key = store.url ?? '';
    let entry = pools.get(key);
    if (!entry) {
      entry = { pool: newPool(store, 'kgrag'), users: 0 };
      pools.set(key, entry);
    }
    entry.users++;
    const shared = entry;
    const pool = await shared.pool;
    return {
      pool,
      async release() {
        shared.users--;
        if (shared.users > 0) return;
        pools.delete(key);
        await pool.end();
      },
    };
  };
}

/**
 * The Postgres storage: the workspace's rows in a database shared by many workspaces and processes. The driver loads
 * only when it is used, so a SQLite user's commands do not pay for it.
 */
function postgresOpener(pools: PoolSource): WorkspaceStorageOpener {
  return async (config, workspace, extensions) => {
    const { store } = config;
    const { openPostgresWorkspaceStorage } = await import('../store/postgres/postgres-workspace-storage.js');
    const name = postgresWorkspaceName(config, workspace);
    const { pool, release } = await pools(store, name);
    const storage = openPostgresWorkspaceStorage(pool, name, {
      schema: store.schema,
      exactVectorSearch: store.exactVectorSearch,
      postingsCacheBytes: store.postingsCacheMb * 1024 * 1024,
      location: redactUrl(store.url ?? ''),
      ...(extensions.tables === undefined ? {} : { tables: extensions.tables }),
    });
    return {
      ...storage,
      connections: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      async close() {
        try {
          await storage.close();
        } finally {
          await release();
        }
      },
    };
  };
}

const openSqlite: WorkspaceStorageOpener = async (config, workspace, extensions) =>
  openSqliteWorkspaceStorage(isAbsolute(config.store.path) ? config.store.path : join(workspace, config.store.path), extensions);

/**
 * The storage backends kgrag ships, by `store.backend`: the default of `createKgrag({ stores })`, which may add
 * others (a backend that passes `describeStoreContract`) or replace these.
 */
export const builtInStores: Readonly<Record<string, WorkspaceStorageOpener>> = {
  sqlite: openSqlite,
  postgres: postgresOpener(ownPool),
};

/**
 * The built-in backends with one Postgres pool per database for every workspace opened through them (`kgrag serve
 * --workspaces`: many tenants, one database): `store.poolSize` caps the process's connections to it, not each tenant's.
 */
export function builtInStoresSharingPools(): Readonly<Record<string, WorkspaceStorageOpener>> {
  return { sqlite: openSqlite, postgres: postgresOpener(sharedPools()) };
}
