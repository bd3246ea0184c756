import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { appendAll } from '../../core/append-all.js';
import { KgragError } from '../../core/errors.js';
import { sha256 } from '../../core/ids.js';
import { boundMetadataDepth, maxMetadataDepth } from '../../text/load/bound-metadata-depth.js';
import { listWithMore } from '../../text/load/list-with-more.js';
import { graphragTableFiles, type GraphragCommunity, type GraphragCommunityReport, type GraphragCovariate, type GraphragDocument, type GraphragEntity, type GraphragFinding, type GraphragRelationship, type GraphragTableName, type GraphragTables, type GraphragTextUnit } from './graphrag-tables.js';
import { numberValue, ParquetRows, textValue } from './parquet-rows.js';

/** One GraphRAG output folder, read. */
export interface GraphragOutput {
  /** The folder the tables were read from (a project folder's `output/` when given the project). */
  directory: string;
  /** `1.x` for the `create_final_*` file names, `2.x` for the plain ones. */
  generation: '1.x' | '2.x';
  tables: GraphragTables;
  /** Each table's file and its SHA-256, so that a second import of unchanged files changes nothing. */
  files: Partial<Record<GraphragTableName, { path: string; sha256: string }>>;
  /** Rows left out, and why (a row without the value that makes it a row); one line per kind of problem. */
  warnings: string[];
}

const requiredTables: readonly GraphragTableName[] = ['documents', 'textUnits', 'entities', 'relationships'];

/** The file of a table in `directory`: the 2.x name, else the 1.x `create_final_` one. */
function tableFile(directory: string, table: GraphragTableName): { path: string; generation: '1.x' | '2.x' } | undefined {
  const stem = graphragTableFiles[table];
  const plain = join(directory, `${stem}.parquet`);
  if (existsSync(plain)) return { path: plain, generation: '2.x' };
  const final = join(directory, `create_final_${stem}.parquet`);
  if (existsSync(final)) return { path: final, generation: '1.x' };
  return undefined;
}

/** The folder holding the tables: the one given, or the `output/` folder of a GraphRAG project. */
function outputDirectory(given: string): string {
  const directory = resolve(given);
  if (!existsSync(directory)) {
    throw new KgragError(`GraphRAG output folder ${directory} does not exist`, {
      code: 'IMPORT_NOT_FOUND',
      category: 'input',
      hint: 'pass the folder GraphRAG wrote its parquet files to (its `output/` folder, or the project folder that holds it)',
      details: { path: directory },
    });
  }
  if (!statSync(directory).isDirectory()) {
    throw new KgragError(`${directory} is a file; kgrag imports a GraphRAG output folder`, {
      code: 'IMPORT_NOT_A_FOLDER',
      category: 'input',
      hint: 'pass the folder that holds entities.parquet (or create_final_entities.parquet), not one of its files',
      details: { path: directory },
    });
  }
  if (tableFile(directory, 'entities') === undefined && tableFile(join(directory, 'output'), 'entities') !== undefined) return join(directory, 'output');
  return directory;
}

async function readTable(path: string): Promise<{ rows: ParquetRows; sha256: string }> {
  const bytes = await readFile(path);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  try {
    const metadata = parquetMetadata(buffer);
    const columns = parquetSchema(metadata).children.map((child) => child.element.name);
    const rows = (await parquetReadObjects({ file: buffer, metadata, compressors })) as Array<Record<string, unknown>>;
    return { rows: new ParquetRows(path, rows, columns), sha256: sha256(bytes) };
  } catch (error) {
    throw new KgragError(`${path} could not be read as a parquet file: ${error instanceof Error ? error.message : String(error)}`, {
      code: 'IMPORT_BAD_PARQUET',
      category: 'input',
      hint: 'check that the file is complete (a copy cut short or a Git LFS pointer is not a parquet file) and was written by GraphRAG',
      details: { path },
      cause: error,
    });
  }
}

