import type pg from 'pg';
import { KgragError } from '../../core/errors.js';
import { snakeCase, tableNames, tableSpec, type AnyTableSpec, type ColumnSpec } from '../schema.js';
import { inPostgresTransaction, quoteIdentifier, sqlRunner, type SqlRunner } from './postgres-sql.js';
import type { PluginTables } from '../store-extensions.js';
import { pendingMigrationSteps, storeSchemaVersion, type MigrationStep } from '../migrations.js';
import { ensureHnswIndex } from './postgres-hnsw-index.js';
import { jobTableStatements } from './postgres-job-store.js';

/**
 * The schema version this kgrag writes: the shared list's (`store/migrations.ts`). Databases at an older version are
 * migrated on open, newer ones refused.
 */
export const postgresSchemaVersion = storeSchemaVersion;

/**
 * Postgres schemas written before the shared migration list counted their own versions: their version 1 (the tables of
 * `store/schema.ts`, full-text term statistics, vector spaces, meta, all keyed by workspace and generation; the
 * workspaces' published and draft generations and their query caches) is the shared list's version 6.
 */
const sharedVersionOfLegacy: ReadonlyMap<number, number> = new Map([[1, 6]]);

/** What a store needs to know about a migrated schema. */
export interface PostgresSchemaState {
  /** The quoted schema name, to qualify every table. */
  schema: string;
  /** Where pgvector's type and operators live (a quoted schema name), or undefined when the server lacks pgvector. */
  vector: { namespace: string } | undefined;
  /** Why pgvector is not used, when it is not. */
  vectorUnavailable?: string;
}

/**
 * Columns every table has: one database serves many workspaces, each with index generations. A row is a version:
 * `generation` is the one it was written in, `retired` the one that replaced or deleted it (NULL while it lives), so
 * that a draft writes only what it changes (see `postgres-row-versions.ts`).
 */
const scopeColumns = ['workspace', 'generation', 'retired'] as const;

/** The SQL type of a schema column. */
export function postgresColumnType(column: ColumnSpec): string {
  switch (column.type) {
    case 'integer':
      return 'bigint';
    case 'real':
      return 'double precision';
    case 'json':
      return 'json';
    default:
      return 'text';
  }
}

/** The postings of a full-text table: per term, the rows that hold it with its frequency and their lengths. */
export function termTableOf(spec: AnyTableSpec): string {
  return `${spec.sqlName}_postings`;
}

/**
 * Every table whose rows are versions of a workspace's rows, unqualified: what discarding a draft or collecting
 * retired rows touches. `vector_indexes` is not among them: it names indexes, which serve every generation.
 */
export function postgresGenerationTables(pluginTables: PluginTables = {}): string[] {
  return [...builtInGenerationTables, ...Object.values(pluginTables).map((spec) => spec.sqlName)];
}

const builtInGenerationTables: readonly string[] = [
  ...tableNames.map((name) => tableSpec(name).sqlName),
  ...tableNames.flatMap((name) => (tableSpec(name).fullText ? [termTableOf(tableSpec(name))] : [])),
  'full_text_totals',
  'meta',
  'vector_spaces',
  'vector_rows',
  'vector_postings',
];

/**
 * The index of a table's retired rows (few: those a draft replaced or deleted), by which a publish deletes them and
 * a discarded draft brings them back.
 */
function retiredIndex(schema: string, sqlName: string): string {
  return `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${sqlName}_retired`)} ON ${schema}.${quoteIdentifier(sqlName)} (workspace, retired) WHERE retired IS NOT NULL`;
}

/** The secondary indexes of a table of the schema (or a plugin's): its declared ones, then the retired rows'. */
function versionedTableIndexes(schema: string, spec: AnyTableSpec): string[] {
  const table = `${schema}.${quoteIdentifier(spec.sqlName)}`;
  return [
    ...(spec.indexes ?? []).map((index) => {
      const indexColumns = index.map((column) => snakeCase(column));
      return `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${spec.sqlName}_${indexColumns.join('_')}`)} ON ${table} (workspace, ${indexColumns.map(quoteIdentifier).join(', ')}, generation)`;
    }),
    retiredIndex(schema, spec.sqlName),
  ];
}

