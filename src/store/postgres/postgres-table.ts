import { encodeColumnValue } from '../core/row-encoding.js';
import { TableBase, type RowFilter } from '../core/table-base.js';
import { snakeCase, type AnyTableSpec, type ColumnOf, type ColumnSpec, type TableName, type TableRows } from '../schema.js';
import { applyTermChanges, emptyTermChanges, indexedTermsOf, recordTermChange, type FullTextCache, type FullTextScope, type IndexedTerms, type PostingsCache } from './postgres-full-text.js';
import { postgresColumnType, termTableOf } from './postgres-migrations.js';
import { lockForWrite, quoteIdentifier, type SqlRunner } from './postgres-sql.js';
import { versionedDelete, visibleAt } from './postgres-row-versions.js';

/** What tables and vector spaces need of the store they belong to. */
export interface PostgresScopeAccess {
  /** The quoted schema. */
  readonly schema: string;
  /** Workspace and generation: the first two parameters of every statement. */
  readonly scope: readonly [string, number];
  /** Runs statements in the store's transaction when it is one, else on the pool. */
  runner(): SqlRunner;
  /** Runs `work` as one transaction (a savepoint inside the store's transaction). */
  atomically<R>(work: (run: SqlRunner) => Promise<R>): Promise<R>;
  /** What the full-text indexes keep of one revision each (collection statistics, row ids), per table. */
  readonly fullTextCaches: Map<string, FullTextCache>;
  /** The BM25 postings queries read, kept within a byte budget. */
  readonly postingsCache: PostingsCache;
  /** A published generation, which nothing writes again: what is cached of it needs no revision check. */
  readonly frozen: boolean;
}

/** Rows per upsert statement at most, and characters of text at most: one statement's arrays stay a few MB. */
const maxBatchRows = 5000;
const maxBatchCharacters = 8 * 1024 * 1024;

/** The array type a column's values travel in (json as text, cast in the statement). */
function arrayType(column: ColumnSpec): string {
  return column.type === 'integer' ? 'bigint[]' : column.type === 'real' ? 'float8[]' : 'text[]';
}

/**
 * One table of the schema, scoped to a workspace generation. Upserts send each column as one array parameter
 * (`unnest`), a few thousand rows per statement; rows keep the order they were given through the `hid` identity.
 */
export class PostgresTable<T extends TableName> extends TableBase<T> {
  private readonly table: string;
  private readonly upsertSql: string;
  /** The upsert into a generation that sees none of the table's rows: no existing row to look up. */
  private readonly freshUpsertSql: string;
  private readonly keyColumns: string[];

