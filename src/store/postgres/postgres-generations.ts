import type pg from 'pg';
import { postgresGenerationTables } from './postgres-migrations.js';
import { validatePluginTables, type StoreExtensions } from '../store-extensions.js';
import { inPostgresTransaction, quoteIdentifier, sqlRunner } from './postgres-sql.js';
import { defaultPostgresSchema, postgresSchemaState } from './postgres-store.js';
import { ensureHnswIndex } from './postgres-vector-index.js';

/** Options of {@link copyPostgresGeneration} and {@link dropPostgresGeneration}. */
export interface PostgresGenerationOptions extends StoreExtensions {
  /** The schema of kgrag's tables. @default 'kgrag' */
  schema?: string;
}

/**
 * Makes generation `to` of a workspace an exact copy of generation `from`: every table row, full-text statistic,
 * vector, meta value and blob, one `INSERT … SELECT` per table in one transaction, replacing whatever `to` held
 * (a draft left by a crashed writer). Rows keep their `hid` and `vid`, so insertion order and vector revisions
 * carry over; the copy's HNSW indexes are built after the commit.
 */
export async function copyPostgresGeneration(pool: pg.Pool, workspace: string, from: number, to: number, options: PostgresGenerationOptions = {}): Promise<void> {
  if (from === to) return;
  const state = await postgresSchemaState(pool, options.schema ?? defaultPostgresSchema, validatePluginTables(options.tables));
  const indexed = await inPostgresTransaction(pool, async (run) => {
    for (const table of postgresGenerationTables(options.tables)) {
      const qualified = `${state.schema}.${quoteIdentifier(table)}`;
      await run.rows(`DELETE FROM ${qualified} WHERE workspace = $1 AND generation = $2`, [workspace, to]);
      const columns = (
        await run.rows<{ name: string }>(
          `SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attname NOT IN ('workspace', 'generation') ORDER BY attnum`,
          [qualified],
        )
      ).map((row) => quoteIdentifier(row.name));
      await run.rows(
        `INSERT INTO ${qualified} (workspace, generation, ${columns.join(', ')}) SELECT workspace, $3, ${columns.join(', ')} FROM ${qualified} WHERE workspace = $1 AND generation = $2`,
        [workspace, from, to],
      );
    }
    return run.rows<{ space: string; dimensions: number }>(
      `SELECT space, dimensions FROM ${state.schema}.vector_spaces WHERE workspace = $1 AND generation = $2 AND indexed AND embedder_id IS NOT NULL`,
      [workspace, to],
    );
  });
  const run = sqlRunner(pool);
  for (const { space, dimensions } of indexed) await ensureHnswIndex(run, state, workspace, to, space, dimensions);
}

/** Deletes every row of one generation of a workspace, and its HNSW indexes. */
export async function dropPostgresGeneration(pool: pg.Pool, workspace: string, generation: number, options: PostgresGenerationOptions = {}): Promise<void> {
  const state = await postgresSchemaState(pool, options.schema ?? defaultPostgresSchema, validatePluginTables(options.tables));
  const indexes = await inPostgresTransaction(pool, async (run) => {
    for (const table of postgresGenerationTables(options.tables)) {
      await run.rows(`DELETE FROM ${state.schema}.${quoteIdentifier(table)} WHERE workspace = $1 AND generation = $2`, [workspace, generation]);
    }
    return run.rows<{ name: string }>(`DELETE FROM ${state.schema}.vector_indexes WHERE workspace = $1 AND generation = $2 RETURNING name`, [workspace, generation]);
  });
  // Dropped after the commit, each on its own: DROP INDEX locks the shared rows table until its transaction ends.
  const run = sqlRunner(pool);
  for (const { name } of indexes) await run.rows(`DROP INDEX IF EXISTS ${state.schema}.${quoteIdentifier(name)}`);
}
