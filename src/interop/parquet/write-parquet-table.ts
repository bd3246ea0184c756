import type { SchemaElement } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { writeStreamedFile } from '../shared/write-streamed-file.js';

/** The column types kgrag writes: what pandas gives GraphRAG's tables (object strings, int64, float64, lists). */
export type ParquetColumnType = 'string' | 'int64' | 'double' | 'string-list' | 'int64-list' | 'findings';

/** One column of a table to write: its name, type, and one value per row (null for a missing value). */
export interface ParquetColumn {
  name: string;
  type: ParquetColumnType;
  data: unknown[];
}

const stringElement = (name: string): SchemaElement => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' }, repetition_type: 'OPTIONAL' });

/** The schema elements of a column: lists as the three-level LIST that pyarrow writes (`list` / `element`). */
function schemaOf(column: ParquetColumn): SchemaElement[] {
  const list = (children: SchemaElement[], elementChildren = 0): SchemaElement[] => [
    { name: column.name, repetition_type: 'OPTIONAL', converted_type: 'LIST', logical_type: { type: 'LIST' }, num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    ...(elementChildren > 0 ? [{ name: 'element', repetition_type: 'OPTIONAL', num_children: elementChildren } as SchemaElement] : []),
    ...children,
  ];
  switch (column.type) {
    case 'string':
      return [stringElement(column.name)];
    case 'int64':
      return [{ name: column.name, type: 'INT64', repetition_type: 'OPTIONAL' }];
    case 'double':
      return [{ name: column.name, type: 'DOUBLE', repetition_type: 'OPTIONAL' }];
    case 'string-list':
      return list([stringElement('element')]);
    case 'int64-list':
      return list([{ name: 'element', type: 'INT64', repetition_type: 'OPTIONAL' }]);
    case 'findings':
      return list([stringElement('explanation'), stringElement('summary')], 2);
  }
}

function valuesOf(column: ParquetColumn): unknown[] {
  if (column.type === 'int64') return column.data.map((value) => (typeof value === 'number' ? BigInt(Math.trunc(value)) : null));
  if (column.type === 'int64-list') return column.data.map((value) => (Array.isArray(value) ? value.map((item: number) => BigInt(Math.trunc(item))) : null));
  return column.data;
}

/** A table as the bytes of a parquet file (snappy-compressed). */
export function parquetTableBytes(columns: readonly ParquetColumn[], metadata: ReadonlyArray<{ key: string; value: string }> = []): ArrayBuffer {
  const schema: SchemaElement[] = [{ name: 'schema', num_children: columns.length }, ...columns.flatMap(schemaOf)];
  return parquetWriteBuffer({
    columnData: columns.map((column) => ({ name: column.name, data: valuesOf(column) })),
    schema,
    // An empty key-value list (rather than none) makes arrow-rs misread every LIST column's schema.
    ...(metadata.length > 0 ? { kvMetadata: [...metadata] } : {}),
    createdBy: 'kgrag',
  });
}

/**
 * Writes a table as a parquet file (snappy-compressed, as GraphRAG writes its own), whole or not at all
 * ({@link writeStreamedFile}); `what` names it in errors. Returns the file's size.
 */
export async function writeParquetTable(path: string, what: string, columns: readonly ParquetColumn[], metadata: ReadonlyArray<{ key: string; value: string }> = []): Promise<number> {
  const bytes = new Uint8Array(parquetTableBytes(columns, metadata));
  await writeStreamedFile(path, what, (sink) => sink.write(bytes));
  return bytes.byteLength;
}
