import { KgragError } from '../../core/errors.js';

/**
 * The rows of one parquet file, read by column name. Real GraphRAG outputs differ between versions and between the
 * projects that post-process them (integer or float ids, a list stored as a JSON string, a column left out), so every
 * value is converted here, once, and a column a table cannot do without is one error naming the file and the column.
 */
export class ParquetRows {
  readonly columns: ReadonlySet<string>;

  constructor(
    readonly file: string,
    readonly rows: ReadonlyArray<Record<string, unknown>>,
    columns: readonly string[],
  ) {
    this.columns = new Set(columns);
  }

  has(column: string): boolean {
    return this.columns.has(column);
  }

  /** The first of `names` the file has; with none of them, undefined. */
  firstOf(...names: string[]): string | undefined {
    return names.find((name) => this.columns.has(name));
  }

  /** The first of `names` the file has, or the error that the table needs one of them. */
  require(...names: string[]): string {
    const found = names.find((name) => this.columns.has(name));
    if (found !== undefined) return found;
    const [first, ...others] = names.map((name) => `"${name}"`);
    const wanted = others.length === 0 ? `column ${first}` : `column ${first} (nor ${others.join(' or ')})`;
    throw new KgragError(`${this.file} has no ${wanted}, which kgrag needs to import this table (its columns: ${[...this.columns].join(', ')})`, {
      code: 'IMPORT_MISSING_COLUMN',
      category: 'input',
      hint: 'import the output folder GraphRAG wrote (its parquet files unchanged), or add the column to the file',
      details: { file: this.file, column: names[0], columns: [...this.columns] },
    });
  }
}

/** An id: GraphRAG writes UUIDs and hashes as strings; some outputs hold integer or float ids. */
export function idValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A text, or undefined for null; numbers are written out (a title column of numbers is still a title). */
export function textValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A number from INT32, INT64 (bigint), DOUBLE or a numeric string; undefined for null or anything else. */
export function numberValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/**
 * A list: a parquet LIST column, or the same written as a JSON array string (what a CSV round trip or some
 * post-processing leaves); null gives an empty list.
 */
export function listValue(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<unknown>);
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (Array.isArray(parsed)) return parsed;
      } catch {
        // Python's repr of a list ("['a', 'b']") is not JSON: read its quoted items.
        return [...trimmed.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] ?? match[2] ?? '');
      }
    }
    return trimmed === '' ? [] : [trimmed];
  }
  return [];
}

/** A list of ids (strings), dropping nulls. */
export function idListValue(value: unknown): string[] {
  const ids: string[] = [];
  for (const item of listValue(value)) {
    const id = idValue(item);
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/*
 * A row's value in a column the table may lack (`column` undefined): GraphRAG's optional columns are read through
 * these, so that a missing column and a null cell read alike.
 */

export function textAt(row: Record<string, unknown>, column: string | undefined): string | undefined {
  return column === undefined ? undefined : textValue(row[column]);
}

export function numberAt(row: Record<string, unknown>, column: string | undefined): number | undefined {
  return column === undefined ? undefined : numberValue(row[column]);
}

export function idAt(row: Record<string, unknown>, column: string | undefined): string | undefined {
  return column === undefined ? undefined : idValue(row[column]);
}

export function idsAt(row: Record<string, unknown>, column: string | undefined): string[] {
  return column === undefined ? [] : idListValue(row[column]);
}

export function listAt(row: Record<string, unknown>, column: string | undefined): unknown[] {
  return column === undefined ? [] : listValue(row[column]);
}