/** The `kgrag_id` of a row kgrag exported, as an optional property. */
function kgragIdOf(table: ParquetRows, row: Record<string, unknown>, column: string | undefined): { kgragId?: string } {
  const id = table.id(row, column);
  return id === undefined ? {} : { kgragId: id };
}

/** Counts rows left out by reason, for one warning line per reason, and keeps other warnings about rows. */
class SkippedRows {
  private readonly counts = new Map<string, number>();
  private readonly notes: string[] = [];

  add(reason: string): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
  }

  note(line: string): void {
    this.notes.push(line);
  }

  lines(): string[] {
    return [...[...this.counts].map(([reason, count]) => `${count} ${reason}`), ...this.notes];
  }
}

function readDocuments(table: ParquetRows, skipped: SkippedRows): GraphragDocument[] {
  const id = table.require('id');
  const text = table.require('text');
  const title = table.firstOf('title');
  const textUnitIds = table.firstOf('text_unit_ids');
  const creationDate = table.firstOf('creation_date');
  const metadata = table.firstOf('metadata', 'raw_data', 'attributes');
  const humanReadableId = table.firstOf('human_readable_id');
  const documents: GraphragDocument[] = [];
  const deepMetadata: string[] = [];
  for (const row of table.rows) {
    const documentId = table.id(row, id);
    const documentText = table.text(row, text);
    if (documentId === undefined || documentText === undefined) {
      skipped.add(`documents without an id or text (${table.file})`);
      continue;
    }
    // A JSON column is parsed by the reader, to any depth; what is stored must be JSON that encodes without overflowing.
    const bounded = boundMetadataDepth({ metadata: metadata === undefined ? null : (row[metadata] ?? null) });
    if (bounded.cut > 0) deepMetadata.push(documentId);
    documents.push({
      id: documentId,
      humanReadableId: table.number(row, humanReadableId) ?? null,
      title: table.text(row, title) ?? documentId,
      text: documentText,
      textUnitIds: table.ids(row, textUnitIds),
      creationDate: table.text(row, creationDate) ?? null,
      metadata: jsonSafe(bounded.metadata['metadata']),
    });
  }
  if (deepMetadata.length > 0) {
    skipped.note(`${table.file}: the metadata of ${deepMetadata.length === 1 ? 'document' : 'documents'} ${listWithMore(deepMetadata)} ${deepMetadata.length === 1 ? 'nests' : 'nest'} deeper than ${maxMetadataDepth} levels, so the deeper values were read as null`);
  }
  return documents;
}

/** A value with its INT64 numbers (bigints, which JSON cannot encode) as numbers. */
function jsonSafe(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? Number(value) : value;
  return JSON.parse(JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? Number(item) : item)));
}

function readTextUnits(table: ParquetRows, skipped: SkippedRows): GraphragTextUnit[] {
  const id = table.require('id');
  const text = table.require('text', 'chunk');
  const documentIds = table.require('document_id', 'document_ids');
  const nTokens = table.firstOf('n_tokens');
  const humanReadableId = table.firstOf('human_readable_id');
  const units: GraphragTextUnit[] = [];
  for (const row of table.rows) {
    const unitId = table.id(row, id);
    const unitText = table.text(row, text);
    if (unitId === undefined || unitText === undefined) {
      skipped.add(`text units without an id or text (${table.file})`);
      continue;
    }
    units.push({
      id: unitId,
      humanReadableId: table.number(row, humanReadableId) ?? null,
      text: unitText,
      nTokens: table.number(row, nTokens) ?? null,
      documentIds: unitDocumentIds(table, row, documentIds),
    });
  }
  return units;
}

/** Newer outputs name one document (`document_id`), older ones a list (`document_ids`); either column may hold either. */
function unitDocumentIds(table: ParquetRows, row: Record<string, unknown>, column: string): string[] {
  if (column === 'document_ids' || Array.isArray(row[column])) return table.ids(row, column);
  const id = table.id(row, column);
  return id === undefined ? [] : [id];
}

