import type { EntityRecord, RelationRecord, TripleRecord } from '../../core/types.js';
import { normalizeEntityName } from '../../extract/entity-resolution/normalize-entity-name.js';
import type { Store } from '../../store/store.js';
import type { MethodContext } from '../query-method.js';
import { foldLabel } from '../../text/fold-label.js';
import { normalizePhrase } from '../../text/normalize-phrase.js';

/*
 * The workspace index as typed, directed edges — what Tree-of-Traversals' relation options need and the
 * index does not store directly. GraphRAG relations are untyped (source, target, description, keywords,
 * weight), so every relation record becomes one or more typed edges, by the first rule that applies:
 *
 * 1. Its `keywords` (LLM extraction that emits them): one type per distinct normalized keyword, directed
 *    source → target as extracted.
 * 2. The OpenIE triples (`triples` table) whose subject and object phrases name its two entities (title or
 *    alias, compared by {@link nameKey}): one type per distinct predicate, directed subject → object — which
 *    may be target → source of the record, since GraphRAG keeps one record per unordered pair.
 * 3. Otherwise the generic, undirected type `related to`; the edge's description is its evidence.
 *
 * Types are keyed by (label, directed), and their ids `R1, R2, …` follow the sorted labels (directed before
 * undirected on equal labels), so an id depends only on the index's contents. Edges stay in arrays indexed
 * by position, with adjacency lists per entity, so a query never scans the relations table.
 */

/** One relation type of the index. */
export interface TypedRelationType {
  /** `R1`, `R2`, … */
  id: string;
  label: string;
  /** False only for the generic `related to` type, which the LLM sees as a forward relation from either end. */
  directed: boolean;
}

/** The typed graph of one index, in arrays. Entities are referred to by position (`entity index`). */
export interface TypedRelationGraph {
  /** Entity index → the row's id, `hid` and title. */
  entityIds: readonly string[];
  entityHids: readonly number[];
  entityTitles: readonly string[];
  /** Ranking of entities that tie on a name or search: frequency, then degree (both descending), then hid. */
  entityRank: Int32Array;
  /** `hid` → entity index. */
  byHid: ReadonlyMap<number, number>;
  /** Row id → entity index. */
  byId: ReadonlyMap<string, number>;
  /** {@link nameKey} of every title and alias → entity indices, best ranked first. */
  byName: ReadonlyMap<string, readonly number[]>;
  /** Every distinct name key, padded with a space each side for whole-word containment, with its entities. */
  names: ReadonlyArray<{ key: string; padded: string; entities: readonly number[] }>;
  types: readonly TypedRelationType[];
  /** Edge → type index, endpoints (entity indices), relation record id and weight. */
  edgeType: Int32Array;
  edgeFrom: Int32Array;
  edgeTo: Int32Array;
  edgeRelation: readonly string[];
  edgeWeight: Float64Array;
  /** Entity index → edges it starts (directed) or touches (undirected). */
  outgoing: ReadonlyMap<number, readonly number[]>;
  /** Entity index → directed edges that end at it. */
  incoming: ReadonlyMap<number, readonly number[]>;
}

/** The generic type's label. */
const genericTypeLabel = 'related to';

/**
 * The key two names share when they name the same thing without further evidence: the entity-resolution
 * exact key (case, dashes, quotes, a leading "the", honorifics), then every non-alphanumeric run as one space
 * (HippoRAG's phrase normalization), so "St. Kester’s Church" and "St Kester's church" meet.
 */
export function nameKey(name: string): string {
  return normalizePhrase(normalizeEntityName(name));
}

/** The entity index of an `E{hid}` id (as the index graph hands them out), if it names an entity of `kg`. */
export function entityIndexOf(kg: TypedRelationGraph, id: string): number | undefined {
  const hid = /^E(\d+)$/.exec(id.trim())?.[1];
  return hid === undefined ? undefined : kg.byHid.get(Number(hid));
}

/** The typed graph of the workspace index, loaded on first use and shared until the next index run. */
export function typedRelationGraph(context: Pick<MethodContext, 'memo' | 'store'>): Promise<TypedRelationGraph> {
  return context.memo('tot:typed-relation-graph', () => loadTypedRelationGraph(context.store));
}

/** Reads the three tables the typed graph is made of (without the text columns) and builds it. */
export async function loadTypedRelationGraph(store: Store): Promise<TypedRelationGraph> {
  const [entities, relations, triples] = await Promise.all([
    store.table('entities').pick(['id', 'title', 'aliases', 'frequency', 'degree']),
    store.table('relations').pick(['id', 'source', 'target', 'keywords', 'weight']),
    store.table('triples').pick(['subject', 'predicate', 'object']),
  ]);
  return buildTypedRelationGraph(entities, relations, triples);
}

