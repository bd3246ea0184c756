import type { CommunityRecord, ReportRecord } from '../../core/types.js';
import { dotAt } from '../../math/dense-vectors.js';
import type { MethodContext } from '../query-method.js';
import { positionsOf } from '../../core/positions-of.js';

/** A community report as global search uses it, with the hid its table rows and citations show. */
export type GlobalReport = Omit<ReportRecord, 'hid'> & { hid: number };

/** Reports and the community hierarchy, loaded once per index. */
export interface GlobalIndex {
  /** Every report, in table (`hid`) order. */
  reports: readonly GlobalReport[];
  reportOf: ReadonlyMap<string, GlobalReport>;
  communityOf: ReadonlyMap<string, CommunityRecord>;
  /** Level → ids of its communities that have a report, in community table order. */
  levels: ReadonlyMap<number, readonly string[]>;
}

/** The reports of one static (non-dynamic) selection and the raw occurrence counts of their communities. */
export interface StaticSelection {
  reports: readonly GlobalReport[];
  /** Community id → distinct text units of the entities rolled up into it. */
  occurrences: ReadonlyMap<string, number>;
}

/** Vectors of one space in a row-major matrix with an id → row lookup. */
export interface LoadedVectors {
  rowOf: ReadonlyMap<string, number>;
  dimensions: number;
  matrix: Float32Array;
}

/** Loads {@link GlobalIndex} once per index. */
export function globalIndex(context: MethodContext): Promise<GlobalIndex> {
  return context.memo('global:index', async () => {
    const [reportRows, communities] = await Promise.all([context.store.table('reports').all(), context.store.table('communities').all()]);
    // Rows come back in hid order, so a missing hid (never expected) still gets a stable, unique stand-in.
    const reports = reportRows.map((report, index) => ({ ...report, hid: report.hid ?? index + 1 }));
    const reportOf = new Map(reports.map((report) => [report.communityId, report]));
    const levels = new Map<number, string[]>();
    for (const community of communities) {
      if (!reportOf.has(community.id)) continue;
      const list = levels.get(community.level);
      if (list) list.push(community.id);
      else levels.set(community.level, [community.id]);
    }
    return { reports, reportOf, communityOf: new Map(communities.map((community) => [community.id, community])), levels };
  });
}

/** Entity id → its text units, loaded once per index for the occurrence weights. */
function entityChunks(context: MethodContext): Promise<ReadonlyMap<string, readonly string[]>> {
  return context.memo('global:entity-chunks', async () => {
    const entities = await context.store.table('entities').pick(['id', 'chunkIds']);
    return new Map(entities.map((entity) => [entity.id, entity.chunkIds]));
  });
}

function distinctChunks(entityIds: Iterable<string>, chunksOf: ReadonlyMap<string, readonly string[]>): number {
  const seen = new Set<string>();
  for (const entityId of entityIds) for (const chunkId of chunksOf.get(entityId) ?? []) seen.add(chunkId);
  return seen.size;
}

/**
 * GraphRAG's roll-up for non-dynamic global search (microsoft/graphrag `query/indexer_adapters.py`), loaded once per index and
 * level: every entity keeps only its deepest community at or above `level` (level 0 is the coarsest), and only
 * those communities' reports are used. A community's occurrence count is the number of distinct text units
 * of the entities rolled up into it, as GraphRAG counts it from the rolled-up entity table.
 */
export function staticSelection(context: MethodContext, level: number): Promise<StaticSelection> {
  return context.memo(`global:static:${level}`, async () => {
    const [index, chunksOf] = await Promise.all([globalIndex(context), entityChunks(context)]);
    const deepest = new Map<string, CommunityRecord>();
    for (const community of index.communityOf.values()) {
      if (community.level > level) continue;
      for (const entityId of community.entityIds) {
        const current = deepest.get(entityId);
        if (!current || community.level > current.level) deepest.set(entityId, community);
      }
    }
    const members = new Map<string, string[]>();
    for (const [entityId, community] of deepest) {
      const list = members.get(community.id);
      if (list) list.push(entityId);
      else members.set(community.id, [entityId]);
    }
    const reports = index.reports.filter((report) => report.level <= level && members.has(report.communityId));
    const occurrences = new Map(reports.map((report) => [report.communityId, distinctChunks(members.get(report.communityId) ?? [], chunksOf)]));
    return { reports, occurrences };
  });
}

/**
 * Occurrence counts over each community's whole entity set, for reports chosen by dynamic selection (which
 * may come from any level, so the roll-up of one level does not describe them). Built once per index.
 */
export function fullOccurrences(context: MethodContext): Promise<ReadonlyMap<string, number>> {
  return context.memo('global:occurrences', async () => {
    const [index, chunksOf] = await Promise.all([globalIndex(context), entityChunks(context)]);
    return new Map(index.reports.map((report) => [report.communityId, distinctChunks(index.communityOf.get(report.communityId)?.entityIds ?? [], chunksOf)]));
  });
}

async function loadVectors(context: MethodContext, space: 'reports' | 'chunks'): Promise<LoadedVectors> {
  const { ids, dimensions, matrix } = await context.store.vectors(space).load();
  return { rowOf: positionsOf(ids), dimensions, matrix };
}

/** Every report's full-content embedding (keyed by community id), loaded once per index. */
export function reportVectors(context: MethodContext): Promise<LoadedVectors> {
  return context.memo('global:report-vectors', () => loadVectors(context, 'reports'));
}

/** Every chunk embedding, loaded once per index, to rank the passages of the chosen communities. */
export function chunkVectors(context: MethodContext): Promise<LoadedVectors> {
  return context.memo('global:chunk-vectors', () => loadVectors(context, 'chunks'));
}

/** Cosine similarity of `query` with row `id` of `vectors` (unit vectors), or undefined without a vector. */
export function similarityTo(vectors: LoadedVectors, id: string, query: Float32Array): number | undefined {
  const row = vectors.rowOf.get(id);
  if (row === undefined || query.length !== vectors.dimensions) return undefined;
  return dotAt(vectors.matrix, row * vectors.dimensions, query, 0, vectors.dimensions);
}
