import { join } from 'node:path';
import type { ChunkRecord, ClaimRecord, CommunityRecord, DocumentRecord, EntityRecord, RelationRecord, ReportRecord } from '../../core/types.js';
import type { TableRows } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { writeStreamedFile } from '../shared/write-streamed-file.js';
import { neo4jCypherScript } from './neo4j-cypher-script.js';
import type { Neo4jFile, Neo4jNodeFile, Neo4jPropertyType, Neo4jRelationshipFile, Neo4jValue } from './neo4j-file.js';
import { neo4jImportReadme, type Neo4jWrittenFile } from './neo4j-import-readme.js';
import { writeNeo4jCsv } from './write-neo4j-csv.js';

/** One CSV file of a Neo4j export. */
export interface Neo4jExportFile {
  file: string;
  kind: 'nodes' | 'relationships';
  /** The node label or relationship type. */
  name: string;
  rows: number;
}

/** What {@link writeNeo4jImport} wrote into its directory. */
export interface Neo4jExportSummary {
  directory: string;
  /** The CSV files, nodes first, in the order the README's command and the Cypher script name them. */
  files: Neo4jExportFile[];
  nodes: number;
  relationships: number;
  /** The Cypher script (constraints, then LOAD CSV statements), in `directory`. */
  script: string;
  /** The instructions, in `directory`. */
  readme: string;
}

/** Options of {@link writeNeo4jImport}. */
export interface Neo4jExportOptions {
  signal?: AbortSignal;
}

/** Chunks and documents are read this many at a time: their texts are most of an index. */
const textBatch = 500;

/**
 * Writes an index into `directory` as CSV files for `neo4j-admin database import full`, plus `import.cypher`
 * (the same graph through `LOAD CSV`, for a running database) and `README.txt` (both command lines). Nodes:
 * Entity, Chunk, Document, Community (with its report: title, summary, rating, findings, full content) and, when
 * the index has claims, Claim. Relationships: RELATED (entity–entity, from the relation's source to its target;
 * kgrag relations are undirected), MENTIONED_IN (entity→chunk), PART_OF (chunk→document), IN_COMMUNITY
 * (entity→community, with the community's level), CHILD_OF (community→parent), and for claims HAS_SUBJECT and
 * HAS_OBJECT (claim→entity, when the claim names an entity of the index) and EXTRACTED_FROM (claim→chunk). Rows
 * are written in index order, so the same index gives the same bytes.
 */
export async function writeNeo4jImport(store: Store, directory: string, options: Neo4jExportOptions = {}): Promise<Neo4jExportSummary> {
  const files = await neo4jFiles(store);
  const written: Neo4jWrittenFile[] = [];
  for (const spec of files) written.push({ spec, rows: await writeNeo4jCsv(directory, spec, options.signal) });
  const script = 'import.cypher';
  const readme = 'README.txt';
  await writeText(join(directory, script), 'the Neo4j import script', neo4jCypherScript(files), options.signal);
  await writeText(join(directory, readme), 'the Neo4j import instructions', neo4jImportReadme(written), options.signal);
  const count = (kind: Neo4jFile['kind']): number => written.filter(({ spec }) => spec.kind === kind).reduce((sum, { rows }) => sum + rows, 0);
  return {
    directory,
    files: written.map(({ spec, rows }) => ({ file: spec.file, kind: spec.kind, name: spec.kind === 'nodes' ? spec.label : spec.type, rows })),
    nodes: count('nodes'),
    relationships: count('relationships'),
    script,
    readme,
  };
}

async function writeText(path: string, what: string, text: string, signal: AbortSignal | undefined): Promise<void> {
  await writeStreamedFile(path, what, (sink) => sink.write(text), signal);
}

