/*
 * Issue 21: which parquet library kgrag reads and writes GraphRAG's tables with. Compares hyparquet (+ hyparquet-writer,
 * hyparquet-compressors: pure JavaScript) with parquet-wasm (arrow-rs compiled to WebAssembly, used through
 * apache-arrow) on the real GraphRAG 1.x output of ../shared/datasets/graphrag-output and on a synthetic entities
 * table of 100,000 rows in GraphRAG's shape (seeded): read to row objects, write with snappy, file size, and the
 * size each installs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Field, List, Table as ArrowTable, tableFromIPC, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { Compression, Table as WasmTable, WriterPropertiesBuilder, readParquet, writeParquet } from 'parquet-wasm';
import { createRandom } from '../src/core/random.js';
import { parquetTableBytes } from '../src/interop/parquet/write-parquet-table.js';
import { folderBytes, result, sharedDatasets, type BenchResult } from './bench-utils.js';

const rows = 100_000;

interface EntityColumns {
  id: string[];
  title: string[];
  type: string[];
  description: string[];
  text_unit_ids: string[][];
}

function syntheticEntities(): EntityColumns {
  const random = createRandom(21);
  const words = ['river', 'bridge', 'weir', 'agent', 'signal', 'base', 'mission', 'council', 'harbour', 'ferry', 'mill', 'tower', 'keeper', 'flood', 'archive'];
  const word = (): string => words[Math.floor(random() * words.length)] as string;
  const columns: EntityColumns = { id: [], title: [], type: [], description: [], text_unit_ids: [] };
  for (let index = 0; index < rows; index++) {
    columns.id.push(`entity-${index.toString(16).padStart(8, '0')}`);
    columns.title.push(`${word().toUpperCase()} ${word().toUpperCase()} ${index}`);
    columns.type.push(['PERSON', 'ORGANIZATION', 'GEO', 'EVENT'][index % 4] as string);
    columns.description.push(Array.from({ length: 40 }, word).join(' '));
    columns.text_unit_ids.push(Array.from({ length: 3 }, (_, unit) => `unit-${(index * 3 + unit) % 20_000}`));
  }
  return columns;
}

function hyparquetWrite(columns: EntityColumns): Uint8Array {
  return new Uint8Array(
    parquetTableBytes([
      { name: 'id', type: 'string', data: columns.id },
      { name: 'title', type: 'string', data: columns.title },
      { name: 'type', type: 'string', data: columns.type },
      { name: 'description', type: 'string', data: columns.description },
      { name: 'text_unit_ids', type: 'string-list', data: columns.text_unit_ids },
    ]),
  );
}

function parquetWasmWrite(columns: EntityColumns): Uint8Array {
  const table = new ArrowTable({
    id: vectorFromArray(columns.id, new Utf8()),
    title: vectorFromArray(columns.title, new Utf8()),
    type: vectorFromArray(columns.type, new Utf8()),
    description: vectorFromArray(columns.description, new Utf8()),
    text_unit_ids: vectorFromArray(columns.text_unit_ids, new List(new Field('element', new Utf8(), true))),
  });
  const properties = new WriterPropertiesBuilder().setCompression(Compression.SNAPPY).build();
  return writeParquet(WasmTable.fromIPCStream(tableToIPC(table, 'stream')), properties);
}

function parquetWasmRead(bytes: Uint8Array): number {
  const table = tableFromIPC(readParquet(bytes).intoIPCStream());
  return table.toArray().map((row) => row.toJSON()).length;
}

async function hyparquetRead(bytes: Uint8Array): Promise<number> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await parquetReadObjects({ file: buffer, compressors })).length;
}

/** Bytes on disk of installed packages (their folders under node_modules). */
function installedKb(packages: readonly string[]): number {
  return Math.round(packages.reduce((sum, name) => sum + folderBytes(join('node_modules', name)), 0) / 1024);
}

async function time(work: () => unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

export async function benchParquet(runs: number): Promise<Record<string, BenchResult>> {
  const folder = join(sharedDatasets, 'graphrag-output', 'operation-dulce-v1');
  const dulce = readdirSync(folder).filter((name) => name.endsWith('.parquet')).map((name) => new Uint8Array(readFileSync(join(folder, name))));
  const columns = syntheticEntities();
  const timings: Record<string, number[]> = {};
  const add = (name: string, value: number): void => {
    (timings[name] ??= []).push(value);
  };
  let hyparquetBytes = hyparquetWrite(columns);
  let wasmBytes = parquetWasmWrite(columns);
  for (let run = 0; run < runs; run++) {
    process.stderr.write(`parquet: run ${run + 1} of ${runs}\n`);
    add('hyparquet_read_dulce_ms', await time(async () => { for (const bytes of dulce) await hyparquetRead(bytes); }));
    add('parquetwasm_read_dulce_ms', await time(() => { for (const bytes of dulce) parquetWasmRead(bytes); }));
    add('hyparquet_read_100k_ms', await time(() => hyparquetRead(wasmBytes)));
    add('parquetwasm_read_100k_ms', await time(() => parquetWasmRead(wasmBytes)));
    add('hyparquet_write_100k_ms', await time(() => { hyparquetBytes = hyparquetWrite(columns); }));
    add('parquetwasm_write_100k_ms', await time(() => { wasmBytes = parquetWasmWrite(columns); }));
  }
  if ((await hyparquetRead(hyparquetBytes)) !== rows || parquetWasmRead(hyparquetBytes) !== rows) throw new Error('a library could not read the other one\'s file');
  const results: Record<string, BenchResult> = Object.fromEntries(Object.entries(timings).map(([name, values]) => [name, result(values.map((value) => Math.round(value)), 'ms')]));
  results.hyparquet_write_100k_mb = result([Number((hyparquetBytes.byteLength / 2 ** 20).toFixed(2))], 'MB');
  results.parquetwasm_write_100k_mb = result([Number((wasmBytes.byteLength / 2 ** 20).toFixed(2))], 'MB');
  results.hyparquet_install_kb = result([installedKb(['hyparquet', 'hyparquet-writer', 'hyparquet-compressors', 'hysnappy', 'fzstd'])], 'KB');
  results.parquetwasm_install_kb = result([installedKb(['parquet-wasm', 'apache-arrow', 'flatbuffers', 'json-with-bigint'])], 'KB');
  return results;
}
