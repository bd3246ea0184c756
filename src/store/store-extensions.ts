import { KgragError } from '../core/errors.js';
import { schema, snakeCase, tableNames, type AnyTableSpec, type ColumnType } from './schema.js';
import { builtInVectorSpaces } from './store.js';

/*
 * Names plugins give their vector spaces and tables. They become SQL identifiers (`vec_<space>_postings`, a table's
 * sqlName, its columns), so they are checked here once, for every backend, before any SQL is written.
 */

/** The tables a plugin adds, by name (the name `store.table(name)` takes). */
export type PluginTables = Readonly<Record<string, AnyTableSpec>>;

/** What a store is opened with beyond the built-in schema. */
export interface StoreExtensions {
  /** Tables plugins declare, created with the built-in ones (`IF NOT EXISTS`) by every backend. */
  tables?: PluginTables;
}

const vectorSpaceName = /^[a-z][a-z0-9_]{0,39}$/;
const tableName = /^[a-z][A-Za-z0-9]{0,39}$/;
const sqlName = /^[a-z][a-z0-9_]{0,47}$/;
const columnName = /^[a-z][A-Za-z0-9]{0,47}$/;
const columnTypes: readonly ColumnType[] = ['text', 'integer', 'real', 'json'];
/** Tables and prefixes the backends keep for themselves. */
const reservedSqlNames = ['meta', 'full_text_totals', 'workspaces', 'query_cache', 'kgrag_schema', 'sqlite_sequence'];
const reservedSqlPrefixes = ['vec_', 'vector_', 'sqlite_', 'pg_'];
const reservedSqlSuffixes = ['_fts', '_postings'];
/** Columns the backends add to every table. */
const reservedColumns = ['hid', 'workspace', 'generation', 'rowid'];

function invalid(message: string, hint: string, details: Record<string, unknown>): KgragError {
  return new KgragError(message, { code: 'STORE_INVALID_EXTENSION', category: 'config', hint, details });
}

/**
 * @throws KgragError `STORE_INVALID_VECTOR_SPACE` unless `space` is lower-case letters, digits and underscores,
 * starting with a letter, at most 40 characters.
 */
export function assertVectorSpaceName(space: string): void {
  if (typeof space === 'string' && vectorSpaceName.test(space)) return;
  throw new KgragError(`"${String(space)}" is not a valid vector space name`, {
    code: 'STORE_INVALID_VECTOR_SPACE',
    category: 'config',
    hint: 'name a vector space with lower-case letters, digits and underscores, starting with a letter, at most 40 characters (e.g. "passage_keywords")',
    details: { space },
  });
}

/**
 * Checks the vector spaces a plugin declares: valid names (see {@link assertVectorSpaceName}), none a built-in
 * space, none twice.
 * @throws KgragError `STORE_INVALID_VECTOR_SPACE` or `STORE_INVALID_EXTENSION`.
 */
export function validatePluginVectorSpaces(spaces: readonly string[], owner = 'a plugin'): void {
  const seen = new Set<string>();
  for (const space of spaces) {
    assertVectorSpaceName(space);
    if ((builtInVectorSpaces as readonly string[]).includes(space) || seen.has(space)) {
      throw invalid(`${owner} declares the vector space "${space}", which ${seen.has(space) ? 'it declares twice' : 'is a built-in space'}`, 'give the plugin\'s space a name of its own (e.g. prefixed with the plugin\'s name)', { space });
    }
    seen.add(space);
  }
}

/**
 * Checks the tables a plugin declares and returns them: names that are safe SQL identifiers and clash with no built-in
 * or backend table, columns of known types with safe, distinct names, a key and indexes of those columns. Full-text
 * search is for built-in tables only (`Store.searchText`).
 * @throws KgragError `STORE_INVALID_EXTENSION` naming the table and what to change.
 */
export function validatePluginTables(tables: PluginTables | undefined, owner = 'a plugin'): PluginTables {
  if (tables === undefined) return {};
  const builtInSqlNames = new Set(tableNames.map((name) => schema[name].sqlName));
  const sqlNames = new Set<string>();
  for (const [name, spec] of Object.entries(tables)) {
    const where = `${owner}'s table "${name}"`;
    const rename = 'give the plugin\'s tables names of their own (e.g. prefixed with the plugin\'s name)';
    if (!tableName.test(name)) throw invalid(`${where}: the name must be a letter followed by letters and digits (camelCase), at most 40 characters`, 'rename the table, e.g. "myPluginScores"', { table: name });
    if ((tableNames as readonly string[]).includes(name)) throw invalid(`${where} is a built-in table`, rename, { table: name });
    if (typeof spec !== 'object' || spec === null) throw invalid(`${where} has no spec`, 'give the table a spec: { sqlName, key, columns, hid }', { table: name });
    const sql = spec.sqlName;
    if (typeof sql !== 'string' || !sqlName.test(sql)) throw invalid(`${where}: sqlName "${String(sql)}" must be lower-case letters, digits and underscores, starting with a letter, at most 48 characters`, `use "${snakeCase(name)}"`, { table: name, sqlName: sql });
    if (builtInSqlNames.has(sql) || sqlNames.has(sql) || reservedSqlNames.includes(sql) || reservedSqlPrefixes.some((prefix) => sql.startsWith(prefix)) || reservedSqlSuffixes.some((suffix) => sql.endsWith(suffix))) {
      throw invalid(`${where}: the SQL name "${sql}" is taken by ${sqlNames.has(sql) ? 'another of its tables' : 'a built-in or backend table'}`, rename, { table: name, sqlName: sql });
    }
    sqlNames.add(sql);
    const columns = Object.entries(spec.columns ?? {});
    if (columns.length === 0) throw invalid(`${where} has no columns`, 'list the row\'s fields in columns, each { type: "text" | "integer" | "real" | "json" }', { table: name });
    const snakeColumns = new Set<string>();
    for (const [column, columnSpec] of columns) {
      if (!columnName.test(column) || reservedColumns.includes(snakeCase(column)) || snakeColumns.has(snakeCase(column))) {
        throw invalid(`${where}: column "${column}" must be a camelCase name of its own (not ${reservedColumns.join(', ')})`, 'rename the column', { table: name, column });
      }
      if (!columnTypes.includes(columnSpec?.type)) throw invalid(`${where}: column "${column}" has type "${String(columnSpec?.type)}"`, `use one of ${columnTypes.join(', ')}`, { table: name, column });
      snakeColumns.add(snakeCase(column));
    }
    const known = (list: readonly string[] | undefined): boolean => (list ?? []).every((column) => Object.hasOwn(spec.columns, column));
    if (!Array.isArray(spec.key) || spec.key.length === 0 || !known(spec.key)) throw invalid(`${where}: its key must list one or more of its columns`, 'set key, e.g. ["id"]', { table: name, key: spec.key });
    if (!(spec.indexes ?? []).every((index) => index.length > 0 && known(index))) throw invalid(`${where}: every index must list some of its columns`, 'fix or remove the index', { table: name, indexes: spec.indexes });
    if (spec.fullText !== undefined) throw invalid(`${where} asks for full-text search, which only built-in tables have`, 'remove fullText; score the rows in the plugin', { table: name });
    if (typeof spec.hid !== 'boolean') throw invalid(`${where}: hid must be true or false`, 'set hid: true to number rows in insertion order and expose the number, else false', { table: name });
  }
  return tables;
}
