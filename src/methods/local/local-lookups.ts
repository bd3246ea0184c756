import { normalizePhrase } from '../../text/normalize-phrase.js';
import type { MethodContext } from '../query-method.js';

/** The relation graph in arrays, loaded once per index so a query never scans the relations table. */
export interface LocalGraph {
  /** Entity id → title, for the source/target cells of relationship rows. */
  entityTitle: ReadonlyMap<string, string>;
  relationIds: readonly string[];
  relationSource: readonly string[];
  relationTarget: readonly string[];
  /** GraphRAG's relationship `rank`. */
  relationRank: Float64Array;
  relationChunkIds: ReadonlyArray<readonly string[]>;
  /** Entity id → indices of its relations, in table order. */
  adjacency: ReadonlyMap<string, readonly number[]>;
}

/** Reports usable at one community level, and the communities of each entity that have one. */
export interface LocalCommunities {
  /** Entity id → ids of its communities (level ≤ the chosen level) that kept a report after the roll-up. */
  communitiesOf: ReadonlyMap<string, readonly string[]>;
  /** Community id → the report's rating (GraphRAG `rank`) and its insertion order, for stable ties. */
  reports: ReadonlyMap<string, { rating: number; order: number }>;
}

/** Loads {@link LocalGraph} once per index. */
export function localGraph(context: MethodContext): Promise<LocalGraph> {
  return context.memo('local:graph', async () => {
    const [entities, relations] = await Promise.all([
      context.store.table('entities').pick(['id', 'title']),
      context.store.table('relations').pick(['id', 'source', 'target', 'combinedDegree', 'chunkIds']),
    ]);
    const adjacency = new Map<string, number[]>();
    const link = (entityId: string, index: number): void => {
      const list = adjacency.get(entityId);
      if (list) list.push(index);
      else adjacency.set(entityId, [index]);
    };
    const relationRank = new Float64Array(relations.length);
    relations.forEach((relation, index) => {
      relationRank[index] = relation.combinedDegree;
      link(relation.source, index);
      if (relation.target !== relation.source) link(relation.target, index);
    });
    return {
      entityTitle: new Map(entities.map((entity) => [entity.id, entity.title])),
      relationIds: relations.map((relation) => relation.id),
      relationSource: relations.map((relation) => relation.source),
      relationTarget: relations.map((relation) => relation.target),
      relationRank,
      relationChunkIds: relations.map((relation) => relation.chunkIds),
      adjacency,
    };
  });
}

/**
 * Entities by name, loaded once per index for the questions that name them (`namedEntities`): a name as
 * {@link normalizePhrase} leaves it → the entity whose title it is, else whose alias, the most connected first.
 */
export function localEntityNames(context: MethodContext): Promise<ReadonlyMap<string, string>> {
  return context.memo('local:entity-names', async () => {
    const entities = await context.store.table('entities').pick(['id', 'title', 'aliases', 'degree']);
    entities.sort((left, right) => right.degree - left.degree || (left.id < right.id ? -1 : 1));
    const byName = new Map<string, string>();
    const add = (name: string, id: string): void => {
      const key = normalizePhrase(name);
      if (key.length > 0 && !byName.has(key)) byName.set(key, id);
    };
    for (const entity of entities) add(entity.title, entity.id);
    for (const entity of entities) for (const alias of entity.aliases) add(alias, entity.id);
    return byName;
  });
}

/**
 * Loads {@link LocalCommunities} for `level` once per index. As GraphRAG's loader does for local search
 * (microsoft/graphrag `query/indexer_adapters.py`), communities deeper than `level` are dropped and reports are "rolled up":
 * only the communities that are some entity's deepest one at or above `level` keep their report.
 */
export function localCommunities(context: MethodContext, level: number): Promise<LocalCommunities> {
  return context.memo(`local:communities:${level}`, async () => {
    const [communities, reportRows] = await Promise.all([
      context.store.table('communities').pick(['id', 'level', 'entityIds']),
      context.store.table('reports').pick(['communityId', 'level', 'rating']),
    ]);
    const usable = communities.filter((community) => community.level <= level);
    const deepest = new Map<string, { id: string; level: number }>();
    for (const community of usable) {
      for (const entityId of community.entityIds) {
        const current = deepest.get(entityId);
        if (!current || community.level > current.level) deepest.set(entityId, { id: community.id, level: community.level });
      }
    }
    const rolledUp = new Set([...deepest.values()].map((community) => community.id));
    const reports = new Map<string, { rating: number; order: number }>();
    reportRows.forEach((report, order) => {
      if (report.level <= level && rolledUp.has(report.communityId)) reports.set(report.communityId, { rating: report.rating, order });
    });
    const communitiesOf = new Map<string, string[]>();
    for (const community of usable) {
      if (!reports.has(community.id)) continue;
      for (const entityId of community.entityIds) {
        const list = communitiesOf.get(entityId);
        if (list) list.push(community.id);
        else communitiesOf.set(entityId, [community.id]);
      }
    }
    return { communitiesOf, reports };
  });
}

/** Whether the index has claims (GraphRAG adds a Claims table only then); counted once per index. */
export function hasClaims(context: MethodContext): Promise<boolean> {
  return context.memo('local:has-claims', async () => (await context.store.table('claims').count()) > 0);
}
