import { KgragError } from '../../core/errors.js';
import type { AnyTableSpec, ColumnSpec } from '../schema.js';

/**
 * A row's value of one column as a driver sends it: json columns as JSON text, a missing value as null where the
 * column is nullable. Both drivers encode alike, so a row reads back the same from either.
 * @throws KgragError `STORE_MISSING_COLUMN` when a required value is missing.
 */
export function encodeColumnValue(spec: AnyTableSpec, name: string, column: ColumnSpec, value: unknown): unknown {
  if (column.type === 'json' && value !== undefined) return JSON.stringify(value);
  if (value !== undefined && value !== null) return value;
  if (column.nullable) return null;
  throw new KgragError(`${spec.sqlName}.${name} is required but missing`, {
    code: 'STORE_MISSING_COLUMN',
    category: 'internal',
    details: { table: spec.sqlName, column: name },
  });
}