function readEntities(table: ParquetRows, skipped: SkippedRows): GraphragEntity[] {
  const id = table.require('id');
  const title = table.require('title', 'name');
  const type = table.firstOf('type');
  const description = table.firstOf('description');
  const textUnitIds = table.firstOf('text_unit_ids');
  const kgragId = table.firstOf('kgrag_id');
  const aliases = table.firstOf('aliases');
  const columns = { humanReadableId: table.firstOf('human_readable_id'), frequency: table.firstOf('frequency'), degree: table.firstOf('degree'), x: table.firstOf('x'), y: table.firstOf('y') };
  const entities: GraphragEntity[] = [];
  for (const row of table.rows) {
    const entityId = table.id(row, id);
    const entityTitle = table.text(row, title);
    if (entityId === undefined || entityTitle === undefined || entityTitle === '') {
      skipped.add(`entities without an id or title (${table.file})`);
      continue;
    }
    entities.push({
      id: entityId,
      ...kgragIdOf(table, row, kgragId),
      ...(aliases === undefined ? {} : { aliases: table.list(row, aliases).flatMap((alias) => textValue(alias) ?? []) }),
      humanReadableId: table.number(row, columns.humanReadableId) ?? null,
      title: entityTitle,
      type: table.text(row, type) ?? '',
      description: table.text(row, description) ?? '',
      textUnitIds: table.ids(row, textUnitIds),
      frequency: table.number(row, columns.frequency) ?? null,
      degree: table.number(row, columns.degree) ?? null,
      x: table.number(row, columns.x) ?? null,
      y: table.number(row, columns.y) ?? null,
    });
  }
  return entities;
}

function readRelationships(table: ParquetRows, skipped: SkippedRows): GraphragRelationship[] {
  const source = table.require('source');
  const target = table.require('target');
  const id = table.firstOf('id');
  const description = table.firstOf('description');
  const weight = table.firstOf('weight');
  const combinedDegree = table.firstOf('combined_degree', 'rank');
  const textUnitIds = table.firstOf('text_unit_ids');
  const humanReadableId = table.firstOf('human_readable_id');
  const relationships: GraphragRelationship[] = [];
  for (const [index, row] of table.rows.entries()) {
    const from = table.text(row, source);
    const to = table.text(row, target);
    if (from === undefined || to === undefined) {
      skipped.add(`relationships without a source or target (${table.file})`);
      continue;
    }
    relationships.push({
      // Without an id column, the row's position names it (stable for one file).
      id: table.id(row, id) ?? `row-${index}`,
      humanReadableId: table.number(row, humanReadableId) ?? null,
      source: from,
      target: to,
      description: table.text(row, description) ?? '',
      weight: table.number(row, weight) ?? 1,
      combinedDegree: table.number(row, combinedDegree) ?? null,
      textUnitIds: table.ids(row, textUnitIds),
    });
  }
  return relationships;
}

function readCommunities(table: ParquetRows, skipped: SkippedRows): GraphragCommunity[] {
  const community = table.require('community', 'id');
  const level = table.require('level');
  const entityIds = table.require('entity_ids');
  const id = table.firstOf('id');
  const parent = table.firstOf('parent');
  const children = table.firstOf('children');
  const title = table.firstOf('title');
  const relationshipIds = table.firstOf('relationship_ids');
  const textUnitIds = table.firstOf('text_unit_ids');
  const period = table.firstOf('period');
  const size = table.firstOf('size');
  const humanReadableId = table.firstOf('human_readable_id');
  const kgragId = table.firstOf('kgrag_id');
  const communities: GraphragCommunity[] = [];
  for (const row of table.rows) {
    const number = table.number(row, community);
    const depth = table.number(row, level);
    if (number === undefined || depth === undefined) {
      skipped.add(`communities without a community number or level (${table.file})`);
      continue;
    }
    const parentNumber = table.number(row, parent);
    communities.push({
      id: table.id(row, id) ?? String(number),
      ...kgragIdOf(table, row, kgragId),
      humanReadableId: table.number(row, humanReadableId) ?? null,
      community: number,
      level: depth,
      parent: parentNumber === undefined || parentNumber < 0 ? null : parentNumber,
      children: children === undefined ? null : table.list(row, children).flatMap((child) => numberValue(child) ?? []),
      title: table.text(row, title) ?? `Community ${number}`,
      entityIds: table.ids(row, entityIds),
      relationshipIds: table.ids(row, relationshipIds),
      textUnitIds: table.ids(row, textUnitIds),
      period: table.text(row, period) ?? null,
      size: table.number(row, size) ?? null,
    });
  }
  return communities;
}

