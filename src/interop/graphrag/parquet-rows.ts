import { KgragError } from '../../core/errors.js';

/** What a column is read as. */
type ColumnKind = 'text' | 'number' | 'id' | 'list';

/** How a value that is not of its column's kind fared: converted (and to what), or read as missing. */
type Conversion = { as: string } | { missing: true };

/** The values of one column that were not of its kind. */
interface ColumnTally {
  kind: ColumnKind;
  /** How many of each kind of value were found (`numbers`, `texts`, …). */
  found: Map<string, number>;
  /** How many were converted, by what they became. */
  converted: Map<string, number>;
  missing: number;
  /** The first value read as missing, shown in the warning. */
  example: string | undefined;
}

const expectedText: Record<ColumnKind, string> = { text: 'text was', number: 'numbers were', id: 'ids were', list: 'lists were' };
const singleOf: Record<ColumnKind, string> = { text: 'text', number: 'a number', id: 'an id', list: 'a list' };

/**
 * The rows of one parquet file, read by column name. Real GraphRAG outputs differ between versions and between the
 * projects that post-process them (integer or float ids, a list stored as a JSON string, a column left out), so every
 * value is converted here, once, and a column a table cannot do without is one error naming the file and the column.
 * A value of another type than its column's (numbers in a text column, numeric text in a number column, a plain text in
 * a list column) is converted where it can be and read as missing where it cannot; {@link ParquetRows.warnings} says so,
 * one line per column. The accepted variations above are no such value.
 */
export class ParquetRows {
  readonly columns: ReadonlySet<string>;
  private readonly tallies = new Map<string, ColumnTally>();

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

  /*
   * A row's value in a column the table may lack (`column` undefined): GraphRAG's optional columns are read through
   * these, so that a missing column and a null cell read alike.
   */

  /** A text, or undefined for null; numbers, booleans and dates are written out (a title column of numbers is still a title). */
  text(row: Record<string, unknown>, column: string | undefined): string | undefined {
    if (column === undefined) return undefined;
    const value = row[column];
    if (value === null || value === undefined || typeof value === 'string') return value ?? undefined;
    if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return this.converted(column, 'text', value, 'text', String(value));
    if (value instanceof Date) return this.converted(column, 'text', value, 'text', value.toISOString());
    return this.missing(column, 'text', value);
  }

  /** A number from INT32, INT64 (bigint) or DOUBLE, or from a numeric text; undefined for null, NaN or anything else. */
  number(row: Record<string, unknown>, column: string | undefined): number | undefined {
    if (column === undefined) return undefined;
    const value = row[column];
    if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
    if (typeof value === 'bigint') return Number(value);
    if (value === null || value === undefined) return undefined;
    if (typeof value === 'string') {
      if (value.trim() === '') return undefined;
      const parsed = Number(value);
      if (Number.isFinite(parsed)) return this.converted(column, 'number', value, 'numbers', parsed);
    }
    return this.missing(column, 'number', value);
  }

  /** An id: GraphRAG writes UUIDs and hashes as strings; some outputs hold integer or float ids. */
  id(row: Record<string, unknown>, column: string | undefined): string | undefined {
    if (column === undefined) return undefined;
    return this.idOf(column, row[column]);
  }

