import { join } from 'node:path';
import type { Store } from '../../store/store.js';
import { writeParquetTable, type ParquetColumn, type ParquetColumnType } from '../parquet/write-parquet-table.js';
import { graphragTableFiles, type GraphragTableName } from './graphrag-tables.js';
import { recordsToGraphrag, type IndexRecords } from './records-to-graphrag.js';
import { appendToGroup } from '../shared/append-to-group.js';

/** What an export to GraphRAG's format wrote. */
export interface GraphragExportSummary {
  directory: string;
  /** Rows per table file written. */
  files: Array<{ file: string; rows: number; bytes: number }>;
}

/** Reads every record an export needs from the index. */
export async function readIndexRecords(store: Store): Promise<IndexRecords> {
  const [documents, chunks, entities, relations, communities, reports, claims, externalIds] = await Promise.all([
    store.table('documents').all(),
    store.table('chunks').all(),
    store.table('entities').all(),
    store.table('relations').all(),
    store.table('communities').all(),
    store.table('reports').all(),
    store.table('claims').all(),
    store.table('externalIds').all(),
  ]);
  // `all()` gives rows in insertion order, which is the order of their human-readable ids.
  return {
    documents,
    chunks,
    entities,
    relations,
    communities,
    reports,
    claims,
    externalIds,
  };
}

/** A column built from rows: its name, type and how a row gives its value. */
type ColumnOf<R> = [name: string, type: ParquetColumnType, value: (row: R) => unknown];

/** The columns of a GraphRAG table: `id` and `human_readable_id`, which every one of them starts with, then `specs`. */
function columnsOf<R extends { id: string; humanReadableId: number | null }>(rows: readonly R[], specs: ReadonlyArray<ColumnOf<R>>): ParquetColumn[] {
  const identity: Array<ColumnOf<R>> = [
    ['id', 'string', (row) => row.id],
    ['human_readable_id', 'int64', (row) => row.humanReadableId],
  ];
  return [...identity, ...specs].map(([name, type, value]) => ({ name, type, data: rows.map(value) }));
}

/**
 * Writes an index as GraphRAG 2.x output tables (`documents.parquet`, `text_units.parquet`, `entities.parquet`,
 * `relationships.parquet`, `communities.parquet`, `community_reports.parquet`, `covariates.parquet` when the index has
 * claims) with GraphRAG's column names and types, which GraphRAG's query code and notebooks read. A few extra columns
 * carry what GraphRAG's tables have no place for, so that importing the files again gives the same index: `kgrag_id`
 * (entities, communities, reports, claims), `aliases` (entities) and `kgrag_generated_by` (reports: `llm` or
 * `extractive`).
 */