function findingsValue(items: readonly unknown[]): GraphragFinding[] {
  return items.flatMap((item) => {
    if (typeof item !== 'object' || item === null) return [];
    const finding = item as Record<string, unknown>;
    return [{ summary: textValue(finding.summary) ?? '', explanation: textValue(finding.explanation) ?? '' }];
  });
}

function readCommunityReports(table: ParquetRows, skipped: SkippedRows): GraphragCommunityReport[] {
  const community = table.require('community');
  const fullContent = table.require('full_content');
  const columns = {
    id: table.firstOf('id'),
    humanReadableId: table.firstOf('human_readable_id'),
    level: table.firstOf('level'),
    title: table.firstOf('title'),
    summary: table.firstOf('summary'),
    rank: table.firstOf('rank', 'rating'),
    ratingExplanation: table.firstOf('rating_explanation', 'rank_explanation'),
    findings: table.firstOf('findings'),
    fullContentJson: table.firstOf('full_content_json'),
    period: table.firstOf('period'),
    size: table.firstOf('size'),
    generatedBy: table.firstOf('kgrag_generated_by'),
  };
  const reports: GraphragCommunityReport[] = [];
  for (const row of table.rows) {
    const communityNumber = table.number(row, community);
    const content = table.text(row, fullContent);
    if (communityNumber === undefined || content === undefined) {
      skipped.add(`community reports without a community number or full content (${table.file})`);
      continue;
    }
    reports.push({
      id: table.id(row, columns.id) ?? String(communityNumber),
      humanReadableId: table.number(row, columns.humanReadableId) ?? null,
      community: communityNumber,
      level: table.number(row, columns.level) ?? 0,
      title: table.text(row, columns.title) ?? `Community ${communityNumber}`,
      summary: table.text(row, columns.summary) ?? '',
      fullContent: content,
      rank: table.number(row, columns.rank) ?? null,
      ratingExplanation: table.text(row, columns.ratingExplanation) ?? '',
      findings: findingsValue(table.list(row, columns.findings)),
      fullContentJson: table.text(row, columns.fullContentJson) ?? null,
      period: table.text(row, columns.period) ?? null,
      size: table.number(row, columns.size) ?? null,
      ...(table.text(row, columns.generatedBy) === 'extractive' ? { generatedBy: 'extractive' as const } : {}),
    });
  }
  return reports;
}