  /**
   * A list: a parquet LIST column, or the same written as a JSON array text (what a CSV round trip or some
   * post-processing leaves); null gives an empty list. Other text is converted: Python's repr of a list
   * (`['a', 'b']`) to its quoted items, anything else to a list of itself.
   */
  list(row: Record<string, unknown>, column: string | undefined): unknown[] {
    if (column === undefined) return [];
    const value = row[column];
    if (Array.isArray(value)) return value;
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<unknown>);
    if (value === null || value === undefined) return [];
    if (typeof value !== 'string') return this.missing(column, 'list', value) ?? [];
    const trimmed = value.trim();
    if (trimmed === '') return [];
    if (!trimmed.startsWith('[')) return this.converted(column, 'list', value, 'one-item lists', [trimmed]);
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // Python's repr of a list ("['a', 'b']") is not JSON: read its quoted items.
      const items = [...trimmed.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] ?? match[2] ?? '');
      return this.converted(column, 'list', value, 'lists of their quoted items', items);
    }
    return this.converted(column, 'list', value, 'one-item lists', [trimmed]);
  }

  /** A list of ids (strings), dropping nulls. */
  ids(row: Record<string, unknown>, column: string | undefined): string[] {
    if (column === undefined) return [];
    const ids: string[] = [];
    for (const item of this.list(row, column)) {
      const id = this.idOf(column, item);
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  /** One line per column that held values of another type: the file, the column, how many, and what became of them. */
  warnings(): string[] {
    return [...this.tallies].map(([column, tally]) => {
      const total = [...tally.found.values()].reduce((sum, count) => sum + count, 0);
      const [onlyFound] = tally.found.size === 1 ? [...tally.found.keys()] : [];
      const found = onlyFound === undefined ? `${total} values of other types` : `${total} ${total === 1 ? singular(onlyFound) : onlyFound}`;
      const converted = total - tally.missing;
      const [onlyAs] = tally.converted.size === 1 ? [...tally.converted.keys()] : [];
      const as = onlyAs ?? `${tally.kind === 'text' ? 'text' : `${tally.kind}s`}`;
      const example = tally.example === undefined ? '' : ` (${tally.example})`;
      const head = `${this.file}: column "${column}" holds ${found} where ${expectedText[tally.kind]} expected`;
      if (tally.missing === 0) return `${head}; ${total === 1 ? 'it was' : 'they were'} read as ${as}`;
      if (converted === 0) return `${head}; ${total === 1 ? 'it is' : 'they are'} not ${total === 1 ? singleOf[tally.kind] : `${tally.kind}s`}${example} and ${total === 1 ? 'was' : 'were'} read as missing`;
      return `${head}; ${converted} ${converted === 1 ? 'was' : 'were'} read as ${as} and ${tally.missing} that ${tally.missing === 1 ? 'is not one' : 'are not'}${example} as missing`;
    });
  }

  private idOf(column: string, value: unknown): string | undefined {
    if (typeof value === 'string') return value;
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (value === null || value === undefined) return undefined;
    return this.missing(column, 'id', value);
  }

  private tally(column: string, kind: ColumnKind, value: unknown): ColumnTally {
    let tally = this.tallies.get(column);
    if (tally === undefined) {
      tally = { kind, found: new Map(), converted: new Map(), missing: 0, example: undefined };
      this.tallies.set(column, tally);
    }
    const found = kindOf(value);
    tally.found.set(found, (tally.found.get(found) ?? 0) + 1);
    return tally;
  }

  private converted<T>(column: string, kind: ColumnKind, value: unknown, as: string, result: T): T {
    const tally = this.tally(column, kind, value);
    tally.converted.set(as, (tally.converted.get(as) ?? 0) + 1);
    return result;
  }

  private missing(column: string, kind: ColumnKind, value: unknown): undefined {
    const tally = this.tally(column, kind, value);
    tally.missing += 1;
    tally.example ??= shown(value);
    return undefined;
  }
}

/** What a value is, in the plural, for a warning. */
function kindOf(value: unknown): string {
  if (typeof value === 'string') return 'texts';
  if (typeof value === 'number' || typeof value === 'bigint') return 'numbers';
  if (typeof value === 'boolean') return 'booleans';
  if (value instanceof Date) return 'dates';
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return 'lists or binary values';
  return 'structs';
}

function singular(plural: string): string {
  return plural === 'lists or binary values' ? 'list or binary value' : plural.slice(0, -1);
}

/** A short rendering of a value read as missing: a text quoted and cut at 40 characters, a scalar as written. */
function shown(value: unknown): string | undefined {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** An item of a list or a field of a struct as text: numbers and booleans written out; undefined for anything else. */
export function textValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** An item of a list as a number (INT32, INT64, DOUBLE or numeric text); undefined for anything else. */
export function numberValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}