/** The files of the export of `store`, nodes first. */
async function neo4jFiles(store: Store): Promise<Neo4jFile[]> {
  const entities = await store.table('entities').all();
  const relations = await store.table('relations').all();
  const communities = await store.table('communities').pick(['id', 'level', 'parent', 'title', 'size', 'entityIds']);
  const reports = new Map((await store.table('reports').all()).map((report) => [report.communityId, report]));
  const claims = await store.table('claims').all();
  const entityIds = new Set(entities.map((entity) => entity.id));
  const communityRows: CommunityRow[] = communities.map((community) => ({ ...community, report: reports.get(community.id) }));

  const nodes: Neo4jNodeFile[] = [
    nodeFile<EntityRecord>({
      file: 'entities.csv',
      label: 'Entity',
      batches: () => once(entities),
      properties: stored({ title: 'string', type: 'string', description: 'string', aliases: 'string[]', frequency: 'int', degree: 'int' }),
    }),
    nodeFile<ChunkRecord>({
      file: 'chunks.csv',
      label: 'Chunk',
      batches: () => textRows(store, 'chunks'),
      properties: stored({ ordinal: 'int', nTokens: 'int', start: 'int', end: 'int', text: 'string' }),
    }),
    nodeFile<DocumentRecord>({
      file: 'documents.csv',
      label: 'Document',
      batches: () => textRows(store, 'documents'),
      properties: [
        ...stored<DocumentRecord>({ title: 'string', source: 'string', contentHash: 'string', createdAt: 'string' }),
        // Neo4j properties hold no maps: the metadata stays one JSON text.
        property('metadata', 'string', (document) => JSON.stringify(document.metadata)),
        ...stored<DocumentRecord>({ text: 'string' }),
      ],
    }),
    nodeFile<CommunityRow>({
      file: 'communities.csv',
      label: 'Community',
      batches: () => once(communityRows),
      properties: [
        ...stored<CommunityRow>({ level: 'int', title: 'string', size: 'int' }),
        // A community without a report has empty fields here, which both importers leave as no property.
        ...ofReport([
          property('reportTitle', 'string', (report) => report.title),
          ...stored<ReportRecord>({ summary: 'string', rating: 'double', ratingExplanation: 'string' }),
          property('findings', 'string', (report) => JSON.stringify(report.findings)),
          ...stored<ReportRecord>({ fullContent: 'string', generatedBy: 'string' }),
        ]),
      ],
    }),
  ];
  if (claims.length > 0) {
    nodes.push(
      nodeFile<ClaimRecord>({
        file: 'claims.csv',
        label: 'Claim',
        batches: () => once(claims),
        // `subject` and `object` as stored: the id of an entity of the index, else the name the claim gave.
        properties: stored({
          type: 'string',
          status: 'string',
          subject: 'string',
          object: 'string',
          startDate: 'string',
          endDate: 'string',
          description: 'string',
          sourceText: 'string',
        }),
      }),
    );
  }

  const links: Neo4jRelationshipFile[] = [
    relationshipFile<RelationRecord>({
      file: 'related.csv',
      type: 'RELATED',
      start: 'Entity',
      end: 'Entity',
      batches: () => once(relations),
      endpoints: (relation) => [relation.source, relation.target],
      properties: [
        ...stored<RelationRecord>({ id: 'string' }),
        hidProperty,
        ...stored<RelationRecord>({ weight: 'double', combinedDegree: 'int', description: 'string', keywords: 'string[]' }),
      ],
    }),
    pairFile('mentioned_in.csv', 'MENTIONED_IN', 'Entity', 'Chunk', () => once(entities.flatMap((entity) => entity.chunkIds.map((chunkId) => [entity.id, chunkId] as const)))),
    pairFile('part_of.csv', 'PART_OF', 'Chunk', 'Document', async function* () {
      yield (await store.table('chunks').pick(['id', 'documentId'])).map((chunk) => [chunk.id, chunk.documentId] as const);
    }),
    relationshipFile<{ entityId: string; community: CommunityRow }>({
      file: 'in_community.csv',
      type: 'IN_COMMUNITY',
      start: 'Entity',
      end: 'Community',
      batches: () => once(communityRows.flatMap((community) => community.entityIds.map((entityId) => ({ entityId, community })))),
      endpoints: ({ entityId, community }) => [entityId, community.id],
      properties: [property('level', 'int', ({ community }) => community.level)],
    }),
    pairFile('child_of.csv', 'CHILD_OF', 'Community', 'Community', () =>
      once(communities.flatMap((community) => (community.parent === null ? [] : [[community.id, community.parent] as const]))),
    ),
  ];
  if (claims.length > 0) {
    // Only claims about an entity of the index link to it: neo4j-admin refuses a relationship to a missing node.
    const about = (name: string | null): string[] => (name !== null && entityIds.has(name) ? [name] : []);
    links.push(
      pairFile('claim_subject.csv', 'HAS_SUBJECT', 'Claim', 'Entity', () => once(claims.flatMap((claim) => about(claim.subject).map((id) => [claim.id, id] as const)))),
      pairFile('claim_object.csv', 'HAS_OBJECT', 'Claim', 'Entity', () => once(claims.flatMap((claim) => about(claim.object).map((id) => [claim.id, id] as const)))),
      pairFile('claim_source.csv', 'EXTRACTED_FROM', 'Claim', 'Chunk', () => once(claims.map((claim) => [claim.id, claim.chunkId] as const))),
    );
  }
  return [...nodes, ...links];
}

