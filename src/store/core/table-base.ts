import type { AnyTableSpec, ColumnOf, ColumnSpec, TableName, TableRows } from '../schema.js';
import type { TableAccess } from '../store.js';

/**
 * A filter of a read: rows where any of `columns` is one of `values` (neither is empty: an empty filter reads
 * nothing).
 */
export interface RowFilter {
  columns: readonly string[];
  values: readonly unknown[];
}

/**
 * What every backend's table does alike, over one read a driver writes in its SQL ({@link select}): `get` by a
 * single-column key, `where`, `all` and `pick` of some columns, and their empty cases, which read nothing.
 */
export abstract class TableBase<T extends TableName> implements TableAccess<T> {
  /** The spec's columns, in its order: the order drivers encode and select them in. */
  protected readonly columns: Array<[string, ColumnSpec]>;

  constructor(protected readonly spec: AnyTableSpec) {
    this.columns = Object.entries(spec.columns);
  }

  /**
   * Rows in insertion order as records of `hid` (when the table exposes it) and `columns`, decoded (json parsed),
   * all of them or those matching `where`.
   */
  protected abstract select(columns: ReadonlyArray<[string, ColumnSpec]>, where: RowFilter | undefined): Promise<Array<Record<string, unknown>>>;

  abstract upsert(rows: ReadonlyArray<TableRows[T]>): Promise<void>;
  abstract deleteWhere<C extends ColumnOf<T>>(column: C, values: ReadonlyArray<TableRows[T][C]>): Promise<number>;
  abstract clear(): Promise<void>;
  abstract count(): Promise<number>;

  async get(keys: readonly string[]): Promise<Array<TableRows[T]>> {
    if (this.spec.key.length !== 1) throw new Error(`${this.spec.sqlName}: get() needs a single-column key; use where()`);
    return this.where(this.spec.key[0] as ColumnOf<T>, keys as ReadonlyArray<TableRows[T][ColumnOf<T>]>);
  }

  async all(): Promise<Array<TableRows[T]>> {
    return (await this.select(this.columns, undefined)) as unknown as Array<TableRows[T]>;
  }

  async where<C extends ColumnOf<T>>(column: C, values: ReadonlyArray<TableRows[T][C]>): Promise<Array<TableRows[T]>> {
    if (values.length === 0) return [];
    return (await this.select(this.columns, { columns: [column], values })) as unknown as Array<TableRows[T]>;
  }

  async pick<K extends ColumnOf<T>>(
    columns: readonly K[],
    where?: { column: ColumnOf<T> | ReadonlyArray<ColumnOf<T>>; values: readonly unknown[] },
  ): Promise<Array<Pick<TableRows[T], K> & { hid?: number }>> {
    const filter = where && { columns: typeof where.column === 'string' ? [where.column] : where.column, values: where.values };
    if (filter && (filter.values.length === 0 || filter.columns.length === 0)) return [];
    const picked = this.columns.filter(([name]) => (columns as readonly string[]).includes(name));
    return (await this.select(picked, filter)) as unknown as Array<Pick<TableRows[T], K> & { hid?: number }>;
  }
}
