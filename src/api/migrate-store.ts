import { isAbsolute, join } from 'node:path';
import { loadConfig } from '../core/config/load-config.js';
import { KgragError } from '../core/errors.js';
import { redactUrl } from '../core/redact-url.js';
import type { KgragOptions } from './create-kgrag.js';

/** What {@link migrateStore} found and did. */
export interface StoreMigration {
  backend: 'sqlite' | 'postgres';
  /** The database and schema (Postgres, without the password), or the index file (SQLite). */
  location: string;
  /** The schema version found before, or null when there was none (a new database or file). */
  from: number | null;
  /** The version this kgrag needs. */
  to: number;
  /** Whether this call changed the schema (never with `check`). */
  migrated: boolean;
}

/**
 * Brings the workspace's store to the schema this kgrag needs, as an explicit step (`kgrag migrate`): on Postgres, run
 * it as the schema's owner, so that the roles kgrag runs with every day need no CREATE privilege (a current schema is
 * only read). With `check` nothing changes: a store that is behind is `STORE_MIGRATION_NEEDED`.
 */
export async function migrateStore(options: Pick<KgragOptions, 'workspace' | 'configFile' | 'env' | 'config'>, check: boolean): Promise<StoreMigration> {
  const { config } = await loadConfig({
    workspace: options.workspace ?? process.cwd(),
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.config === undefined ? {} : { overrides: options.config }),
  });
  const behind = (location: string, from: number | null, to: number): KgragError =>
    new KgragError(`the store at ${location} is at schema ${from ?? 'none (not created yet)'}; this kgrag needs ${to}`, {
      code: 'STORE_MIGRATION_NEEDED',
      category: 'store',
      hint: 'run `kgrag migrate` (on Postgres as the schema\'s owner)',
      details: { from, to },
    });
  if (config.store.backend === 'postgres') {
    const [{ default: pg }, migrations, { sqlRunner }] = await Promise.all([
      import('pg'),
      import('../store/postgres/postgres-migrations.js'),
      import('../store/postgres/postgres-sql.js'),
    ]);
    const location = `${redactUrl(config.store.url ?? '')} (schema "${config.store.schema}")`;
    const pool = new pg.Pool({ connectionString: config.store.url, max: 1, connectionTimeoutMillis: 10_000, application_name: 'kgrag migrate' });
    pool.on('error', () => undefined);
    try {
      const from = (await migrations.schemaVersion(sqlRunner(pool), config.store.schema)) ?? null;
      const to = migrations.postgresSchemaVersion;
      if (check) {
        if (from !== to) throw behind(location, from, to);
        return { backend: 'postgres', location, from, to, migrated: false };
      }
      await migrations.migratePostgresSchema(pool, config.store.schema, { always: true });
      return { backend: 'postgres', location, from, to, migrated: from !== to };
    } finally {
      await pool.end();
    }
  }
  const [{ sqliteFileNeedsUpgrade, sqliteFileVersion }, { openSqliteWorkspaceStorage }, { storeSchemaVersion }] = await Promise.all([
    import('../store/sqlite/sqlite-store.js'),
    import('../store/sqlite/sqlite-workspace-storage.js'),
    import('../store/migrations.js'),
  ]);
  const path = isAbsolute(config.store.path) ? config.store.path : join(options.workspace ?? process.cwd(), config.store.path);
  const from = sqliteFileVersion(path);
  if (check) {
    if (from !== null && sqliteFileNeedsUpgrade(path)) throw behind(path, from, storeSchemaVersion);
    return { backend: 'sqlite', location: path, from, to: storeSchemaVersion, migrated: false };
  }
  const needed = from !== null && sqliteFileNeedsUpgrade(path);
  // Opening the published index upgrades it in place, under the writer lock.
  const storage = openSqliteWorkspaceStorage(path, {});
  try {
    (await storage.snapshot())?.release();
  } finally {
    await storage.close();
  }
  return { backend: 'sqlite', location: path, from, to: storeSchemaVersion, migrated: needed };
}
