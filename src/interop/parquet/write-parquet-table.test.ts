import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tableFromIPC } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { readParquet } from 'parquet-wasm';
import { parquetTableBytes, type ParquetColumn } from './write-parquet-table.js';

const columns: ParquetColumn[] = [
  { name: 'id', type: 'string', data: ['a', 'b', null] },
  { name: 'n', type: 'int64', data: [1, 2, null] },
  { name: 'weight', type: 'double', data: [0.5, 2, null] },
  { name: 'ids', type: 'string-list', data: [['x', 'y'], [], null] },
  { name: 'children', type: 'int64-list', data: [[7, 8], [], null] },
  { name: 'findings', type: 'findings', data: [[{ explanation: 'because', summary: 'it is' }], [], null] },
];

for (const metadata of [[], [{ key: 'written-by', value: 'kgrag' }]]) {
  test(`a table ${metadata.length === 0 ? 'without' : 'with'} key-value metadata reads back in arrow-rs and in hyparquet`, async () => {
    const bytes = parquetTableBytes(columns, metadata);
    // arrow-rs (what pyarrow's sibling implementations share the format with) once misread every LIST column of a
    // file written with an empty key-value list.
    const arrow = tableFromIPC(readParquet(new Uint8Array(bytes)).intoIPCStream());
    assert.deepEqual(
      arrow.schema.fields.map((field) => `${field.name}:${String(field.type)}`),
      ['id:Utf8', 'n:Int64', 'weight:Float64', 'ids:List<Utf8>', 'children:List<Int64>', 'findings:List<Struct<{explanation:Utf8, summary:Utf8}>>'],
    );
    const first = arrow.get(0)?.toJSON() as Record<string, unknown>;
    assert.deepEqual([first.id, first.n, first.weight, Array.from(first.ids as Iterable<string>)], ['a', 1n, 0.5, ['x', 'y']]);
    const rows = (await parquetReadObjects({ file: bytes })) as Array<Record<string, unknown>>;
    assert.deepEqual(rows[0], { id: 'a', n: 1n, weight: 0.5, ids: ['x', 'y'], children: [7n, 8n], findings: [{ explanation: 'because', summary: 'it is' }] });
    assert.deepEqual([rows[2]?.id, rows[2]?.n, rows[2]?.ids ?? null], [null, null, null]);
  });
}
