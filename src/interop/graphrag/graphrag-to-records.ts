import { contentId, sha256 } from '../../core/ids.js';
import type { ChunkRecord, ClaimRecord, CommunityRecord, DocumentRecord, EntityRecord, ExternalIdRecord, RelationRecord, ReportRecord } from '../../core/types.js';
import { extractedEntityId } from '../../extract/merge-extracted-graphs.js';
import { graphragSystem } from './imported-index-source.js';
import type { GraphragCommunity, GraphragRelationship, GraphragTableName, GraphragTables } from './graphrag-tables.js';
import { appendToGroup } from '../shared/append-to-group.js';
import { positionsOf } from '../../core/positions-of.js';


/** GraphRAG writes "NONE" where a claim has no object or date. */
const none = 'NONE';

/** What became of one table's rows. */
export interface TableAccounting {
  /** Rows in the file. */
  rows: number;
  /** kgrag records made from them. */
  records: number;
  /** Rows left out of the graph, each with its reason (still kept in `external_ids` for an export where possible). */
  leftOut: string[];
}

/** A GraphRAG index as kgrag records. */
export interface ImportedGraph {
  documents: DocumentRecord[];
  chunks: ChunkRecord[];
  entities: EntityRecord[];
  relations: RelationRecord[];
  communities: CommunityRecord[] | undefined;
  reports: ReportRecord[] | undefined;
  claims: ClaimRecord[] | undefined;
  /** Every GraphRAG row by its own id, with what an export needs to give it back. */
  externalIds: ExternalIdRecord[];
  accounting: Record<GraphragTableName, TableAccounting>;
  /** Relationship rows that share an entity pair with another row (A→B and B→A), merged into one relation. */
  mergedRelationshipRows: number;
}

/** Options of {@link graphragToRecords}. */
export interface GraphragToRecordsOptions {
  /** The folder the tables came from; documents' sources name it. */
  directory: string;
  countTokens(text: string): number;
  /** The time recorded for documents GraphRAG gave no creation date. */
  importedAt: string;
}

function external(kind: ExternalIdRecord['kind'], externalId: string, id: string, record: Record<string, unknown>): ExternalIdRecord {
  return { kind, externalId, id, system: graphragSystem, record };
}

function byHumanReadableId<T extends { humanReadableId: number | null }>(rows: readonly T[]): T[] {
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => (a.row.humanReadableId ?? a.index) - (b.row.humanReadableId ?? b.index) || a.index - b.index)
    .map(({ row }) => row);
}

/** A creation date as an ISO time when it parses as one (GraphRAG writes "2025-03-04 09:39:37 -0800"). */
function isoDate(value: string | null): string | undefined {
  if (value === null) return undefined;
  const time = Date.parse(value.replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) ([+-]\d{2})(\d{2})$/, '$1T$2$3:$4'));
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** The claim's optional field: GraphRAG's "NONE" (and an empty text) is no value. */
function optional(value: string | null): string | null {
  return value === null || value.trim() === '' || value.trim().toUpperCase() === none ? null : value;
}

/**
 * Turns GraphRAG's tables into kgrag records. The rules (docs/ARCHITECTURE.md, "Coming from GraphRAG"):
 * - documents keep their title and text; ids are kgrag's (title + text), GraphRAG's id is kept in `external_ids`;
 * - a text unit becomes a chunk of its (first) document at the offsets where its text occurs, in the document's
 *   order of text units; its text is kept as it is;
 * - an entity keeps its title, type, description, frequency and degree; its id is kgrag's name key, unless two
 *   titles share one (then the later is keyed by its title and GraphRAG id);
 * - relationships are directed in GraphRAG and undirected in kgrag: the rows of one entity pair (A→B and B→A)
 *   become one relation whose description is theirs joined by a blank line (in the order of their human-readable
 *   ids) and whose weight is their sum; each row stays in `external_ids` with its own direction, description and
 *   weight, so an export gives the rows back. A row naming an entity the entities table lacks is kept there only;
 * - communities keep their level, hierarchy, title and members; reports their title, summary, findings, rating and
 *   full content (byte for byte); covariates become claims.
 */