function readCovariates(table: ParquetRows, skipped: SkippedRows): GraphragCovariate[] {
  const subject = table.require('subject_id');
  const textUnit = table.require('text_unit_id');
  const description = table.require('description');
  const columns = {
    id: table.firstOf('id'),
    humanReadableId: table.firstOf('human_readable_id'),
    covariateType: table.firstOf('covariate_type'),
    type: table.firstOf('type'),
    object: table.firstOf('object_id'),
    status: table.firstOf('status'),
    startDate: table.firstOf('start_date'),
    endDate: table.firstOf('end_date'),
    sourceText: table.firstOf('source_text'),
    kgragId: table.firstOf('kgrag_id'),
  };
  const covariates: GraphragCovariate[] = [];
  for (const [index, row] of table.rows.entries()) {
    const subjectId = table.text(row, subject);
    const textUnitId = table.id(row, textUnit);
    if (subjectId === undefined || textUnitId === undefined) {
      skipped.add(`claims without a subject or text unit (${table.file})`);
      continue;
    }
    covariates.push({
      id: table.id(row, columns.id) ?? `row-${index}`,
      ...kgragIdOf(table, row, columns.kgragId),
      humanReadableId: table.number(row, columns.humanReadableId) ?? null,
      covariateType: table.text(row, columns.covariateType) ?? 'claim',
      type: table.text(row, columns.type) ?? '',
      description: table.text(row, description) ?? '',
      subjectId,
      objectId: table.text(row, columns.object) ?? null,
      status: table.text(row, columns.status) ?? 'SUSPECTED',
      startDate: table.text(row, columns.startDate) ?? null,
      endDate: table.text(row, columns.endDate) ?? null,
      sourceText: table.text(row, columns.sourceText) ?? '',
      textUnitId,
    });
  }
  return covariates;
}

/**
 * Reads the output folder of a Microsoft GraphRAG index (1.x `create_final_*.parquet` or 2.x `*.parquet`): documents,
 * text units, entities and relationships are required; communities, community reports and covariates are read when
 * present. Columns are read by name; see {@link ParquetRows} for the variations accepted.
 */
export async function readGraphragOutput(given: string): Promise<GraphragOutput> {
  const directory = outputDirectory(given);
  const located = Object.fromEntries(
    (Object.keys(graphragTableFiles) as GraphragTableName[]).map((table) => [table, tableFile(directory, table)]),
  ) as Record<GraphragTableName, { path: string; generation: '1.x' | '2.x' } | undefined>;
  const missing = requiredTables.filter((table) => located[table] === undefined);
  if (missing.length > 0) {
    const names = missing.map((table) => `${graphragTableFiles[table]}.parquet`);
    throw new KgragError(`${directory} is not a GraphRAG output folder: it has no ${names.join(', ')} (nor their 1.x names create_final_*.parquet)`, {
      code: missing.length === requiredTables.length ? 'IMPORT_NOT_GRAPHRAG' : 'IMPORT_MISSING_TABLE',
      category: 'input',
      hint: 'pass the folder GraphRAG wrote its tables to (usually `output/` in the GraphRAG project), after `graphrag index` completed',
      details: { directory, missing: names },
    });
  }
  const skipped = new SkippedRows();
  const files: GraphragOutput['files'] = {};
  const columnWarnings: string[] = [];
  const read = async <T>(table: GraphragTableName, parse: (rows: ParquetRows, skipped: SkippedRows) => T): Promise<T | undefined> => {
    const file = located[table];
    if (file === undefined) return undefined;
    const { rows, sha256: hash } = await readTable(file.path);
    files[table] = { path: file.path, sha256: hash };
    const parsed = parse(rows, skipped);
    appendAll(columnWarnings, rows.warnings());
    return parsed;
  };
  const tables: GraphragTables = {
    documents: (await read('documents', readDocuments)) ?? [],
    textUnits: (await read('textUnits', readTextUnits)) ?? [],
    entities: (await read('entities', readEntities)) ?? [],
    relationships: (await read('relationships', readRelationships)) ?? [],
    communities: await read('communities', readCommunities),
    communityReports: await read('communityReports', readCommunityReports),
    covariates: await read('covariates', readCovariates),
  };
  const generations = new Set(Object.values(located).flatMap((file) => (file ? [file.generation] : [])));
  const warnings = [...columnWarnings, ...skipped.lines()];
  if (generations.size > 1) warnings.push(`${directory} holds tables of both GraphRAG generations; the 2.x files were read where both exist`);
  return { directory, generation: generations.has('2.x') ? '2.x' : '1.x', tables, files, warnings };
}
