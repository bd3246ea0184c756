import { memoized } from '../store/core/memoized.js';
import { schema } from '../store/schema.js';
import type { RowAccess, Store, TableAccess } from '../store/store.js';
import type { TableName } from '../store/schema.js';

/**
 * The keys of the rows a pipeline run wrote, table by table, as far as they are known: what lets a step that last ran
 * on the tables as this run found them look at the rows that changed instead of comparing every row
 * (`StepContext.changedKeys`). A write that cannot be told by key — a clear, a delete by another column, a write to a
 * table without a one-column key (a plugin's) — makes the table's changes unknown for the rest of the run. A key may
 * be listed for a row written with the content it had, or deleted since: the set may hold more than what changed,
 * never less. Past `maxKeys` keys a table's changes are unknown too: a step told that many would read them by key for
 * longer than it reads the table, and a first build would hold a set of every row it wrote.
 */
export class TableChanges {
  private readonly keys = new Map<string, Set<string>>();
  private readonly unknown = new Set<string>();

  constructor(private readonly maxKeys = 50_000) {}

  /** The keys written to `table` so far, or undefined when a write to it was not by key. */
  of(table: string): ReadonlySet<string> | undefined {
    if (this.unknown.has(table)) return undefined;
    return this.keys.get(table) ?? new Set();
  }

  /** Records a write to `table` of the rows with `keys`, or of rows unknown when undefined. */
  add(table: string, keys: Iterable<string> | undefined): void {
    if (keys === undefined) {
      this.unknown.add(table);
      this.keys.delete(table);
      return;
    }
    if (this.unknown.has(table)) return;
    let known = this.keys.get(table);
    if (known === undefined) this.keys.set(table, (known = new Set()));
    for (const key of keys) known.add(key);
    if (known.size > this.maxKeys) this.add(table, undefined);
  }

  /** Adds what `other` recorded (the writes of a transaction, once it committed). */
  merge(other: TableChanges): void {
    for (const table of other.unknown) this.add(table, undefined);
    for (const [table, keys] of other.keys) this.add(table, keys);
  }

  /**
   * `store`, recording here every table write made through it and through the transactions it opens. Reads, vectors,
   * meta records and blobs pass through untouched.
   */
  recording(store: Store): Store {
    // One wrapper per table, as the store keeps one table object per name: steps ask for a table often.
    const tables = new Map<string, unknown>();
    return {
      backend: store.backend,
      table: <T extends TableName>(name: T): TableAccess<T> => memoized(tables, name, () => this.recordingTable(store.table(name), name)) as TableAccess<T>,
      vectors: (space) => store.vectors(space),
      searchText: (table, terms, k) => store.searchText(table, terms, k),
      getMeta: (key) => store.getMeta(key),
      setMeta: (key, value) => store.setMeta(key, value),
      getBlob: (key) => store.getBlob(key),
      setBlob: (key, value) => store.setBlob(key, value),
      blobKeys: () => store.blobKeys(),
      metaKeys: () => store.metaKeys(),
      transaction: (fn) => store.transaction((tx) => fn(this.recording(tx))),
      close: () => store.close(),
    };
  }

  private recordingTable<Row>(table: RowAccess<Row>, name: string): RowAccess<Row> {
    const key = keyColumnOf(name);
    return {
      upsert: async (rows) => {
        await table.upsert(rows);
        if (rows.length > 0) this.add(name, key === undefined ? undefined : rows.map((row) => String((row as Record<string, unknown>)[key])));
      },
      get: (keys) => table.get(keys),
      all: () => table.all(),
      where: (column, values) => table.where(column, values),
      pick: (columns, where) => table.pick(columns, where),
      deleteWhere: async (column, values) => {
        const deleted = await table.deleteWhere(column, values);
        if (deleted > 0) this.add(name, key !== undefined && column === key ? values.map((value) => String(value)) : undefined);
        return deleted;
      },
      clear: async () => {
        await table.clear();
        this.add(name, undefined);
      },
      count: () => table.count(),
    };
  }
}

/** The one key column of a built-in table; undefined for a composite key or a plugin's table. */
function keyColumnOf(table: string): string | undefined {
  if (!Object.hasOwn(schema, table)) return undefined;
  const { key } = (schema as Record<string, { key: readonly string[] }>)[table] as { key: readonly string[] };
  return key.length === 1 ? key[0] : undefined;
}
