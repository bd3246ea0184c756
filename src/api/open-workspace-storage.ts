import { basename, isAbsolute, join, resolve } from 'node:path';
import type { KgragConfig } from '../core/config/config-schema.js';
import { redactUrl } from '../core/redact-url.js';
import { openSqliteWorkspaceStorage } from '../store/sqlite/sqlite-workspace-storage.js';
import type { WorkspaceStorage } from '../store/workspace-storage.js';

/** The name of a workspace in a Postgres database: `store.workspace`, else the workspace folder's name. */
export function postgresWorkspaceName(config: KgragConfig, workspace: string): string {
  return config.store.workspace ?? basename(resolve(workspace));
}

/**
 * The storage the configuration names: the workspace's SQLite file, or its rows in a Postgres database. The
 * Postgres driver loads only when it is used, so a SQLite user's commands do not pay for it.
 */
export async function openWorkspaceStorage(config: KgragConfig, workspace: string): Promise<WorkspaceStorage> {
  const { store } = config;
  if (store.backend !== 'postgres') return openSqliteWorkspaceStorage(isAbsolute(store.path) ? store.path : join(workspace, store.path));
  const [{ default: pg }, { openPostgresWorkspaceStorage }] = await Promise.all([import('pg'), import('../store/postgres/postgres-workspace-storage.js')]);
  const pool = new pg.Pool({ connectionString: store.url, max: store.poolSize });
  // An idle connection the server drops must not crash the process; the next statement reports the failure.
  pool.on('error', () => undefined);
  const storage = openPostgresWorkspaceStorage(pool, postgresWorkspaceName(config, workspace), {
    schema: store.schema,
    exactVectorSearch: store.exactVectorSearch,
    postingsCacheBytes: store.postingsCacheMb * 1024 * 1024,
    location: redactUrl(store.url ?? ''),
  });
  return {
    ...storage,
    async close() {
      try {
        await storage.close();
      } finally {
        await pool.end();
      }
    },
  };
}
