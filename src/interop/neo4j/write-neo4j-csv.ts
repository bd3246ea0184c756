import { join } from 'node:path';
import { writeStreamedFile } from '../shared/write-streamed-file.js';
import type { Neo4jFile, Neo4jProperty, Neo4jValue } from './neo4j-file.js';

/** `neo4j-admin`'s default array delimiter, passed explicitly by the README's command line and split on by the Cypher script. */
export const neo4jArrayDelimiter = ';';

/**
 * Writes one file of a Neo4j export to `directory` and returns its number of rows. The header uses the forms
 * `neo4j-admin database import` documents (`id:ID(Label)`, `:START_ID(Label)`, `:END_ID(Label)`, `name:int`,
 * `name:string[]`, `:LABEL`, `:TYPE`), so the file needs no separate header file. Quoting is RFC 4180: every text
 * field (ids, labels and types too) is in double quotes with quotes doubled, so commas and line breaks stay inside
 * their field (the import needs `--multiline-fields=true`); numbers are bare; a missing value is an empty
 * unquoted field, which both `neo4j-admin` and `LOAD CSV` read as no property.
 */
export async function writeNeo4jCsv(directory: string, spec: Neo4jFile, signal?: AbortSignal): Promise<number> {
  let rows = 0;
  await writeStreamedFile(
    join(directory, spec.file),
    `the Neo4j file ${spec.file}`,
    async (sink) => {
      await sink.write(`${neo4jHeader(spec).join(',')}\n`);
      const marker = quoted(spec.kind === 'nodes' ? spec.label : spec.type);
      if (spec.kind === 'nodes') {
        for await (const batch of spec.rows()) {
          for (const row of batch) await sink.write(`${[quoted(row.id), ...fields(spec.properties, row.values), marker].join(',')}\n`);
          rows += batch.length;
        }
      } else {
        for await (const batch of spec.rows()) {
          for (const row of batch) await sink.write(`${[quoted(row.start), quoted(row.end), ...fields(spec.properties, row.values), marker].join(',')}\n`);
          rows += batch.length;
        }
      }
    },
    signal,
  );
  return rows;
}

/** The header fields of a file, as `neo4j-admin` reads them and as `LOAD CSV WITH HEADERS` names the row's keys. */
export function neo4jHeader(spec: Neo4jFile): string[] {
  const properties = spec.properties.map((property) => (property.type === 'string' ? property.name : `${property.name}:${property.type}`));
  return spec.kind === 'nodes' ? [`id:ID(${spec.label})`, ...properties, ':LABEL'] : [`:START_ID(${spec.start})`, `:END_ID(${spec.end})`, ...properties, ':TYPE'];
}

function fields(properties: readonly Neo4jProperty[], values: readonly Neo4jValue[]): string[] {
  return properties.map((_property, index) => field(values[index] ?? null));
}

function field(value: Neo4jValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'string') return quoted(value);
  // No escape exists for the array delimiter inside an element: an element's own ';' becomes ',' rather than splitting it in two.
  return value.length === 0 ? '' : quoted(value.map((element) => element.replaceAll(neo4jArrayDelimiter, ',')).join(neo4jArrayDelimiter));
}

function quoted(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