/** A property column and how a row of type R gives its value. */
interface PropertyOf<R> {
  name: string;
  type: Neo4jPropertyType;
  value(row: R): Neo4jValue;
}

function property<R>(name: string, type: Neo4jPropertyType, value: (row: R) => Neo4jValue): PropertyOf<R> {
  return { name, type, value };
}

/** Columns of a record written as they are stored, under their own names, in the order given. */
function stored<R>(types: { [K in keyof R]?: Neo4jPropertyType }): Array<PropertyOf<R>> {
  return Object.entries(types).map(([name, type]) => property(name, type as Neo4jPropertyType, (row: R) => row[name as keyof R] as Neo4jValue));
}

/** A community as the export reads it: its row, and its report when it has one. */
type CommunityRow = Pick<CommunityRecord, 'id' | 'hid' | 'level' | 'parent' | 'title' | 'size' | 'entityIds'> & { report: ReportRecord | undefined };

/** Report properties of a community, each absent (an empty field) when the community has no report. */
function ofReport(properties: ReadonlyArray<PropertyOf<ReportRecord>>): Array<PropertyOf<CommunityRow>> {
  return properties.map(({ name, type, value }) => property(name, type, (community) => (community.report === undefined ? null : value(community.report))));
}

/** Every table exported as nodes numbers its rows; answers cite entities, relations and chunks by that number. */
const hidProperty: PropertyOf<{ hid?: number }> = property('hid', 'int', (row) => row.hid ?? null);

/** A node per row, identified by the row's kgrag id, with its `hid` as the first property. */
function nodeFile<R extends { id: string; hid?: number }>(spec: {
  file: string;
  label: string;
  batches: () => AsyncIterable<readonly R[]>;
  properties: ReadonlyArray<PropertyOf<R>>;
}): Neo4jNodeFile {
  const properties = [hidProperty, ...spec.properties];
  return {
    kind: 'nodes',
    file: spec.file,
    label: spec.label,
    properties: properties.map(({ name, type }) => ({ name, type })),
    async *rows() {
      for await (const batch of spec.batches()) yield batch.map((row) => ({ id: row.id, values: properties.map((each) => each.value(row)) }));
    },
  };
}

function relationshipFile<R>(spec: {
  file: string;
  type: string;
  start: string;
  end: string;
  batches: () => AsyncIterable<readonly R[]>;
  endpoints: (row: R) => readonly [string, string];
  properties: ReadonlyArray<PropertyOf<R>>;
}): Neo4jRelationshipFile {
  return {
    kind: 'relationships',
    file: spec.file,
    type: spec.type,
    start: spec.start,
    end: spec.end,
    properties: spec.properties.map(({ name, type }) => ({ name, type })),
    async *rows() {
      for await (const batch of spec.batches()) {
        yield batch.map((row) => {
          const [start, end] = spec.endpoints(row);
          return { start, end, values: spec.properties.map((each) => each.value(row)) };
        });
      }
    },
  };
}

/** Relationships without properties, given as (start id, end id) pairs. */
function pairFile(
  file: string,
  type: string,
  start: string,
  end: string,
  batches: () => AsyncIterable<ReadonlyArray<readonly [string, string]>>,
): Neo4jRelationshipFile {
  return relationshipFile({ file, type, start, end, batches, endpoints: (pair) => pair, properties: [] });
}

async function* once<R>(rows: readonly R[]): AsyncGenerator<readonly R[]> {
  yield rows;
}

/** Rows of a table with long texts, in index order, a batch at a time. */
async function* textRows<T extends 'chunks' | 'documents'>(store: Store, table: T): AsyncGenerator<Array<TableRows[T]>> {
  const ids = (await store.table<'chunks' | 'documents'>(table).pick(['id'])).map((row) => row.id);
  for (let offset = 0; offset < ids.length; offset += textBatch) yield await store.table(table).get(ids.slice(offset, offset + textBatch));
}
