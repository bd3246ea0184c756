import { contentId } from '../../core/ids.js';
import { maxOf } from '../../core/max-of.js';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import { isVagueEntityType } from './entity-type-compatibility.js';
import type { EntityMerge } from './resolution-types.js';

/** Description lists kept outside the tables (the summarize step reads them), by entity id and by relation id. */
export interface DescriptionLists {
  entities?: ReadonlyMap<string, readonly string[]>;
  relations?: ReadonlyMap<string, readonly string[]>;
}

/** The graph after {@link applyMerges}. */
export interface MergedEntityGraph {
  entities: EntityRecord[];
  relations: RelationRecord[];
  /** Old id → canonical id, for every entity merged into another (canonical and untouched ids are absent). */
  idMap: Map<string, string>;
  /** Old id → new id, for every relation whose endpoints moved or that was folded into a parallel one. */
  relationIdMap: Map<string, string>;
  /** Relations dropped because merging made both ends one entity. */
  droppedRelationIds: string[];
  /** The entity description lists, merged like the entities (keys: ids after merging). */
  entityDescriptions: Map<string, string[]>;
  /** The relation description lists, merged like the relations (keys: ids after merging). */
  relationDescriptions: Map<string, string[]>;
}

/**
 * Applies entity merges to the graph tables (SPEC §4.3, after GraphRAG's merge rules of
 * microsoft/graphrag `index/workflows/extract_graph.py`, which it applies to exact titles only):
 *
 * - **Entity**: keeps the canonical member's id (the hash of its normalized name, so ids stay stable across
 *   runs), `hid` and title. If `canonical` is not a member, the most frequent member is canonical.
 *   `aliases` = the canonical's aliases, then every other member's title and aliases, without repeats
 *   and without the canonical title. `type` = majority vote weighted by each member's frequency, vague types
 *   (`unknown`, `noun phrase`, …) voting only when no member has another; ties go to the canonical's type,
 *   else to the first member's. `chunkIds` = union in member order; `frequency` = max(size of that
 *   union, largest member frequency) because chunk lists may be capped; `description` = the distinct
 *   member descriptions, one per line, until the summarize step rewrites it.
 * - **Relations**: ends re-pointed to canonical ids; a relation whose two ends became one entity is dropped
 *   (a self-loop already in the input is kept — it is not the merge's doing); relations joining the same
 *   unordered pair are merged: weight summed (GraphRAG: sum of strengths), descriptions listed,
 *   keywords and chunkIds unioned. A relation that was not touched keeps its id and orientation; a moved or
 *   merged one gets the id `mergeExtractedGraphs` would give it: `contentId('relation', a, b)` with
 *   `a < b`, so it equals the id of an untouched relation on the same pair.
 * - **Degrees** (distinct neighbours) and `combinedDegree` are recomputed for the whole graph.
 *
 * Merges are taken in order; an entity already merged by an earlier merge, or unknown, is skipped. Output
 * entities and relations keep input order. `descriptions` are merged the same way (lists concatenated in
 * member order, repeats dropped).
 */