export async function writeGraphragOutput(store: Store, directory: string): Promise<GraphragExportSummary> {
  const { tables, kgragIds } = recordsToGraphrag(await readIndexRecords(store));
  const files: GraphragExportSummary['files'] = [];
  const write = async (table: GraphragTableName, rows: number, columns: ParquetColumn[]): Promise<void> => {
    const file = join(directory, `${graphragTableFiles[table]}.parquet`);
    const bytes = await writeParquetTable(file, `the GraphRAG ${graphragTableFiles[table]} table`, columns, [{ key: 'kgrag.export', value: 'graphrag 2.x tables written by kgrag' }]);
    files.push({ file, rows, bytes });
  };
  const kgragId = (ids: readonly string[]): ParquetColumn => ({ name: 'kgrag_id', type: 'string', data: [...ids] });

  await write(
    'documents',
    tables.documents.length,
    columnsOf(tables.documents, [
      ['title', 'string', (row) => row.title],
      ['text', 'string', (row) => row.text],
      ['text_unit_ids', 'string-list', (row) => row.textUnitIds],
      ['creation_date', 'string', (row) => row.creationDate],
      ['metadata', 'string', (row) => (row.metadata === null || row.metadata === undefined ? null : JSON.stringify(row.metadata))],
    ]),
  );
  const entityIdsOfUnit = new Map<string, string[]>();
  for (const entity of tables.entities) for (const unit of entity.textUnitIds) appendToGroup(entityIdsOfUnit, unit, entity.id);
  const relationshipIdsOfUnit = new Map<string, string[]>();
  for (const relationship of tables.relationships) for (const unit of relationship.textUnitIds) appendToGroup(relationshipIdsOfUnit, unit, relationship.id);
  const covariateIdsOfUnit = new Map<string, string[]>();
  for (const covariate of tables.covariates) appendToGroup(covariateIdsOfUnit, covariate.textUnitId, covariate.id);
  await write(
    'textUnits',
    tables.textUnits.length,
    columnsOf(tables.textUnits, [
      ['text', 'string', (row) => row.text],
      ['n_tokens', 'int64', (row) => row.nTokens],
      ['document_id', 'string', (row) => row.documentIds[0] ?? null],
      ['entity_ids', 'string-list', (row) => entityIdsOfUnit.get(row.id) ?? []],
      ['relationship_ids', 'string-list', (row) => relationshipIdsOfUnit.get(row.id) ?? []],
      ['covariate_ids', 'string-list', (row) => covariateIdsOfUnit.get(row.id) ?? []],
    ]),
  );
  await write('entities', tables.entities.length, [
    ...columnsOf(tables.entities, [
      ['title', 'string', (row) => row.title],
      ['type', 'string', (row) => row.type],
      ['description', 'string', (row) => row.description],
      ['text_unit_ids', 'string-list', (row) => row.textUnitIds],
      ['frequency', 'int64', (row) => row.frequency],
      ['degree', 'int64', (row) => row.degree],
      ['aliases', 'string-list', (row) => row.aliases ?? []],
    ]),
    kgragId(kgragIds.entities),
  ]);
  await write(
    'relationships',
    tables.relationships.length,
    columnsOf(tables.relationships, [
      ['source', 'string', (row) => row.source],
      ['target', 'string', (row) => row.target],
      ['description', 'string', (row) => row.description],
      ['weight', 'double', (row) => row.weight],
      ['combined_degree', 'int64', (row) => row.combinedDegree],
      ['text_unit_ids', 'string-list', (row) => row.textUnitIds],
    ]),
  );
  await write('communities', tables.communities.length, [
    ...columnsOf(tables.communities, [
      ['community', 'int64', (row) => row.community],
      ['level', 'int64', (row) => row.level],
      ['parent', 'int64', (row) => row.parent ?? -1],
      ['children', 'int64-list', (row) => row.children ?? []],
      ['title', 'string', (row) => row.title],
      ['entity_ids', 'string-list', (row) => row.entityIds],
      ['relationship_ids', 'string-list', (row) => row.relationshipIds],
      ['text_unit_ids', 'string-list', (row) => row.textUnitIds],
      ['period', 'string', (row) => row.period],
      ['size', 'int64', (row) => row.size],
    ]),
    kgragId(kgragIds.communities),
  ]);
  const communityOf = new Map(tables.communities.map((community) => [community.community, community]));
  await write('communityReports', tables.communityReports.length, [
    ...columnsOf(tables.communityReports, [
      ['community', 'int64', (row) => row.community],
      ['level', 'int64', (row) => row.level],
      ['parent', 'int64', (row) => communityOf.get(row.community)?.parent ?? -1],
      ['children', 'int64-list', (row) => communityOf.get(row.community)?.children ?? []],
      ['title', 'string', (row) => row.title],
      ['summary', 'string', (row) => row.summary],
      ['full_content', 'string', (row) => row.fullContent],
      ['rank', 'double', (row) => row.rank],
      ['rating_explanation', 'string', (row) => row.ratingExplanation],
      ['findings', 'findings', (row) => row.findings.map((finding) => ({ explanation: finding.explanation, summary: finding.summary }))],
      ['full_content_json', 'string', (row) => row.fullContentJson],
      ['period', 'string', (row) => row.period],
      ['size', 'int64', (row) => row.size],
      ['kgrag_generated_by', 'string', (row) => row.generatedBy ?? 'llm'],
    ]),
    kgragId(kgragIds.communityReports),
  ]);
  if (tables.covariates.length > 0) {
    await write('covariates', tables.covariates.length, [
      ...columnsOf(tables.covariates, [
        ['covariate_type', 'string', (row) => row.covariateType],
        ['type', 'string', (row) => row.type],
        ['description', 'string', (row) => row.description],
        ['subject_id', 'string', (row) => row.subjectId],
        ['object_id', 'string', (row) => row.objectId],
        ['status', 'string', (row) => row.status],
        ['start_date', 'string', (row) => row.startDate],
        ['end_date', 'string', (row) => row.endDate],
        ['source_text', 'string', (row) => row.sourceText],
        ['text_unit_id', 'string', (row) => row.textUnitId],
      ]),
      kgragId(kgragIds.covariates),
    ]);
  }
  return { directory, files };
}
