import type { ChunkRecord, ClaimRecord, CommunityRecord, DocumentRecord, EntityRecord, ExternalIdRecord, ExternalRecordKind, RelationRecord, ReportRecord } from '../../core/types.js';
import type { GraphragCommunity, GraphragCommunityReport, GraphragCovariate, GraphragDocument, GraphragEntity, GraphragRelationship, GraphragTables, GraphragTextUnit } from './graphrag-tables.js';
import { mergedDescription } from './graphrag-to-records.js';
import { appendToGroup } from '../shared/append-to-group.js';

/** The kgrag records of an index, as an export reads them. */
export interface IndexRecords {
  documents: DocumentRecord[];
  chunks: ChunkRecord[];
  entities: EntityRecord[];
  relations: RelationRecord[];
  communities: CommunityRecord[];
  reports: ReportRecord[];
  claims: ClaimRecord[];
  externalIds: ExternalIdRecord[];
}

/** GraphRAG's tables of an index, with the kgrag id of each row (null for a row kgrag keeps only for export). */
export interface GraphragExport {
  tables: Required<{ [K in keyof GraphragTables]: NonNullable<GraphragTables[K]> }>;
  kgragIds: { entities: string[]; communities: string[]; communityReports: string[]; covariates: string[] };
}

type Recorded = Record<string, unknown>;

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function textOr(value: unknown, fallback: string | null): string | null {
  return typeof value === 'string' ? value : fallback;
}

/** Looks up a record's GraphRAG id and row by kgrag id; records kgrag made itself get their kgrag id. */
class ExternalIds {
  private readonly byKgragId = new Map<string, ExternalIdRecord[]>();

  constructor(rows: readonly ExternalIdRecord[]) {
    for (const row of rows) {
      appendToGroup(this.byKgragId, `${row.kind}\u0000${row.id}`, row);
    }
  }

  all(kind: ExternalRecordKind, id: string): ExternalIdRecord[] {
    return this.byKgragId.get(`${kind}\u0000${id}`) ?? [];
  }

  first(kind: ExternalRecordKind, id: string): ExternalIdRecord | undefined {
    return this.all(kind, id)[0];
  }

  idOf(kind: ExternalRecordKind, id: string): string {
    return this.first(kind, id)?.externalId ?? id;
  }
}

/** Human-readable ids: the recorded one where the row has it, else the next free number after them. */
function humanReadableIds(recorded: ReadonlyArray<unknown>, start: number): number[] {
  const taken = new Set(recorded.filter((value): value is number => typeof value === 'number'));
  let next = start;
  for (const value of taken) if (value >= next) next = value + 1;
  return recorded.map((value) => (typeof value === 'number' ? value : next++));
}

/**
 * GraphRAG 2.x tables of a kgrag index. Rows imported from GraphRAG get their GraphRAG ids, human-readable ids and
 * fields back (a relation that merged A→B and B→A gives both rows back while its description and weight are the
 * ones the import made); rows kgrag made get kgrag's ids and the next human-readable ids. Titles, not ids, name a
 * relationship's ends and a claim's subject and object, as in GraphRAG.
 */