export function applyMerges(
  entities: readonly EntityRecord[],
  relations: readonly RelationRecord[],
  merges: readonly EntityMerge[],
  descriptions: DescriptionLists = {},
): MergedEntityGraph {
  const byId = new Map(entities.map((entity) => [entity.id, entity]));
  const idMap = new Map<string, string>();
  const clusters = new Map<string, EntityRecord[]>();
  const taken = new Set<string>();
  for (const merge of merges) {
    const members = [...new Set(merge.members)].filter((id) => byId.has(id) && !taken.has(id)).map((id) => byId.get(id) as EntityRecord);
    if (members.length < 2) continue;
    const canonical = members.find((member) => member.id === merge.canonical) ?? mostFrequent(members);
    const ordered = [canonical, ...members.filter((member) => member !== canonical)];
    for (const member of ordered) {
      taken.add(member.id);
      if (member !== canonical) idMap.set(member.id, canonical.id);
    }
    clusters.set(canonical.id, ordered);
  }

  const entityDescriptions = new Map<string, string[]>();
  const mergedEntities: EntityRecord[] = [];
  for (const entity of entities) {
    if (idMap.has(entity.id)) continue;
    const cluster = clusters.get(entity.id);
    if (cluster === undefined) {
      mergedEntities.push({ ...entity, aliases: [...entity.aliases], chunkIds: [...entity.chunkIds] });
    } else {
      mergedEntities.push(mergeEntities(cluster));
    }
    const lists = (cluster ?? [entity]).flatMap((member) => {
      const list = descriptions.entities?.get(member.id);
      return list === undefined ? [] : [list];
    });
    if (lists.length > 0) entityDescriptions.set(entity.id, distinct(lists.flat()));
  }

  const relationGroups = new Map<string, RelationRecord[]>();
  const droppedRelationIds: string[] = [];
  const movedRelations = new Set<RelationRecord>();
  const resolve = (id: string): string => idMap.get(id) ?? id;
  for (const relation of relations) {
    const source = resolve(relation.source);
    const target = resolve(relation.target);
    if (source === target && relation.source !== relation.target) {
      droppedRelationIds.push(relation.id);
      continue;
    }
    const moved = source !== relation.source || target !== relation.target;
    const pair = source < target ? `${source}\u0000${target}` : `${target}\u0000${source}`;
    const group = relationGroups.get(pair);
    const rewired = moved ? { ...relation, source, target } : relation;
    if (moved) movedRelations.add(rewired);
    if (group) group.push(rewired);
    else relationGroups.set(pair, [rewired]);
  }

  const relationIdMap = new Map<string, string>();
  const relationDescriptions = new Map<string, string[]>();
  const mergedRelations: RelationRecord[] = [];
  for (const group of relationGroups.values()) {
    const first = group[0] as RelationRecord;
    const untouched = group.length === 1 && !movedRelations.has(first);
    const merged = untouched ? { ...first, keywords: [...first.keywords], chunkIds: [...first.chunkIds] } : mergeRelations(group);
    for (const member of group) if (member.id !== merged.id) relationIdMap.set(member.id, merged.id);
    const lists = group.flatMap((member) => {
      const list = descriptions.relations?.get(member.id);
      return list === undefined ? [] : [list];
    });
    if (lists.length > 0) relationDescriptions.set(merged.id, distinct(lists.flat()));
    mergedRelations.push(merged);
  }

  const neighbours = new Map<string, Set<string>>();
  const link = (from: string, to: string): void => {
    let set = neighbours.get(from);
    if (!set) neighbours.set(from, (set = new Set()));
    set.add(to);
  };
  for (const relation of mergedRelations) {
    if (relation.source === relation.target) continue;
    link(relation.source, relation.target);
    link(relation.target, relation.source);
  }
  const degreeOf = (id: string): number => neighbours.get(id)?.size ?? 0;
  for (const entity of mergedEntities) entity.degree = degreeOf(entity.id);
  for (const relation of mergedRelations) relation.combinedDegree = degreeOf(relation.source) + degreeOf(relation.target);

  return { entities: mergedEntities, relations: mergedRelations, idMap, relationIdMap, droppedRelationIds, entityDescriptions, relationDescriptions };
}

function mostFrequent(members: readonly EntityRecord[]): EntityRecord {
  return members.reduce((best, member) => (member.frequency > best.frequency ? member : best));
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function mergeEntities(cluster: readonly EntityRecord[]): EntityRecord {
  const canonical = cluster[0] as EntityRecord;
  const aliases = distinct([...canonical.aliases, ...cluster.slice(1).flatMap((member) => [member.title, ...member.aliases])]).filter(
    (alias) => alias !== canonical.title && alias.trim().length > 0,
  );
  const chunkIds = distinct(cluster.flatMap((member) => member.chunkIds));
  const descriptions = distinct(cluster.map((member) => member.description.trim()).filter((description) => description.length > 0));
  return {
    ...canonical,
    aliases,
    type: majorityType(cluster),
    description: descriptions.join('\n'),
    frequency: Math.max(chunkIds.length, maxOf(cluster.map((member) => member.frequency))),
    chunkIds,
  };
}

function majorityType(cluster: readonly EntityRecord[]): string {
  const specific = cluster.filter((member) => !isVagueEntityType(member.type));
  const voters = specific.length > 0 ? specific : cluster;
  const votes = new Map<string, number>();
  for (const member of voters) votes.set(member.type, (votes.get(member.type) ?? 0) + Math.max(1, member.frequency));
  const top = maxOf(votes.values());
  const canonicalType = (cluster[0] as EntityRecord).type;
  if (votes.get(canonicalType) === top) return canonicalType;
  return voters.find((member) => votes.get(member.type) === top)?.type ?? canonicalType;
}

function mergeRelations(group: readonly RelationRecord[]): RelationRecord {
  const first = group[0] as RelationRecord;
  const [source, target] = first.source < first.target ? [first.source, first.target] : [first.target, first.source];
  const id = contentId('relation', source, target);
  const descriptions = distinct(group.map((relation) => relation.description.trim()).filter((description) => description.length > 0));
  const keeper = group.find((relation) => relation.id === id);
  const merged: RelationRecord = {
    id,
    source,
    target,
    description: descriptions.join('\n'),
    keywords: distinct(group.flatMap((relation) => relation.keywords)),
    weight: group.reduce((sum, relation) => sum + relation.weight, 0),
    combinedDegree: 0,
    chunkIds: distinct(group.flatMap((relation) => relation.chunkIds)),
  };
  if (keeper?.hid !== undefined) merged.hid = keeper.hid;
  return merged;
}