  constructor(
    private readonly store: PostgresScopeAccess,
    spec: AnyTableSpec,
  ) {
    super(spec);
    this.table = `${store.schema}.${quoteIdentifier(spec.sqlName)}`;
    const sqlColumns = this.columns.map(([name]) => quoteIdentifier(snakeCase(name)));
    this.keyColumns = spec.key.map((column) => quoteIdentifier(snakeCase(column)));
    const fullText = spec.fullText !== undefined;
    const inserted = sqlColumns;
    const aliases = inserted.map((_, index) => `c${index}`);
    const parameters = this.columns.map(([, column], index) => `$${index + 3}::${arrayType(column)}`);
    const selected = aliases.map((alias, index) => (this.columns[index]?.[1].type === 'json' ? `u.${alias}::json` : `u.${alias}`));
    const updates = inserted.filter((column) => !this.keyColumns.includes(column)).map((column) => `${column} = excluded.${column}`);
    const conflict = `ON CONFLICT (workspace, ${this.keyColumns.join(', ')}, generation) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
    const rows = `unnest(${parameters.join(', ')}) WITH ORDINALITY AS u(${aliases.join(', ')}, ordinal)`;
    const keyJoin = spec.key.map((column) => {
      const index = this.columns.findIndex(([name]) => name === column);
      return `t.${quoteIdentifier(snakeCase(column))} = u.${aliases[index]}`;
    });
    // Whether the stored version holds the values given (json compared as the text it was given as): such a row is
    // not written again, so that an update writes only the rows it changes.
    const same = inserted.map((column, index) =>
      this.columns[index]?.[1].type === 'json' ? `t.${column}::text IS NOT DISTINCT FROM u.${aliases[index]}` : `t.${column} IS NOT DISTINCT FROM u.${aliases[index]}`,
    );
    const oldFullText = (spec.fullText ?? []).map((column) => `t.${quoteIdentifier(snakeCase(column))} AS ${quoteIdentifier(column)}`);
    const key = this.keyColumns[0] as string;
    // A table whose hid rows show is numbered per workspace generation, as a SQLite file numbers its rows (1, 2, … in
    // insertion order; a replaced row keeps its number), so that the same input gives the same rows whichever
    // workspace of the database it is indexed into; the other tables take the identity's next values, in the order
    // given. Writers of one table take turns (`upsert` locks it). A new version keeps its row's hid.
    const last = `(SELECT coalesce(max(hid), 0) AS last FROM ${this.table} WHERE workspace = $1 AND ${visibleAt()})`;
    const fresh = (source: string, condition: string): string =>
      spec.hid
        ? `INSERT INTO ${this.table} (workspace, generation, hid, ${inserted.join(', ')}) SELECT $1, $2, b.last + row_number() OVER (ORDER BY u.ordinal), ${selected.join(', ')} ` +
          `FROM ${source} CROSS JOIN ${last} b ${condition} ORDER BY u.ordinal`
        : `INSERT INTO ${this.table} (workspace, generation, ${inserted.join(', ')}) SELECT $1, $2, ${selected.join(', ')} FROM ${source} ${condition} ORDER BY u.ordinal ${conflict}`;
    const returned = fullText ? ` RETURNING hid, ${key} AS key` : '';
    this.upsertSql =
      `WITH u AS (SELECT * FROM ${rows}), ` +
      `e AS (SELECT t.hid, t.generation AS born, u.ordinal, (${same.join(' AND ')}) AS same${oldFullText.length > 0 ? `, ${oldFullText.join(', ')}` : ''} ` +
      `FROM u JOIN ${this.table} t ON t.workspace = $1 AND ${visibleAt('t')} AND ${keyJoin.join(' AND ')}), ` +
      `retired AS (UPDATE ${this.table} t SET retired = $2 FROM e WHERE t.workspace = $1 AND t.hid = e.hid AND t.generation = e.born AND e.born < $2 AND NOT e.same), ` +
      `replaced AS (INSERT INTO ${this.table} (workspace, generation, hid, ${inserted.join(', ')}) SELECT $1, $2, e.hid, ${selected.join(', ')} ` +
      `FROM u JOIN e ON e.ordinal = u.ordinal WHERE NOT e.same ORDER BY u.ordinal ${conflict}${returned}), ` +
      `added AS (${fresh('u LEFT JOIN e ON e.ordinal = u.ordinal', 'WHERE e.hid IS NULL')}${returned}) ` +
      (fullText
        ? `SELECT w.hid, w.key, e.hid IS NOT NULL AS existed, ${(spec.fullText ?? []).map((column) => `e.${quoteIdentifier(column)}`).join(', ')} ` +
          `FROM (SELECT hid, key FROM replaced UNION ALL SELECT hid, key FROM added) w LEFT JOIN e ON e.hid = w.hid`
        : 'SELECT 1');
    // Without the join. Writing a table that holds none of the workspace's rows is what a build does: no row to look up.
    const freshInsert = fresh(rows, '');
    this.freshUpsertSql = fullText ? `WITH up AS (${freshInsert} RETURNING hid, ${key} AS key) SELECT up.hid, up.key, false AS existed FROM up` : freshInsert;
  }

  async upsert(rows: ReadonlyArray<TableRows[T]>): Promise<void> {
    if (rows.length === 0) return;
    const batches = this.batches(this.deduplicated(rows as unknown as ReadonlyArray<Record<string, unknown>>));
    if (!this.spec.fullText && !this.spec.hid && batches.length === 1) {
      // One statement, which another writer of the table cannot interleave with: it numbers no rows, and a key it
      // retires or adds at the same moment as another statement meets that statement's new version as a conflict.
      await this.store.runner().rows(this.upsertSql, this.parameters(batches[0] as Array<Record<string, unknown>>));
      return;
    }
    await this.store.atomically(async (run) => {
      // The term changes of all batches are written once: the postings of a term common to several batches are
      // read and rewritten once, not once per batch.
      const changes = emptyTermChanges();
      // Rows are numbered from the generation's last hid, and replaced rows retired: two writers of one table must not interleave.
      await lockForWrite(run, JSON.stringify([this.store.schema, ...this.store.scope, 'rows', this.spec.sqlName]));
      // Under that lock no other writer adds rows, and the batches hold distinct keys: rows absent now stay new.
      const sql = !(await this.hasRows(run)) ? this.freshUpsertSql : this.upsertSql;
      for (const batch of batches) {
        if (!this.spec.fullText) {
          await run.rows(sql, this.parameters(batch));
          continue;
        }
        const indexed = batch.map((row) => indexedTermsOf(this.spec, row));
        const written = await run.rows<Record<string, unknown> & { hid: number; key: string; existed: boolean }>(sql, this.parameters(batch));
        const byKey = new Map(batch.map((row, index) => [row[this.spec.key[0] as string] as string, index]));
        for (const row of written) {
          const index = byKey.get(row.key) as number;
          const after = indexed[index] as IndexedTerms;
          let before: IndexedTerms | undefined;
          if (row.existed) {
            // An unchanged text indexes the same terms: nothing to rewrite (an entity's degree changes often, its text rarely).
            if ((this.spec.fullText ?? []).every((column) => row[column] === (batch[index] as Record<string, unknown>)[column])) continue;
            before = indexedTermsOf(this.spec, row);
          }
          recordTermChange(changes, row.hid, before, after);
        }
      }
      if (this.spec.fullText) await applyTermChanges(run, this.fullText, changes);
    });
  }

  /** Whether the generation holds any row of this table. */
  private async hasRows(run: SqlRunner): Promise<boolean> {
    const [row] = await run.rows<{ present: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${this.table} WHERE workspace = $1 AND ${visibleAt()}) AS present`, [...this.store.scope]);
    return row?.present === true;
  }

  /** One row per key: the last values given, at the place the key was first given (where SQLite's row-by-row upsert puts it). */
  private deduplicated(rows: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
    const keyOf = (row: Record<string, unknown>): string => JSON.stringify(this.spec.key.map((column) => row[column] ?? null));
    const position = new Map<string, number>();
    const unique: Array<Record<string, unknown>> = [];
    for (const row of rows) {
      const key = keyOf(row);
      const at = position.get(key);
      if (at === undefined) {
        position.set(key, unique.length);
        unique.push(row);
      } else {
        unique[at] = row;
      }
    }
    return unique;
  }

  private batches(rows: Array<Record<string, unknown>>): Array<Array<Record<string, unknown>>> {
    const batches: Array<Array<Record<string, unknown>>> = [];
    let current: Array<Record<string, unknown>> = [];
    let characters = 0;
    for (const row of rows) {
      let size = 16;
      for (const [name] of this.columns) {
        const value = row[name];
        size += typeof value === 'string' ? value.length : 16;
      }
      if (current.length > 0 && (current.length >= maxBatchRows || characters + size > maxBatchCharacters)) {
        batches.push(current);
        current = [];
        characters = 0;
      }
      current.push(row);
      characters += size;
    }
    if (current.length > 0) batches.push(current);
    return batches;
  }

  private get fullText(): FullTextScope {
    return { spec: this.spec, schema: this.store.schema, scope: this.store.scope, caches: this.store.fullTextCaches, postings: this.store.postingsCache, frozen: this.store.frozen };
  }

  /** Scope, then one array per column. */
  private parameters(rows: ReadonlyArray<Record<string, unknown>>): unknown[] {
    const arrays = this.columns.map(([name, column]) => rows.map((row) => encodeColumnValue(this.spec, name, column, row[name])));
    return [...this.store.scope, ...arrays];
  }

  protected async select(columns: ReadonlyArray<[string, ColumnSpec]>, where: RowFilter | undefined): Promise<Array<Record<string, unknown>>> {
    const list = [...(this.spec.hid ? ['hid'] : []), ...columns.map(([name]) => quoteIdentifier(snakeCase(name)))];
    const rows = await this.store.runner().rows<Record<string, unknown>>(
      `SELECT ${list.length > 0 ? list.join(', ') : 'hid'} FROM ${this.table} WHERE workspace = $1 AND ${visibleAt()}${where ? ` AND (${where.columns.map((column) => this.matches(column)).join(' OR ')})` : ''} ORDER BY hid`,
      where ? [...this.store.scope, where.values] : [...this.store.scope],
    );
    return rows.map((row) => this.decode(row, columns));
  }

  async deleteWhere<C extends ColumnOf<T>>(column: C, values: ReadonlyArray<TableRows[T][C]>): Promise<number> {
    if (values.length === 0) return 0;
    if (!this.spec.fullText) {
      const [row] = await this.store
        .runner()
        .rows<{ n: number }>(versionedDelete(this.table, this.matches(column)), [...this.store.scope, values]);
      return row?.n ?? 0;
    }
    return this.store.atomically(async (run) => {
      const fullText = (this.spec.fullText ?? []).map((name) => `${quoteIdentifier(snakeCase(name))} AS ${quoteIdentifier(name)}`);
      const deleted = await run.rows<Record<string, unknown> & { hid: number }>(versionedDelete(this.table, this.matches(column), `hid, ${fullText.join(', ')}`), [
        ...this.store.scope,
        values,
      ]);
      const changes = emptyTermChanges();
      for (const row of deleted) recordTermChange(changes, row.hid, indexedTermsOf(this.spec, row), undefined);
      await applyTermChanges(run, this.fullText, changes);
      return deleted.length;
    });
  }

  async clear(): Promise<void> {
    await this.store.atomically(async (run) => {
      await run.rows(versionedDelete(this.table, 'true'), [...this.store.scope]);
      if (!this.spec.fullText) return;
      await run.rows(versionedDelete(`${this.store.schema}.${quoteIdentifier(termTableOf(this.spec))}`, 'true'), [...this.store.scope]);
      await run.rows(versionedDelete(`${this.store.schema}.full_text_totals`, 'table_name = $3'), [...this.store.scope, this.spec.sqlName]);
    });
  }

  async count(): Promise<number> {
    const [row] = await this.store.runner().rows<{ n: number }>(`SELECT count(*) AS n FROM ${this.table} WHERE workspace = $1 AND ${visibleAt()}`, [...this.store.scope]);
    return row?.n ?? 0;
  }

  /** `column = ANY($3)`, the parameter typed as the column's array type. */
  private matches(column: string): string {
    const spec = this.spec.columns[column];
    if (!spec) throw new Error(`${this.spec.sqlName} has no column ${column}`);
    return spec.type === 'json'
      ? `${quoteIdentifier(snakeCase(column))}::text = ANY($3::text[])`
      : `${quoteIdentifier(snakeCase(column))} = ANY($3::${postgresColumnType(spec)}[])`;
  }

  private decode(row: Record<string, unknown>, columns: ReadonlyArray<[string, ColumnSpec]>): Record<string, unknown> {
    const record: Record<string, unknown> = {};
    if (this.spec.hid) record.hid = row.hid;
    for (const [name] of columns) record[name] = row[snakeCase(name)];
    return record;
  }
}