/** The DDL of one table of the schema (or a plugin's), with its indexes and full-text postings; each runs again harmlessly. */
export function createTableStatements(schema: string, spec: AnyTableSpec): string[] {
  const table = `${schema}.${quoteIdentifier(spec.sqlName)}`;
  for (const column of Object.keys(spec.columns)) {
    if ([...scopeColumns, 'hid'].includes(snakeCase(column))) throw new Error(`${spec.sqlName}.${column}: the name is reserved by the Postgres backend`);
  }
  const columns = Object.entries(spec.columns).map(
    ([name, column]) => `${quoteIdentifier(snakeCase(name))} ${postgresColumnType(column)}${column.nullable ? '' : ' NOT NULL'}`,
  );
  const key = spec.key.map((column) => quoteIdentifier(snakeCase(column))).join(', ');
  // Every table has a hid, exposed or not: rows come back in insertion order, as SQLite's rowid gives them. A row's
  // versions share its hid and key; the generation comes last in every index, so that a lookup by key or hid finds
  // the row's few versions and the visibility condition picks one.
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${table} (workspace text NOT NULL, generation integer NOT NULL, retired integer, hid bigint GENERATED BY DEFAULT AS IDENTITY, ${columns.join(', ')}, PRIMARY KEY (workspace, hid, generation), UNIQUE (workspace, ${key}, generation))`,
    ...versionedTableIndexes(schema, spec),
  ];
  if (spec.fullText) {
    // One row per term (a row per term and text row made the index of 2Wiki's chunks 370,000 rows, four times
    // SQLite's time to write), its postings a blob: the rows' hids, term frequencies and lengths (store/postings-codec.ts).
    const postings = `${schema}.${quoteIdentifier(termTableOf(spec))}`;
    statements.push(
      `CREATE TABLE IF NOT EXISTS ${postings} (workspace text NOT NULL, generation integer NOT NULL, retired integer, term text COLLATE "C" NOT NULL, postings bytea NOT NULL, PRIMARY KEY (workspace, term, generation))`,
      `ALTER TABLE ${postings} ALTER COLUMN postings SET STORAGE EXTERNAL`,
      retiredIndex(schema, termTableOf(spec)),
    );
  }
  return statements;
}

/** A new schema: everything, at the newest version. */
function createdSchema(schema: string): string[] {
  return [
    ...tableNames.flatMap((name) => createTableStatements(schema, tableSpec(name))),
    // Revisions of full-text indexes and vector spaces come from one sequence: a value is never handed out twice, not
    // even by a rolled-back write, so data cached for a revision is never mistaken for another state.
    `CREATE SEQUENCE ${schema}.revisions`,
    // BM25's collection statistics per full-text table: FTS5's row count and total token count.
    `CREATE TABLE ${schema}.full_text_totals (workspace text NOT NULL, generation integer NOT NULL, retired integer, table_name text NOT NULL, rows bigint NOT NULL, tokens bigint NOT NULL, revision bigint NOT NULL, PRIMARY KEY (workspace, table_name, generation))`,
    retiredIndex(schema, 'full_text_totals'),
    // Blobs and vectors are float data or already compact: compressing them (TOAST's default) costs time for nothing.
    `CREATE TABLE ${schema}.meta (workspace text NOT NULL, generation integer NOT NULL, retired integer, key text NOT NULL, value text, blob bytea, PRIMARY KEY (workspace, key, generation))`,
    `ALTER TABLE ${schema}.meta ALTER COLUMN blob SET STORAGE EXTERNAL`,
    retiredIndex(schema, 'meta'),
    `CREATE TABLE ${schema}.vector_spaces (workspace text NOT NULL, generation integer NOT NULL, retired integer, space text NOT NULL, embedder_id text, dimensions integer, layout text, indexed boolean, revision bigint NOT NULL, PRIMARY KEY (workspace, space, generation))`,
    retiredIndex(schema, 'vector_spaces'),
    // One row per vector: its id and, in a dense space, its float32 coordinates (and pgvector's copy, when there is pgvector).
    `CREATE TABLE ${schema}.vector_rows (workspace text NOT NULL, generation integer NOT NULL, retired integer, space text NOT NULL, vid bigint GENERATED BY DEFAULT AS IDENTITY, id text NOT NULL, data bytea, PRIMARY KEY (workspace, space, vid, generation), UNIQUE (workspace, space, id, generation))`,
    `ALTER TABLE ${schema}.vector_rows ALTER COLUMN data SET STORAGE EXTERNAL`,
    retiredIndex(schema, 'vector_rows'),
    // A sparse space's postings: per coordinate, the positions (in vid order) of the rows non-zero there and their values.
    `CREATE TABLE ${schema}.vector_postings (workspace text NOT NULL, generation integer NOT NULL, retired integer, space text NOT NULL, coordinate integer NOT NULL, postings bytea NOT NULL, PRIMARY KEY (workspace, space, coordinate, generation))`,
    `ALTER TABLE ${schema}.vector_postings ALTER COLUMN postings SET STORAGE EXTERNAL`,
    retiredIndex(schema, 'vector_postings'),
    // Which generation of each workspace is published, the draft being written, who writes it and how the last write ended.
    `CREATE TABLE ${schema}.workspaces (workspace text PRIMARY KEY, published_generation integer, published_at text, draft_generation integer, draft_base integer, writer jsonb, unpublished jsonb)`,
    // Replies to queries' LLM calls, per workspace (indexing calls are cached in the generation's llm_cache table).
    `CREATE TABLE ${schema}.query_cache (workspace text NOT NULL, key text NOT NULL, value jsonb NOT NULL, created_at text NOT NULL, PRIMARY KEY (workspace, key))`,
    // The HNSW indexes of dense spaces, one per workspace, space and dimension, serving every generation.
    `CREATE TABLE ${schema}.vector_indexes (workspace text NOT NULL, space text NOT NULL, dimensions integer NOT NULL, name text NOT NULL, PRIMARY KEY (workspace, space, dimensions))`,
    ...jobTableStatements(schema),
  ];
}

/** One step of the shared migration list (`store/migrations.ts`), in Postgres's SQL. */
async function migrationStep(run: SqlRunner, schema: string, step: MigrationStep): Promise<void> {
  switch (step.kind) {
    case 'createTable':
      for (const statement of createTableStatements(schema, tableSpec(step.table))) await run.rows(statement);
      return;
    case 'addColumn': {
      const column = tableSpec(step.table).columns[step.column] as ColumnSpec;
      await run.rows(`ALTER TABLE ${schema}.${quoteIdentifier(tableSpec(step.table).sqlName)} ADD COLUMN IF NOT EXISTS ${quoteIdentifier(snakeCase(step.column))} ${postgresColumnType(column)}`);
      return;
    }
    case 'dropIndex':
      await run.rows(`DROP INDEX IF EXISTS ${schema}.${quoteIdentifier(`${tableSpec(step.table).sqlName}_${step.columns.map(snakeCase).join('_')}`)}`);
      return;
    case 'dropTable':
      await run.rows(`DROP TABLE IF EXISTS ${schema}.${quoteIdentifier(step.sqlName)}`);
      return;
    case 'dropVectorSpace': {
      const indexes = await run.rows<{ name: string }>(`DELETE FROM ${schema}.vector_indexes WHERE space = $1 RETURNING name`, [step.space]);
      for (const { name } of indexes) await run.rows(`DROP INDEX IF EXISTS ${schema}.${quoteIdentifier(name)}`);
      for (const table of ['vector_postings', 'vector_rows', 'vector_spaces']) await run.rows(`DELETE FROM ${schema}.${table} WHERE space = $1`, [step.space]);
      return;
    }
    case 'rebuildFullText':
    case 'compact':
      // SQLite's storage only: Postgres's BM25 postings and tables were right from its first version.
      return;
    case 'rowVersions':
      await convertToRowVersions(run, schema, builtInVersionedTables());
      return;
    case 'jobTables':
      for (const statement of jobTableStatements(schema)) await run.rows(statement);
      return;
  }
}

/** A table to convert to row versions: its key columns (after the workspace), and its unique and indexed columns. */
interface VersionedTable {
  sqlName: string;
  primary: readonly string[];
  unique?: readonly string[];
  /** Secondary indexes by name, each over its columns after the workspace. */
  indexes?: ReadonlyArray<readonly [string, readonly string[]]>;
}

/** How the tables of a spec are keyed: by hid, unique by the spec's key, and its postings by term. */
function versionedTablesOf(spec: AnyTableSpec): VersionedTable[] {
  return [
    {
      sqlName: spec.sqlName,
      primary: ['hid'],
      unique: spec.key.map(snakeCase),
      indexes: (spec.indexes ?? []).map((index) => [`${spec.sqlName}_${index.map(snakeCase).join('_')}`, index.map(snakeCase)] as const),
    },
    ...(spec.fullText ? [{ sqlName: termTableOf(spec), primary: ['term'] }] : []),
  ];
}

function builtInVersionedTables(): VersionedTable[] {
  return [
    ...tableNames.flatMap((name) => versionedTablesOf(tableSpec(name))),
    { sqlName: 'full_text_totals', primary: ['table_name'] },
    { sqlName: 'meta', primary: ['key'] },
    { sqlName: 'vector_spaces', primary: ['space'] },
    { sqlName: 'vector_rows', primary: ['space', 'vid'], unique: ['space', 'id'] },
    { sqlName: 'vector_postings', primary: ['space', 'coordinate'] },
  ];
}

/**
 * Makes tables of an older schema hold row versions: each workspace keeps the rows of its published generation (of
 * its newest, when none is published), which every later generation sees; the rows of other generations (a draft,
 * which a writer then restarts from the published rows) go. Keys and indexes end with the generation, and the HNSW
 * indexes, which were per generation, go (rebuilt by {@link migratePostgresSchema} once pgvector is known).
 */
async function convertToRowVersions(run: SqlRunner, schema: string, tables: readonly VersionedTable[]): Promise<void> {
  for (const table of tables) {
    const qualified = `${schema}.${quoteIdentifier(table.sqlName)}`;
    const [present] = await run.rows<{ table: string | null }>('SELECT to_regclass($1)::text AS table', [qualified]);
    if (!present?.table) continue;
    const [converted] = await run.rows<{ n: number }>('SELECT count(*) AS n FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2 AND NOT attisdropped', [qualified, 'retired']);
    if ((converted?.n ?? 0) > 0) continue;
    const kept = `coalesce((SELECT w.published_generation FROM ${schema}.workspaces w WHERE w.workspace = t.workspace), (SELECT max(m.generation) FROM ${qualified} m WHERE m.workspace = t.workspace))`;
    await run.rows(`DELETE FROM ${qualified} t WHERE t.generation <> ${kept}`);
    await run.rows(`ALTER TABLE ${qualified} ADD COLUMN retired integer`);
    const constraints = await run.rows<{ name: string }>("SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('p', 'u')", [qualified]);
    for (const { name } of constraints) await run.rows(`ALTER TABLE ${qualified} DROP CONSTRAINT ${quoteIdentifier(name)}`);
    const columns = (names: readonly string[]): string => ['workspace', ...names, 'generation'].map(quoteIdentifier).join(', ');
    await run.rows(`ALTER TABLE ${qualified} ADD PRIMARY KEY (${columns(table.primary)})`);
    if (table.unique) await run.rows(`ALTER TABLE ${qualified} ADD UNIQUE (${columns(table.unique)})`);
    for (const [name, indexColumns] of table.indexes ?? []) {
      await run.rows(`DROP INDEX IF EXISTS ${schema}.${quoteIdentifier(name)}`);
      await run.rows(`CREATE INDEX ${quoteIdentifier(name)} ON ${qualified} (${columns(indexColumns)})`);
    }
    await run.rows(retiredIndex(schema, table.sqlName));
  }
  const [indexes] = await run.rows<{ table: string | null }>('SELECT to_regclass($1)::text AS table', [`${schema}.vector_indexes`]);
  if (!indexes?.table) return;
  const [perGeneration] = await run.rows<{ n: number }>("SELECT count(*) AS n FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'generation' AND NOT attisdropped", [`${schema}.vector_indexes`]);
  if ((perGeneration?.n ?? 0) === 0) return;
  for (const { name } of await run.rows<{ name: string }>(`DELETE FROM ${schema}.vector_indexes RETURNING name`)) await run.rows(`DROP INDEX IF EXISTS ${schema}.${quoteIdentifier(name)}`);
  await run.rows(`ALTER TABLE ${schema}.vector_indexes DROP COLUMN generation`);
  await run.rows(`ALTER TABLE ${schema}.vector_indexes ADD PRIMARY KEY (workspace, space, dimensions)`);
}

/**
 * Brings `schemaName` to {@link postgresSchemaVersion}, creating it when missing, under a transaction-scoped
 * advisory lock: two processes opening one fresh database at once migrate it once. Also installs pgvector when the
 * server has it (`CREATE EXTENSION` may be refused: then dense vectors are scanned exactly instead).
 * @throws KgragError `STORE_TOO_NEW` when a newer kgrag migrated the schema.
 */
export async function migratePostgresSchema(pool: pg.Pool, schemaName: string, options: { always?: boolean } = {}): Promise<PostgresSchemaState> {
  const schema = quoteIdentifier(schemaName);
  // A current schema is read, not written: a runtime role with no CREATE privilege opens it, and no start takes the
  // migration lock or runs DDL. `always` (`kgrag migrate`) runs the migration path anyway, which also installs pgvector
  // when the server has gained it since.
  const current = options.always === true ? undefined : await currentSchemaState(sqlRunner(pool), schemaName);
  if (current) return current;
  try {
    return await migrateSchemaNow(pool, schemaName, schema);
  } catch (error) {
    if (KgragError.isInstance(error) && error.code === 'STORE_PERMISSION_DENIED') {
      const found = await schemaVersion(sqlRunner(pool), schemaName).catch(() => undefined);
      throw new KgragError(
        `the Postgres schema "${schemaName}" ${found === undefined ? 'does not exist' : `is at version ${found}`} and kgrag needs version ${postgresSchemaVersion}, which this role may not migrate to: ${error.message}`,
        {
          code: 'STORE_MIGRATION_NEEDED',
          category: 'store',
          hint: 'run `kgrag migrate` once as the schema\'s owner (a role that may create it), then start kgrag with this role',
          details: { schema: schemaName, version: found ?? null, needed: postgresSchemaVersion, httpStatus: 500 },
          cause: error,
        },
      );
    }
    throw error;
  }
}

/** The schema's recorded version, or undefined when it has none (no schema, or no version table). */
export async function schemaVersion(run: SqlRunner, schemaName: string): Promise<number | undefined> {
  const schema = quoteIdentifier(schemaName);
  const [present] = await run.rows<{ table: string | null }>('SELECT to_regclass($1)::text AS table', [`${schema}.kgrag_schema`]);
  if (!present?.table) return undefined;
  const [row] = await run.rows<{ version: number }>(`SELECT version FROM ${schema}.kgrag_schema`);
  return row?.version ?? 0;
}

/** The state of a schema already at {@link postgresSchemaVersion} whose pgvector column needs nothing, else undefined. */
async function currentSchemaState(run: SqlRunner, schemaName: string): Promise<PostgresSchemaState | undefined> {
  if ((await schemaVersion(run, schemaName)) !== postgresSchemaVersion) return undefined;
  const schema = quoteIdentifier(schemaName);
  const [extension] = await run.rows<{ namespace: string }>("SELECT extnamespace::regnamespace::text AS namespace FROM pg_extension WHERE extname = 'vector'");
  if (extension === undefined) return { schema, vector: undefined, vectorUnavailable: 'the vector extension is not installed in the database (CREATE EXTENSION vector, then `kgrag migrate`)' };
  const [column] = await run.rows<{ n: number }>("SELECT count(*) AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'vector_rows' AND column_name = 'embedding'", [schemaName]);
  if ((column?.n ?? 0) === 0) return undefined;
  return { schema, vector: { namespace: extension.namespace.startsWith('"') ? extension.namespace : quoteIdentifier(extension.namespace) } };
}

async function migrateSchemaNow(pool: pg.Pool, schemaName: string, schema: string): Promise<PostgresSchemaState> {
  return inPostgresTransaction(pool, async (run) => {
    await run.rows('SELECT pg_advisory_xact_lock(hashtext($1))', [`kgrag:migrate:${schemaName}`]);
    await run.rows(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    const [present] = await run.rows<{ table: string | null }>('SELECT to_regclass($1)::text AS table', [`${schema}.kgrag_schema`]);
    let version = 0;
    if (present?.table) {
      const [row] = await run.rows<{ version: number }>(`SELECT version FROM ${schema}.kgrag_schema`);
      version = row?.version ?? 0;
    } else {
      await run.rows(`CREATE TABLE ${schema}.kgrag_schema (version integer NOT NULL)`);
      await run.rows(`INSERT INTO ${schema}.kgrag_schema (version) VALUES (0)`);
    }
    if (version > postgresSchemaVersion) {
      throw new KgragError(`the Postgres schema "${schemaName}" was written by a newer kgrag (schema ${version}, this one knows ${postgresSchemaVersion})`, {
        code: 'STORE_TOO_NEW',
        category: 'store',
        hint: 'upgrade kgrag, or point store.url (or the store schema) at another database or schema',
        details: { schema: schemaName, version },
      });
    }
    if (version === 0) {
      for (const statement of createdSchema(schema)) await run.rows(statement);
    } else {
      for (const step of pendingMigrationSteps(sharedVersionOfLegacy.get(version) ?? version)) await migrationStep(run, schema, step);
    }
    if (version < postgresSchemaVersion) await run.rows(`UPDATE ${schema}.kgrag_schema SET version = $1`, [postgresSchemaVersion]);
    const vector = await installVector(run, schema);
    if (version > 0 && pendingMigrationSteps(sharedVersionOfLegacy.get(version) ?? version).some((step) => step.kind === 'rowVersions')) {
      // The published dense spaces' HNSW indexes, per generation before, now one per workspace and space.
      const spaces = await run.rows<{ workspace: string; space: string; dimensions: number }>(
        `SELECT workspace, space, dimensions FROM ${schema}.vector_spaces WHERE retired IS NULL AND indexed AND embedder_id IS NOT NULL AND layout = 'dense'`,
      );
      for (const { workspace, space, dimensions } of spaces) await ensureHnswIndex(run, { schema, ...vector }, workspace, space, dimensions);
    }
    return { schema, ...vector };
  });
}

/** pgvector's schema when the extension is (or can be) installed, and the `embedding` column dense rows index. */
async function installVector(run: SqlRunner, schema: string): Promise<Pick<PostgresSchemaState, 'vector' | 'vectorUnavailable'>> {
  const namespace = async (): Promise<string | undefined> =>
    (await run.rows<{ namespace: string }>("SELECT extnamespace::regnamespace::text AS namespace FROM pg_extension WHERE extname = 'vector'"))[0]?.namespace;
  let found = await namespace();
  let reason: string | undefined;
  if (found === undefined) {
    await run.rows('SAVEPOINT kgrag_vector');
    try {
      await run.rows('CREATE EXTENSION IF NOT EXISTS vector');
      await run.rows('RELEASE SAVEPOINT kgrag_vector');
      found = await namespace();
    } catch (error) {
      await run.rows('ROLLBACK TO SAVEPOINT kgrag_vector');
      reason = (error as Error).message;
    }
  }
  if (found === undefined) return { vector: undefined, vectorUnavailable: reason ?? 'the vector extension is not installed' };
  // regnamespace::text quotes the name when it needs quotes.
  const vectorNamespace = found.startsWith('"') ? found : quoteIdentifier(found);
  const [column] = await run.rows<{ n: number }>(
    "SELECT count(*) AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'vector_rows' AND column_name = 'embedding'",
    [schema.slice(1, -1).replaceAll('""', '"')],
  );
  if ((column?.n ?? 0) === 0) await run.rows(`ALTER TABLE ${schema}.vector_rows ADD COLUMN embedding ${vectorNamespace}.vector`);
  return { vector: { namespace: vectorNamespace } };
}

/**
 * Creates the tables plugins declare, unless they exist, under the migration lock: built like the schema's
 * (`createTableStatements`), so that they keep row versions alike (a table of an older kgrag is converted first).
 */
export async function createPostgresPluginTables(pool: pg.Pool, state: PostgresSchemaState, tables: PluginTables): Promise<void> {
  const specs = Object.values(tables);
  if (specs.length === 0) return;
  // Tables made already (with row versions) are read, not written: a runtime role without CREATE opens them.
  const names = specs.map((spec) => spec.sqlName);
  const [made] = await sqlRunner(pool).rows<{ n: number }>(
    "SELECT count(*) AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2::text[]) AND column_name = 'retired'",
    [state.schema.slice(1, -1).replaceAll('""', '"'), names],
  );
  if ((made?.n ?? 0) === names.length) return;
  await inPostgresTransaction(pool, async (run) => {
    await run.rows('SELECT pg_advisory_xact_lock(hashtext($1))', [`kgrag:migrate:${state.schema}`]);
    // A plugin's table made by an older kgrag holds generations, not row versions, until converted.
    await convertToRowVersions(run, state.schema, specs.flatMap(versionedTablesOf));
    for (const spec of specs) for (const statement of createTableStatements(state.schema, spec)) await run.rows(statement);
  });
}
