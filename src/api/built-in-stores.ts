import { isAbsolute, join } from 'node:path';
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

/**
 * The Postgres storage: the workspace's rows in a database shared by many workspaces and processes. The driver loads
 * only when it is used, so a SQLite user's commands do not pay for it.
 */
const openPostgres: WorkspaceStorageOpener = async (config, workspace, extensions) => {
  const { store } = config;
  const [{ default: pg }, { openPostgresWorkspaceStorage }] = await Promise.all([import('pg'), import('../store/postgres/postgres-workspace-storage.js')]);
  // TCP keepalive: a writer's lock connection that dies without a word (a network cut) is noticed, and the lock with it;
  // a server that does not answer a connection (a host gone from the network) fails it after 10 s instead of never.
  // The application name tells kgrag's connections apart in pg_stat_activity.
  const name = postgresWorkspaceName(config, workspace);
  const pool = new pg.Pool({ connectionString: store.url, max: store.poolSize, keepAlive: true, connectionTimeoutMillis: 10_000, application_name: `kgrag ${name}`.slice(0, 63) });
  // An idle connection the server drops must not crash the process; the next statement reports the failure.
  pool.on('error', () => undefined);
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
        await pool.end();
      }
    },
  };
};

/**
 * The storage backends kgrag ships, by `store.backend`: the default of `createKgrag({ stores })`, which may add
 * others (a backend that passes `describeStoreContract`) or replace these.
 */
export const builtInStores: Readonly<Record<string, WorkspaceStorageOpener>> = {
  sqlite: async (config, workspace, extensions) => openSqliteWorkspaceStorage(isAbsolute(config.store.path) ? config.store.path : join(workspace, config.store.path), extensions),
  postgres: openPostgres,
};