export function recordsToGraphrag(records: IndexRecords): GraphragExport {
  const external = new ExternalIds(records.externalIds);
  const chunksOfDocument = new Map<string, ChunkRecord[]>();
  for (const chunk of [...records.chunks].sort((a, b) => a.ordinal - b.ordinal)) {
    appendToGroup(chunksOfDocument, chunk.documentId, chunk);
  }
  const unitId = (chunkId: string): string => external.idOf('chunk', chunkId);

  const documentHrids = humanReadableIds(records.documents.map((document) => external.first('document', document.id)?.record.human_readable_id), 1);
  const documents: GraphragDocument[] = records.documents.map((document, index) => {
    const recorded: Recorded = external.first('document', document.id)?.record ?? {};
    const graphrag = (document.metadata.graphrag ?? {}) as Recorded;
    return {
      id: external.idOf('document', document.id),
      humanReadableId: documentHrids[index] ?? index,
      title: document.title,
      text: document.text,
      textUnitIds: (chunksOfDocument.get(document.id) ?? []).map((chunk) => unitId(chunk.id)),
      creationDate: textOr(recorded.creation_date, document.createdAt),
      metadata: 'metadata' in graphrag ? graphrag.metadata : Object.keys(document.metadata).length === 0 ? null : document.metadata,
    };
  });
  const documentExternalId = new Map(records.documents.map((document, index) => [document.id, documents[index]?.id ?? document.id]));

  const chunkHrids = humanReadableIds(records.chunks.map((chunk) => external.first('chunk', chunk.id)?.record.human_readable_id), 0);
  const textUnits: GraphragTextUnit[] = records.chunks.map((chunk, index) => ({
    id: unitId(chunk.id),
    humanReadableId: chunkHrids[index] ?? index,
    text: chunk.text,
    nTokens: numberOr(external.first('chunk', chunk.id)?.record.n_tokens, chunk.nTokens),
    documentIds: [documentExternalId.get(chunk.documentId) ?? chunk.documentId],
  }));

  const entityHrids = humanReadableIds(records.entities.map((entity) => external.first('entity', entity.id)?.record.human_readable_id), 0);
  const titleOf = new Map(records.entities.map((entity) => [entity.id, entity.title]));
  const entities: GraphragEntity[] = records.entities.map((entity, index) => {
    const recorded: Recorded = external.first('entity', entity.id)?.record ?? {};
    return {
      id: external.idOf('entity', entity.id),
      humanReadableId: entityHrids[index] ?? index,
      title: entity.title,
      type: entity.type,
      description: entity.description,
      textUnitIds: entity.chunkIds.map(unitId),
      frequency: entity.frequency,
      degree: entity.degree,
      x: typeof recorded.x === 'number' ? recorded.x : null,
      y: typeof recorded.y === 'number' ? recorded.y : null,
      aliases: entity.aliases,
    };
  });

  // Relationships: the recorded rows of a relation the import merged, while it still is what they make.
  const relationshipRows: Array<GraphragRelationship & { order: number }> = [];
  const relationshipIdsOf = new Map<string, string[]>();
  for (const [order, relation] of records.relations.entries()) {
    const rows = external.all('relation', relation.id).map((row) => ({ externalId: row.externalId, record: row.record }));
    const descriptions = rows.map((row) => ({ description: textOr(row.record.description, '') ?? '' }));
    const weight = rows.reduce((sum, row) => sum + numberOr(row.record.weight, 0), 0);
    const unchanged = rows.length > 0 && mergedDescription(descriptions) === relation.description && Math.abs(weight - relation.weight) < 1e-9;
    if (unchanged) {
      for (const row of rows) relationshipRows.push(recordedRelationship(row.externalId, row.record, order));
      relationshipIdsOf.set(relation.id, rows.map((row) => row.externalId));
      continue;
    }
    const id = rows[0]?.externalId ?? relation.id;
    relationshipRows.push({
      id,
      humanReadableId: null,
      source: titleOf.get(relation.source) ?? relation.source,
      target: titleOf.get(relation.target) ?? relation.target,
      description: relation.description,
      weight: relation.weight,
      combinedDegree: relation.combinedDegree,
      textUnitIds: relation.chunkIds.map(unitId),
      order,
    });
    appendToGroup(relationshipIdsOf, relation.id, id);
  }
  // Rows the import kept only for export (an end the entities table lacked).
  for (const row of records.externalIds) if (row.kind === 'relation' && row.id === '') relationshipRows.push(recordedRelationship(row.externalId, row.record, records.relations.length));
  const relationshipHrids = humanReadableIds(relationshipRows.map((row) => row.humanReadableId ?? undefined), 0);
  const relationships = relationshipRows
    .map(({ order, ...row }, index) => ({ row: { ...row, humanReadableId: relationshipHrids[index] ?? index }, order }))
    .sort((a, b) => (a.row.humanReadableId ?? 0) - (b.row.humanReadableId ?? 0) || a.order - b.order)
    .map(({ row }) => row);

  // Communities: numbered by their recorded number, else after the recorded ones in level order.
  const ordered = [...records.communities].sort((a, b) => a.level - b.level);
  const numbers = humanReadableIds(ordered.map((community) => external.first('community', community.id)?.record.community), 0);
  const numberOf = new Map(ordered.map((community, index) => [community.id, numbers[index] ?? index]));
  const communities: GraphragCommunity[] = ordered.map((community) => {
    const recorded: Recorded = external.first('community', community.id)?.record ?? {};
    const number = numberOf.get(community.id) ?? 0;
    return {
      id: external.idOf('community', community.id),
      humanReadableId: numberOr(recorded.human_readable_id, number),
      community: number,
      level: community.level,
      parent: community.parent === null ? null : (numberOf.get(community.parent) ?? null),
      children: community.children.flatMap((child) => numberOf.get(child) ?? []),
      title: community.title,
      entityIds: community.entityIds.map((id) => external.idOf('entity', id)),
      relationshipIds: community.relationIds.flatMap((id) => relationshipIdsOf.get(id) ?? [id]),
      textUnitIds: community.chunkIds.map(unitId),
      period: textOr(recorded.period, null),
      size: community.size,
    };
  });
  const communityRow = new Map(ordered.map((community, index) => [community.id, communities[index]]));

  const reports = records.reports.filter((report) => communityRow.has(report.communityId));
  const communityReports: GraphragCommunityReport[] = reports.map((report) => {
    const recorded: Recorded = external.first('report', report.communityId)?.record ?? {};
    const community = communityRow.get(report.communityId);
    const number = community?.community ?? 0;
    return {
      id: external.first('report', report.communityId)?.externalId ?? report.communityId,
      humanReadableId: numberOr(recorded.human_readable_id, number),
      community: number,
      level: report.level,
      title: report.title,
      summary: report.summary,
      fullContent: report.fullContent,
      rank: report.rating,
      ratingExplanation: report.ratingExplanation,
      findings: report.findings,
      fullContentJson:
        textOr(recorded.full_content_json, null) ??
        JSON.stringify({ title: report.title, summary: report.summary, findings: report.findings, rating: report.rating, rating_explanation: report.ratingExplanation }, null, 4),
      period: textOr(recorded.period, community?.period ?? null),
      size: community?.size ?? null,
      generatedBy: report.generatedBy,
    };
  });

  const claimHrids = humanReadableIds(records.claims.map((claim) => external.first('claim', claim.id)?.record.human_readable_id), 0);
  const named = (value: string | null): string => (value === null ? 'NONE' : (titleOf.get(value) ?? value));
  const covariates: GraphragCovariate[] = records.claims.map((claim, index) => {
    const recorded: Recorded = external.first('claim', claim.id)?.record ?? {};
    return {
      id: external.idOf('claim', claim.id),
      humanReadableId: claimHrids[index] ?? index,
      covariateType: textOr(recorded.covariate_type, 'claim') ?? 'claim',
      type: claim.type,
      description: claim.description,
      subjectId: textOr(recorded.subject_id, null) ?? named(claim.subject),
      objectId: textOr(recorded.object_id, null) ?? named(claim.object),
      status: textOr(recorded.status, null) ?? claim.status,
      startDate: textOr(recorded.start_date, null) ?? claim.startDate ?? 'NONE',
      endDate: textOr(recorded.end_date, null) ?? claim.endDate ?? 'NONE',
      sourceText: claim.sourceText,
      textUnitId: unitId(claim.chunkId),
    };
  });

  return {
    tables: { documents, textUnits, entities, relationships, communities, communityReports, covariates },
    kgragIds: {
      entities: records.entities.map((entity) => entity.id),
      communities: ordered.map((community) => community.id),
      communityReports: reports.map((report) => report.communityId),
      covariates: records.claims.map((claim) => claim.id),
    },
  };
}

function recordedRelationship(id: string, record: Recorded, order: number): GraphragRelationship & { order: number } {
  return {
    id,
    humanReadableId: typeof record.human_readable_id === 'number' ? record.human_readable_id : null,
    source: textOr(record.source, '') ?? '',
    target: textOr(record.target, '') ?? '',
    description: textOr(record.description, '') ?? '',
    weight: numberOr(record.weight, 1),
    combinedDegree: typeof record.combined_degree === 'number' ? record.combined_degree : null,
    textUnitIds: Array.isArray(record.text_unit_ids) ? record.text_unit_ids.filter((item): item is string => typeof item === 'string') : [],
    order,
  };
}