/** Builds the typed graph from table rows (entities must carry `hid`). */
export function buildTypedRelationGraph(
  entities: ReadonlyArray<Pick<EntityRecord, 'id' | 'hid' | 'title' | 'aliases' | 'frequency' | 'degree'>>,
  relations: ReadonlyArray<Pick<RelationRecord, 'id' | 'source' | 'target' | 'keywords' | 'weight'>>,
  triples: ReadonlyArray<Pick<TripleRecord, 'subject' | 'predicate' | 'object'>>,
): TypedRelationGraph {
  const order = entities.map((_, index) => index);
  order.sort((a, b) => {
    const left = entities[a] as (typeof entities)[number];
    const right = entities[b] as (typeof entities)[number];
    return right.frequency - left.frequency || right.degree - left.degree || hidOf(left) - hidOf(right);
  });
  const entityRank = new Int32Array(entities.length);
  order.forEach((entity, rank) => (entityRank[entity] = rank));
  const byRank = (a: number, b: number): number => (entityRank[a] as number) - (entityRank[b] as number);

  const byId = new Map<string, number>();
  const byHid = new Map<number, number>();
  const byNameSets = new Map<string, Set<number>>();
  entities.forEach((entity, index) => {
    byId.set(entity.id, index);
    byHid.set(hidOf(entity), index);
    for (const name of [entity.title, ...entity.aliases]) {
      const key = nameKey(name);
      if (key.length === 0) continue;
      let set = byNameSets.get(key);
      if (!set) byNameSets.set(key, (set = new Set()));
      set.add(index);
    }
  });
  const byName = new Map<string, number[]>();
  for (const [key, set] of byNameSets) byName.set(key, [...set].sort(byRank));
  const names = [...byName].map(([key, indices]) => ({ key, padded: ` ${key} `, entities: indices }));

  // Predicates of the triples joining two entities, keyed by the ordered pair (subject entity, object entity).
  const predicatesOf = new Map<string, Set<string>>();
  // Phrases repeat across triples; their keys are computed once each.
  const keyOf = new Map<string, string>();
  const phraseKey = (phrase: string): string => {
    let key = keyOf.get(phrase);
    if (key === undefined) keyOf.set(phrase, (key = nameKey(phrase)));
    return key;
  };
  for (const triple of triples) {
    const subjects = byName.get(phraseKey(triple.subject));
    const objects = byName.get(phraseKey(triple.object));
    const predicate = foldLabel(triple.predicate);
    if (!subjects || !objects || predicate.length === 0) continue;
    for (const subject of subjects) {
      for (const object of objects) {
        if (subject === object) continue;
        const key = `${subject}\u0000${object}`;
        let set = predicatesOf.get(key);
        if (!set) predicatesOf.set(key, (set = new Set()));
        set.add(predicate);
      }
    }
  }

  const typeKeys = new Map<string, { label: string; directed: boolean }>();
  const raw: Array<{ type: string; from: number; to: number; relation: string; weight: number }> = [];
  const add = (label: string, directed: boolean, from: number, to: number, relation: RelationRecordLike): void => {
    const type = `${directed ? 'd' : 'u'}\u0000${label}`;
    typeKeys.set(type, { label, directed });
    raw.push({ type, from, to, relation: relation.id, weight: relation.weight });
  };
  for (const relation of relations) {
    const source = byId.get(relation.source);
    const target = byId.get(relation.target);
    if (source === undefined || target === undefined || source === target) continue;
    const keywords = [...new Set(relation.keywords.map(foldLabel).filter((keyword) => keyword.length > 0))];
    if (keywords.length > 0) {
      for (const keyword of keywords) add(keyword, true, source, target, relation);
      continue;
    }
    const forward = predicatesOf.get(`${source}\u0000${target}`);
    const backward = predicatesOf.get(`${target}\u0000${source}`);
    if (forward || backward) {
      for (const predicate of forward ?? []) add(predicate, true, source, target, relation);
      for (const predicate of backward ?? []) add(predicate, true, target, source, relation);
      continue;
    }
    add(genericTypeLabel, false, source, target, relation);
  }

  const sortedTypes = [...typeKeys.entries()].sort(([, a], [, b]) => (a.label < b.label ? -1 : a.label > b.label ? 1 : Number(b.directed) - Number(a.directed)));
  const typeIndex = new Map(sortedTypes.map(([key], index) => [key, index]));
  const types = sortedTypes.map(([, type], index) => ({ id: `R${index + 1}`, label: type.label, directed: type.directed }));

  const edgeType = new Int32Array(raw.length);
  const edgeFrom = new Int32Array(raw.length);
  const edgeTo = new Int32Array(raw.length);
  const edgeWeight = new Float64Array(raw.length);
  const outgoing = new Map<number, number[]>();
  const incoming = new Map<number, number[]>();
  const link = (lists: Map<number, number[]>, entity: number, edge: number): void => {
    const list = lists.get(entity);
    if (list) list.push(edge);
    else lists.set(entity, [edge]);
  };
  raw.forEach((edge, index) => {
    const type = typeIndex.get(edge.type) as number;
    edgeType[index] = type;
    edgeFrom[index] = edge.from;
    edgeTo[index] = edge.to;
    edgeWeight[index] = edge.weight;
    link(outgoing, edge.from, index);
    if ((types[type] as TypedRelationType).directed) link(incoming, edge.to, index);
    else link(outgoing, edge.to, index);
  });
  return {
    entityIds: entities.map((entity) => entity.id),
    entityHids: entities.map(hidOf),
    entityTitles: entities.map((entity) => entity.title),
    entityRank,
    byHid,
    byId,
    byName,
    names,
    types,
    edgeType,
    edgeFrom,
    edgeTo,
    edgeRelation: raw.map((edge) => edge.relation),
    edgeWeight,
    outgoing,
    incoming,
  };
}

type RelationRecordLike = Pick<RelationRecord, 'id' | 'weight'>;

function hidOf(entity: Pick<EntityRecord, 'id' | 'hid'>): number {
  if (entity.hid === undefined) throw new Error(`entity ${entity.id} has no hid: the store must expose row ids`);
  return entity.hid;
}