export function graphragToRecords(tables: GraphragTables, options: GraphragToRecordsOptions): ImportedGraph {
  const externalIds: ExternalIdRecord[] = [];
  const accounting = {} as ImportedGraph['accounting'];

  const documents: DocumentRecord[] = [];
  const documentOf = new Map<string, DocumentRecord>();
  const documentIds = new Set<string>();
  for (const document of byHumanReadableId(tables.documents)) {
    const id = contentId('document', document.title, document.text);
    if (documentOf.has(document.id) || documentIds.has(id)) continue;
    documentIds.add(id);
    const record: DocumentRecord = {
      id,
      title: document.title,
      source: `${options.directory}#${document.id}`,
      text: document.text,
      metadata: { graphrag: { id: document.id, ...(document.metadata === null || document.metadata === undefined ? {} : { metadata: document.metadata }) } },
      contentHash: sha256(document.text),
      createdAt: isoDate(document.creationDate) ?? options.importedAt,
    };
    documents.push(record);
    documentOf.set(document.id, record);
    externalIds.push(external('document', document.id, id, { human_readable_id: document.humanReadableId, creation_date: document.creationDate, text_unit_ids: document.textUnitIds }));
  }
  accounting.documents = { rows: tables.documents.length, records: documents.length, leftOut: tables.documents.length > documents.length ? [`${tables.documents.length - documents.length} documents repeat an id or a title and text`] : [] };

  // Text units, in each document's order: the document's text_unit_ids where it lists them, else human-readable ids.
  const chunks: ChunkRecord[] = [];
  const chunkOf = new Map<string, string>();
  const unitsLeftOut: string[] = [];
  const unitsByDocument = new Map<string, typeof tables.textUnits>();
  for (const unit of byHumanReadableId(tables.textUnits)) {
    const documentId = unit.documentIds.find((id) => documentOf.has(id));
    if (documentId === undefined) {
      unitsLeftOut.push(`text unit ${unit.id} names no document of the documents table (${unit.documentIds.join(', ') || 'none'})`);
      continue;
    }
    appendToGroup(unitsByDocument, documentId, unit);
  }
  for (const document of tables.documents) {
    const record = documentOf.get(document.id);
    const units = unitsByDocument.get(document.id);
    if (record === undefined || units === undefined) continue;
    const listed = positionsOf(document.textUnitIds);
    units.sort((a, b) => (listed.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (listed.get(b.id) ?? Number.MAX_SAFE_INTEGER));
    let from = 0;
    for (const [ordinal, unit] of units.entries()) {
      if (chunkOf.has(unit.id)) continue;
      // Token windows overlap, so the next unit starts before the previous one ends; search from the previous start.
      let start = record.text.indexOf(unit.text, from);
      if (start < 0) start = record.text.indexOf(unit.text);
      const located = start >= 0;
      const id = located ? contentId('chunk', record.id, start, start + unit.text.length) : contentId('chunk', record.id, 'graphrag', unit.id);
      if (located) from = start + 1;
      chunks.push({
        id,
        documentId: record.id,
        ordinal,
        text: unit.text,
        nTokens: unit.nTokens ?? options.countTokens(unit.text),
        start: located ? start : 0,
        end: located ? start + unit.text.length : 0,
      });
      chunkOf.set(unit.id, id);
      externalIds.push(external('chunk', unit.id, id, { human_readable_id: unit.humanReadableId, n_tokens: unit.nTokens, document_ids: unit.documentIds, located }));
    }
  }
  accounting.textUnits = { rows: tables.textUnits.length, records: chunks.length, leftOut: unitsLeftOut };
  const chunkIds = (ids: readonly string[]): string[] => [...new Set(ids.flatMap((id) => chunkOf.get(id) ?? []))];

  // Entities.
  const entities: EntityRecord[] = [];
  const entityOfTitle = new Map<string, EntityRecord>();
  const entityOfExternal = new Map<string, string>();
  const takenIds = new Set<string>();
  const withoutDegree = new Set<EntityRecord>();
  const entitiesLeftOut: string[] = [];
  for (const entity of byHumanReadableId(tables.entities)) {
    if (entityOfTitle.has(entity.title)) {
      entitiesLeftOut.push(`entity ${entity.id} repeats the title "${entity.title}" (GraphRAG keeps the first)`);
      continue;
    }
    let id = entity.kgragId ?? extractedEntityId(entity.title);
    if (takenIds.has(id)) id = contentId('entity', graphragSystem, entity.title, entity.id);
    takenIds.add(id);
    const record: EntityRecord = {
      id,
      title: entity.title,
      type: entity.type,
      description: entity.description,
      aliases: entity.aliases ?? [],
      frequency: entity.frequency ?? entity.textUnitIds.length,
      degree: entity.degree ?? 0,
      chunkIds: chunkIds(entity.textUnitIds),
    };
    entities.push(record);
    if (entity.degree === null) withoutDegree.add(record);
    entityOfTitle.set(entity.title, record);
    entityOfExternal.set(entity.id, id);
    externalIds.push(external('entity', entity.id, id, { human_readable_id: entity.humanReadableId, x: entity.x, y: entity.y, degree: entity.degree, frequency: entity.frequency }));
  }
  accounting.entities = { rows: tables.entities.length, records: entities.length, leftOut: entitiesLeftOut };

  // Relationships: one relation per unordered entity pair.
  const relationRows = new Map<string, { source: string; target: string; rows: GraphragRelationship[] }>();
  const relationOfExternal = new Map<string, string>();
  const relationshipsLeftOut: string[] = [];
  for (const row of byHumanReadableId(tables.relationships)) {
    const source = entityOfTitle.get(row.source);
    const target = entityOfTitle.get(row.target);
    const rowRecord = { human_readable_id: row.humanReadableId, source: row.source, target: row.target, description: row.description, weight: row.weight, combined_degree: row.combinedDegree, text_unit_ids: row.textUnitIds };
    if (source === undefined || target === undefined || source === target) {
      const why = source === target && source !== undefined ? 'links an entity to itself' : `names "${source === undefined ? row.source : row.target}", which the entities table lacks`;
      relationshipsLeftOut.push(`relationship ${row.id} (${row.source} → ${row.target}) ${why}`);
      externalIds.push(external('relation', row.id, '', { ...rowRecord, left_out: why }));
      continue;
    }
    const [first, second] = [source.id, target.id].sort() as [string, string];
    const id = contentId('relation', first, second);
    const group = relationRows.get(id) ?? { source: first, target: second, rows: [] };
    group.rows.push(row);
    relationRows.set(id, group);
    relationOfExternal.set(row.id, id);
    externalIds.push(external('relation', row.id, id, rowRecord));
  }
  const degree = new Map<string, number>();
  for (const group of relationRows.values()) {
    degree.set(group.source, (degree.get(group.source) ?? 0) + 1);
    degree.set(group.target, (degree.get(group.target) ?? 0) + 1);
  }
  for (const entity of withoutDegree) entity.degree = degree.get(entity.id) ?? 0;
  const relations: RelationRecord[] = [...relationRows]
    .map(([id, group]) => ({
      id,
      source: group.source,
      target: group.target,
      description: mergedDescription(group.rows),
      keywords: [],
      weight: group.rows.reduce((sum, row) => sum + row.weight, 0),
      combinedDegree: (degree.get(group.source) ?? 0) + (degree.get(group.target) ?? 0),
      chunkIds: chunkIds(group.rows.flatMap((row) => row.textUnitIds)),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const mergedRelationshipRows = [...relationRows.values()].reduce((sum, group) => sum + group.rows.length - 1, 0);
  accounting.relationships = { rows: tables.relationships.length, records: relations.length, leftOut: relationshipsLeftOut };

  const mapped = tables.communities === undefined ? undefined : mapCommunities(tables.communities, { entityOfExternal, relationOfExternal, chunkIds, externalIds, accounting });
  const communities = mapped?.records;
  const reports = tables.communityReports === undefined || mapped === undefined ? undefined : mapReports(tables.communityReports, mapped, externalIds, accounting);
  if (tables.communityReports !== undefined && communities === undefined) {
    accounting.communityReports = { rows: tables.communityReports.length, records: 0, leftOut: ['the output has no communities table, so its reports name no community kgrag knows'] };
  }

  let claims: ClaimRecord[] | undefined;
  if (tables.covariates !== undefined) {
    claims = [];
    const claimsLeftOut: string[] = [];
    const claimIds = new Set<string>();
    for (const covariate of byHumanReadableId(tables.covariates)) {
      const chunkId = chunkOf.get(covariate.textUnitId);
      if (chunkId === undefined) {
        claimsLeftOut.push(`claim ${covariate.id} names text unit ${covariate.textUnitId}, which the text units table lacks`);
        continue;
      }
      let id = covariate.kgragId ?? contentId('claim', chunkId, covariate.subjectId, covariate.type, covariate.description);
      if (claimIds.has(id)) id = contentId('claim', graphragSystem, covariate.id);
      claimIds.add(id);
      const object = optional(covariate.objectId);
      const status = covariate.status.toUpperCase();
      claims.push({
        id,
        subject: entityOfTitle.get(covariate.subjectId)?.id ?? covariate.subjectId,
        object: object === null ? null : (entityOfTitle.get(object)?.id ?? object),
        type: covariate.type,
        status: status === 'TRUE' || status === 'FALSE' ? status : 'SUSPECTED',
        startDate: optional(covariate.startDate),
        endDate: optional(covariate.endDate),
        description: covariate.description,
        sourceText: covariate.sourceText,
        chunkId,
      });
      externalIds.push(
        external('claim', covariate.id, id, {
          human_readable_id: covariate.humanReadableId,
          covariate_type: covariate.covariateType,
          subject_id: covariate.subjectId,
          object_id: covariate.objectId,
          status: covariate.status,
          start_date: covariate.startDate,
          end_date: covariate.endDate,
        }),
      );
    }
    accounting.covariates = { rows: tables.covariates.length, records: claims.length, leftOut: claimsLeftOut };
  }
  accounting.communities ??= { rows: 0, records: 0, leftOut: [] };
  accounting.communityReports ??= { rows: 0, records: 0, leftOut: [] };
  accounting.covariates ??= { rows: 0, records: 0, leftOut: [] };
  return { documents, chunks, entities, relations, communities, reports, claims, externalIds, accounting, mergedRelationshipRows };
}

/** The description of the relation of an entity pair: each row's own, distinct ones joined by a blank line. */
export function mergedDescription(rows: ReadonlyArray<{ description: string }>): string {
  return [...new Set(rows.map((row) => row.description.trim()).filter((text) => text !== ''))].join('\n\n');
}

interface CommunityContext {
  entityOfExternal: ReadonlyMap<string, string>;
  relationOfExternal: ReadonlyMap<string, string>;
  chunkIds(ids: readonly string[]): string[];
  externalIds: ExternalIdRecord[];
  accounting: ImportedGraph['accounting'];
}

/** The communities as kgrag records, and the kgrag id of each GraphRAG community number. */
interface MappedCommunities {
  records: CommunityRecord[];
  idOfNumber: ReadonlyMap<number, string>;
}

function mapCommunities(rows: readonly GraphragCommunity[], context: CommunityContext): MappedCommunities {
  const leftOut: string[] = [];
  const ordered = byHumanReadableId(rows).sort((a, b) => a.level - b.level);
  const idOfNumber = new Map<number, string>();
  const taken = new Set<string>();
  const kept: GraphragCommunity[] = [];
  for (const community of ordered) {
    if (idOfNumber.has(community.community)) {
      leftOut.push(`community row ${community.id} repeats community number ${community.community}`);
      continue;
    }
    const members = [...new Set(community.entityIds.flatMap((id) => context.entityOfExternal.get(id) ?? []))].sort();
    let id = community.kgragId ?? contentId('community', community.level, members);
    if (taken.has(id)) id = contentId('community', community.level, members, graphragSystem, community.community);
    taken.add(id);
    idOfNumber.set(community.community, id);
    kept.push(community);
  }
  const childrenOf = new Map<number, number[]>();
  for (const community of kept) {
    if (community.parent === null) continue;
    appendToGroup(childrenOf, community.parent, community.community);
  }
  const records = kept.map((community): CommunityRecord => {
    const id = idOfNumber.get(community.community) as string;
    const entityIds = [...new Set(community.entityIds.flatMap((entity) => context.entityOfExternal.get(entity) ?? []))];
    const children = (community.children ?? childrenOf.get(community.community) ?? []).flatMap((child) => idOfNumber.get(child) ?? []);
    context.externalIds.push(
      external('community', community.id, id, { human_readable_id: community.humanReadableId, community: community.community, parent: community.parent, period: community.period, size: community.size }),
    );
    return {
      id,
      level: community.level,
      parent: community.parent === null ? null : (idOfNumber.get(community.parent) ?? null),
      children,
      title: community.title,
      entityIds,
      relationIds: [...new Set(community.relationshipIds.flatMap((relationship) => context.relationOfExternal.get(relationship) ?? []))],
      chunkIds: context.chunkIds(community.textUnitIds),
      size: community.size ?? entityIds.length,
    };
  });
  context.accounting.communities = { rows: rows.length, records: records.length, leftOut };
  return { records, idOfNumber };
}

function mapReports(rows: NonNullable<GraphragTables['communityReports']>, communities: MappedCommunities, externalIds: ExternalIdRecord[], accounting: ImportedGraph['accounting']): ReportRecord[] {
  const communityOfNumber = communities.idOfNumber;
  const levelOf = new Map(communities.records.map((community) => [community.id, community.level]));
  const reports: ReportRecord[] = [];
  const leftOut: string[] = [];
  const seen = new Set<string>();
  for (const report of byHumanReadableId(rows)) {
    const communityId = communityOfNumber.get(report.community);
    if (communityId === undefined || seen.has(communityId)) {
      leftOut.push(communityId === undefined ? `report ${report.id} is of community ${report.community}, which the communities table lacks` : `report ${report.id} repeats the report of community ${report.community}`);
      continue;
    }
    seen.add(communityId);
    reports.push({
      communityId,
      level: levelOf.get(communityId) ?? report.level,
      title: report.title,
      summary: report.summary,
      findings: report.findings,
      rating: report.rank ?? 0,
      ratingExplanation: report.ratingExplanation,
      fullContent: report.fullContent,
      generatedBy: report.generatedBy ?? 'llm',
      error: null,
    });
    externalIds.push(
      external('report', report.id, communityId, { human_readable_id: report.humanReadableId, community: report.community, full_content_json: report.fullContentJson, period: report.period, size: report.size, rank: report.rank }),
    );
  }
  accounting.communityReports = { rows: rows.length, records: reports.length, leftOut };
  return reports;
}
