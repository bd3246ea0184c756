import type pg from 'pg';
import { postgresGenerationTables } from './postgres-migrations.js';
import { validatePluginTables, type StoreExtensions } from '../store-extensions.js';
import { inPostgresTransaction, quoteIdentifier, sqlRunner } from './postgres-sql.js';
import { defaultPostgresSchema, postgresSchemaState } from './postgres-store.js';
import { dropUnusedHnswIndexes } from './postgres-hnsw-index.js';

/*
 * Generations are row versions (`postgres-row-versions.ts`): a draft writes only the rows it changes, and these are
 * the two ways a draft ends besides its publish: thrown away, or, once published, made the only version left.
 */

/** Options of {@link discardPostgresDraft} and {@link collectRetiredRows}. */
export interface PostgresGenerationOptions extends StoreExtensions {
  /** The schema of kgrag's tables. @default 'kgrag' */
  schema?: string;
}

/**
 * Undoes every write of the generations after `base` (a draft, or what a crashed writer left): the rows they wrote
 * go, and the rows they retired live again, in one transaction. Generation `base` is then as it was published.
 */
export async function discardPostgresDraft(pool: pg.Pool, workspace: string, base: number, options: PostgresGenerationOptions = {}): Promise<void> {
  const state = await postgresSchemaState(pool, options.schema ?? defaultPostgresSchema, validatePluginTables(options.tables));
  await inPostgresTransaction(pool, async (run) => {
    for (const table of postgresGenerationTables(options.tables)) {
      const qualified = `${state.schema}.${quoteIdentifier(table)}`;
      await run.rows(`DELETE FROM ${qualified} WHERE workspace = $1 AND generation > $2`, [workspace, base]);
      await run.rows(`UPDATE ${qualified} SET retired = NULL WHERE workspace = $1 AND retired > $2`, [workspace, base]);
    }
  });
}

/**
 * Deletes the row versions that `published` (the generation just published) no longer sees: rows its draft replaced
 * or deleted, so that deleting means gone from the tables once the publish is over (the space they took is the
 * server's to reclaim: autovacuum, or an operator's VACUUM). Also drops the HNSW indexes no published space needs.
 */
export async function collectRetiredRows(pool: pg.Pool, workspace: string, published: number, options: PostgresGenerationOptions = {}): Promise<void> {
  const state = await postgresSchemaState(pool, options.schema ?? defaultPostgresSchema, validatePluginTables(options.tables));
  await inPostgresTransaction(pool, async (run) => {
    for (const table of postgresGenerationTables(options.tables)) {
      await run.rows(`DELETE FROM ${state.schema}.${quoteIdentifier(table)} WHERE workspace = $1 AND retired <= $2`, [workspace, published]);
    }
  });
  await dropUnusedHnswIndexes(sqlRunner(pool), state.schema, workspace, published);
}
