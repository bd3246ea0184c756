import type { CommunitiesConfig } from '../../core/config/config-schema.js';
import { ascendingOrder } from '../../core/ascending-order.js';
import { contentId } from '../../core/ids.js';
import { ValuesById } from '../../core/values-by-id.js';
import type { CommunityRecord } from '../../core/types.js';
import type { Store } from '../../store/store.js';
import { clusteringGraph, hierarchicalLeiden, type LeidenHierarchyStart } from '../../graph/hierarchical-leiden.js';
import { recordStatisticsEpoch, statisticsEpochOf } from '../corpus-statistics.js';
import type { PipelineStep, StepName } from '../pipeline-step.js';
import { readEntityGraph, type ChunkLists, type EntityGraphSnapshot } from './entity-graph-snapshot.js';
import { keepCommunityIds } from './keep-community-ids.js';
import { decodeCommunityMembers, encodeCommunityMembers, entityListDigest } from './community-members-codec.js';
import { positionsOf } from '../../core/positions-of.js';

/** Meta key of what the next run needs to update the communities: the clustering settings and the graph they were made from. */
export const communitiesStateKey = 'communities:graph';

/**
 * The meta record under {@link communitiesStateKey}. Version 2 lists the entities and their digests in table order
 * ({@link ValuesById}); version 1, read still, held them as one object, which took four times as long to parse.
 */
type CommunitiesState =
  | {
      version: 2;
      /** The settings that shape the hierarchy; a warm start from another hierarchy would not be this one's update. */
      clustering: ClusteringSettings;
      /** Entity ids, in table order. */
      ids: string[];
      /** The digest of each entity's edges (see `adjacencyDigests`), in the order of `ids`. */
      digests: string[];
    }
  | { version: 1; clustering: ClusteringSettings; digests: Record<string, string> };

/** The stored clustering settings and edge digests, or undefined when none are stored or readable. */
async function readCommunitiesState(store: Pick<Store, 'getMeta'>): Promise<{ clustering: ClusteringSettings; digests: ValuesById } | undefined> {
  const state = await store.getMeta<CommunitiesState>(communitiesStateKey);
  if (state?.version === 1) return { clustering: state.clustering, digests: ValuesById.ofRecord(state.digests) };
  const digests = state?.version === 2 ? ValuesById.ofLists(state.ids, state.digests) : undefined;
  return state && digests ? { clustering: state.clustering, digests } : undefined;
}

/** Blob key of the communities' members as entity positions (`CommunityMembers`), written beside {@link communitiesStateKey}. */
const communityMembersKey = 'communities:members';

/** The blob of {@link communityMembersKey} for `hierarchy`: each community's members (nodes) as positions (`order`) in `entityIds`. */
function communityMembersBlob(hierarchy: ReadonlyArray<{ members: readonly number[] }>, communityIds: readonly string[], order: Int32Array, entityIds: readonly string[]): Uint8Array {
  const starts = new Int32Array(hierarchy.length + 1);
  hierarchy.forEach((community, index) => (starts[index + 1] = (starts[index] as number) + community.members.length));
  const members = new Int32Array(starts[hierarchy.length] as number);
  hierarchy.forEach((community, index) => {
    let slot = starts[index] as number;
    for (const node of community.members) members[slot++] = order[node] as number;
  });
  return encodeCommunityMembers({ communityIds: [...communityIds], entities: entityIds.length, entityDigest: entityListDigest(entityIds), starts, members });
}

/**
 * The members of the communities `communityIds` as positions in `entityIds` (−1: an id not among them), in the order
 * their rows list them: from {@link communityMembersKey} when it numbers exactly that entity list (its digest) and lists
 * every one of these communities (`stored`), else from the rows' entity lists. What an update reads instead of parsing
 * and looking up every row's list again; the communities step asks in the entity list it clustered last, the reports
 * step in the entities as they are.
 */
export async function communityMemberPositions(store: Pick<Store, 'getBlob' | 'table'>, communityIds: readonly string[], entityIds: readonly string[]): Promise<{ members: Int32Array[]; stored: boolean }> {
  const blob = await store.getBlob(communityMembersKey);
  const numbered = blob && decodeCommunityMembers(blob);
  if (numbered && numbered.entities === entityIds.length && numbered.entityDigest === entityListDigest(entityIds)) {
    const indexOf = positionsOf(numbered.communityIds);
    const members = communityIds.map((id) => {
      const index = indexOf.get(id);
      return index === undefined ? undefined : numbered.members.subarray(numbered.starts[index], numbered.starts[index + 1]);
    });
    if (members.every((list) => list !== undefined)) return { members: members as Int32Array[], stored: true };
  }
  const positionOf = positionsOf(entityIds);
  const lists = new Map((await store.table('communities').pick(['id', 'entityIds'])).map((community) => [community.id, community.entityIds]));
  return { members: communityIds.map((id) => Int32Array.from(lists.get(id) ?? [], (entity) => positionOf.get(entity) ?? -1)), stored: false };
}

/** Meta key of {@link StoredRows}: what an update compares with to build and rewrite only the rows that changed. */
const communityRowsKey = 'communities:rows';

/** The meta record under {@link communityRowsKey}. */
interface StoredRows {
  version: 3;
  /** Community id → hash of its row as written. */
  rows: Record<string, string>;
  /** Community id → digest of what its row lists of the graph: its inner relations and chunks (see `rowItemHashes`). */
  inner: Record<string, string>;
  /**
   * The modularity of the last fresh level-0 clustering (a first build's, or the check of an update at a refresh):
   * between refreshes an update checks its level 0 against a fresh clustering only when it falls below this
   * (`qualityReference`, graph/hierarchical-leiden.ts). Here rather than in `communities:graph`, which a fresh build of
   * the same graph reproduces: this depends on the clustering's history.
   */
  level0Quality?: number;
}

/**
 * The stored rows record. One written before version 3 has no inner digests (version 2 kept per-entity digests, version 1
 * is the bare id → hash map): its rows are all built once, and compared with the stored hashes.
 */
function storedRowsOf(stored: unknown): { rows: Record<string, string>; inner: Record<string, string> | undefined; level0Quality: number | undefined } | undefined {
  if (stored === undefined || stored === null || typeof stored !== 'object') return undefined;
  const record = stored as Partial<Omit<StoredRows, 'version'>> & { version?: number };
  if (record.version === 3 && record.rows && record.inner) return { rows: record.rows, inner: record.inner, level0Quality: typeof record.level0Quality === 'number' ? record.level0Quality : undefined };
  if (record.version === 2 && record.rows) return { rows: record.rows, inner: undefined, level0Quality: undefined };
  return { rows: stored as Record<string, string>, inner: undefined, level0Quality: undefined };
}

/**
 * The hash of every community row as the communities step last wrote it (community id → hash), or undefined when the
 * index holds none: equal hashes, equal rows. The reports step compares them to know which communities it need not read.
 */
export async function communityRowHashes(store: Pick<Store, 'getMeta'>): Promise<Readonly<Record<string, string>> | undefined> {
  return storedRowsOf(await store.getMeta(communityRowsKey))?.rows;
}

type ClusteringSettings = Pick<CommunitiesConfig, 'maxClusterSize' | 'resolution' | 'seed'> & { algorithm: string };

const algorithm = 'hierarchical-leiden';

/**
 * A digest of each entity's edges (in the entities' order): its neighbours and how many chunks support each edge. Two runs with equal
 * digests for an entity gave Leiden the same neighbourhood, up to edge weights that moved only with corpus-wide
 * statistics (fast mode's PMI weights all shift a little when any document is added; counting that as a change
 * would make every entity "changed"). An entity that gained or lost an edge, or an edge that gained or lost a
 * supporting chunk, changes the digest of both ends. The digest is the edge count and a 64-bit multiset hash
 * (a sum of mixed per-edge hashes, so edge order does not matter): hashing sorted strings cost most of a second
 * on 2Wiki's 105,000 edges, this a few milliseconds.
 */
function adjacencyDigests(graph: Pick<EntityGraphSnapshot, 'entityIds' | 'relationChunks' | 'endpoints'>, { low, high }: IdHashes): string[] {
  const { entityIds, relationChunks, endpoints } = graph;
  const sumLow = new Uint32Array(entityIds.length);
  const sumHigh = new Uint32Array(entityIds.length);
  const edges = new Int32Array(entityIds.length);
  const add = (node: number, neighbor: number, chunks: number): void => {
    const salt = Math.imul(chunks + 1, 0x9e3779b1);
    sumLow[node] = ((sumLow[node] as number) + mix32((low[neighbor] as number) ^ salt)) >>> 0;
    sumHigh[node] = ((sumHigh[node] as number) + mix32((high[neighbor] as number) + salt)) >>> 0;
    edges[node] = (edges[node] as number) + 1;
  };
  for (let relation = 0; relation * 2 < endpoints.length; relation++) {
    const source = endpoints[relation * 2] as number;
    const target = endpoints[relation * 2 + 1] as number;
    if (source < 0 || target < 0 || source === target) continue;
    const chunks = (relationChunks.starts[relation + 1] as number) - (relationChunks.starts[relation] as number);
    add(source, target, chunks);
    add(target, source, chunks);
  }
  return entityIds.map((_, position) => `${edges[position]}:${(sumLow[position] as number).toString(16)}:${(sumHigh[position] as number).toString(16)}`);
}

/** Two 32-bit hashes of each entity id, in the entities' order: what the edge digests and the row hashes fold in. */
interface IdHashes {
  low: Uint32Array;
  high: Uint32Array;
}

function idHashes(entityIds: readonly string[]): IdHashes {
  return { low: Uint32Array.from(entityIds, (id) => fnv1a(id, 0x811c9dc5)), high: Uint32Array.from(entityIds, (id) => fnv1a(id, 0x01000193)) };
}

/** 32-bit FNV-1a of a string's UTF-16 code units, from `seed`. */
function fnv1a(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let position = 0; position < text.length; position++) hash = Math.imul(hash ^ text.charCodeAt(position), 0x01000193);
  return hash >>> 0;
}

/** MurmurHash3's 32-bit finalizer: spreads every input bit over the output. */
function mix32(value: number): number {
  let mixed = value >>> 0;
  mixed = Math.imul(mixed ^ (mixed >>> 16), 0x85ebca6b);
  mixed = Math.imul(mixed ^ (mixed >>> 13), 0xc2b2ae35);
  return (mixed ^ (mixed >>> 16)) >>> 0;
}

/**
 * 64-bit hashes (two 32-bit halves) of what a community row lists of each relation and entity: a relation's id, two ends
 * and chunk list in order; an entity's chunk list in order (a row without inner relations lists its members' chunks).
 * Every string is hashed once (chunk ids are shared by many relations); lists fold the hashes in order.
 */
function rowItemHashes(graph: EntityGraphSnapshot, { low: idLow, high: idHigh }: IdHashes): { relationLow: Uint32Array; relationHigh: Uint32Array; entityLow: Uint32Array; entityHigh: Uint32Array } {
  const { entityIds, relationIds, endpoints } = graph;
  const chunkLow = Uint32Array.from(graph.chunkIds, (id) => fnv1a(id, 0x811c9dc5));
  const chunkHigh = Uint32Array.from(chunkLow, (hash) => mix32(hash ^ 0x5bd1e995));
  const foldChunks = (low: number, high: number, chunks: ChunkLists, row: number): [number, number] => {
    const start = chunks.starts[row] as number;
    const end = chunks.starts[row + 1] as number;
    for (let position = start; position < end; position++) {
      const chunk = chunks.chunks[position] as number;
      low = foldHash(low, chunkLow[chunk] as number);
      high = foldHash(high, chunkHigh[chunk] as number);
    }
    // The length ends the list, so that chunks do not run into what is folded after them.
    return [foldHash(low, end - start), foldHash(high, end - start)];
  };
  const relationLow = new Uint32Array(relationIds.length);
  const relationHigh = new Uint32Array(relationIds.length);
  relationIds.forEach((relationId, index) => {
    const id = fnv1a(relationId, 0x811c9dc5);
    const source = endpoints[index * 2] as number;
    const target = endpoints[index * 2 + 1] as number;
    const [low, high] = foldChunks(
      foldHash(foldHash(id, source < 0 ? 0 : (idLow[source] as number)), target < 0 ? 0 : (idLow[target] as number)),
      foldHash(foldHash(mix32(id ^ 0x27d4eb2f), source < 0 ? 0 : (idHigh[source] as number)), target < 0 ? 0 : (idHigh[target] as number)),
      graph.relationChunks,
      index,
    );
    relationLow[index] = low;
    relationHigh[index] = high;
  });
  const entityLow = new Uint32Array(entityIds.length);
  const entityHigh = new Uint32Array(entityIds.length);
  entityIds.forEach((_, position) => {
    const [low, high] = foldChunks(idLow[position] as number, idHigh[position] as number, graph.entityChunks, position);
    entityLow[position] = low;
    entityHigh[position] = high;
  });
  return { relationLow, relationHigh, entityLow, entityHigh };
}

/** One step of an order-sensitive fold of 32-bit hashes. */
function foldHash(hash: number, value: number): number {
  return mix32(Math.imul(hash, 31) ^ value);
}

/**
 * Which entities (by position) an update touched, as far as a community row reads them: an entity whose edges' digest
 * changed (an edge came or went, or changed its chunk count), whose row the run wrote (its chunk list), or that ends a
 * relation the run wrote (its chunk list or weight). An entity of none of these has the relations and chunk lists it
 * had. Undefined when the run's writes or the stored digests are not known: every row is walked.
 */
function touchedEntities(
  graph: Pick<EntityGraphSnapshot, 'relationIds' | 'endpoints'>,
  known: {
    edgesChanged: Uint8Array | undefined;
    entities: ReadonlySet<string> | undefined;
    relations: ReadonlySet<string> | undefined;
    /** The graph's entities, in the order of its positions. */
    entityIds: readonly string[];
  },
): Uint8Array | undefined {
  const { edgesChanged, entities, relations, entityIds } = known;
  if (edgesChanged === undefined || entities === undefined || relations === undefined) return undefined;
  const touched = Uint8Array.from(edgesChanged);
  // One pass over the entities, not a map of all of them to find the few written.
  if (entities.size > 0) entityIds.forEach((id, position) => {
    if (entities.has(id)) touched[position] = 1;
  });
  if (relations.size > 0) {
    graph.relationIds.forEach((id, relation) => {
      if (!relations.has(id)) return;
      for (const end of [graph.endpoints[relation * 2] as number, graph.endpoints[relation * 2 + 1] as number]) if (end >= 0) touched[end] = 1;
    });
  }
  return touched;
}

/** The number of a "Community N" title, or 0. */
function titleNumber(title: string): number {
  const match = /^Community (\d+)$/.exec(title);
  return match ? Number(match[1]) : 0;
}

/**
 * Hierarchical communities of the entity graph (GraphRAG `create_communities`, hierarchical Leiden as
 * graspologic's): level 0 is the coarsest; communities larger than `maxClusterSize` are split into the
 * next level. Every connected component is clustered, not only the largest. `graphStep` is the step
 * whose entities and relations are clustered (nlp-extract in fast mode, summarize in standard mode). A community lists
 * its entities, the relations inside it, and the chunks those relations come from (GraphRAG's rule),
 * or its entities' chunks when it has no inner relation.
 *
 * Without churn (`communities.incremental`, on by default): when the index already holds communities made
 * with the same clustering settings, the hierarchy is updated rather than recomputed — Leiden starts from the
 * previous partition and revisits only the entities whose edges changed since (a digest of each entity's edges
 * is kept in the meta record `communities:graph`), and unchanged communities keep their sub-communities
 * (graph/hierarchical-leiden.ts). Between refreshes of the corpus statistics the partition is kept like the other
 * fitted figures (`communities.betweenRefreshes` 'place', count `placedOnly`): no clustering is redone, every entity
 * keeps its communities and a new one joins, level by level, the community it adds most modularity to. With 'recluster'
 * the update is the warm start above, its level 0 held to the modularity of the last fresh level-0 clustering
 * (`level0Quality` in `communities:rows`) and clustered afresh for comparison only when it falls below it. A refresh,
 * like a first build, warm-starts and compares with a fresh clustering (count `level0Checked`). Then each community
 * keeps the id and title of the previous community of its level whose members it shares by Jaccard ≥
 * `communities.keepIdJaccard` (keep-community-ids.ts); kept rows
 * keep their place (`hid`), new ones are appended with new ids (content hashes) and the next free
 * "Community N" titles. A kept community with the same members, parent, children and title, whose inner relations
 * (their ids, ends and chunk lists, in the order the row meets them) are the ones it listed (a digest per community in
 * `communities:rows`), is not built again: its row is the stored one. Its inner relations are still found (a walk
 * over its members' relations as numbers), but not turned into id and chunk lists and hashed. The graph itself comes
 * from a snapshot kept beside the communities and the entity and relation rows the run wrote since
 * (`StepContext.changedKeys`; entity-graph-snapshot.ts, count `graphPatched`), not from a read of every relation, when
 * the runner knows those rows; the previous communities' members come as numbers from `communities:members` (count
 * `membersStored`), not from their rows' entity lists. A first build, or one with `incremental: false`, is the plain clustering: ids are content hashes and titles
 * number the communities in order.
 */
export function createCommunitiesStep(graphStep: StepName): PipelineStep {
  return {
  name: 'communities',
  version: 2,
  reads: [graphStep],
  settings: (config) => ({ communities: config.communities, algorithm }),

  async run(context) {
    const { store, config } = context;
    const settings = config.communities;
    // The entity graph as numbers; an update reads only the rows this run wrote into the snapshot the last run kept.
    const { graph, patched, write: keepGraph } = await readEntityGraph(store, { entities: context.changedKeys?.('entities'), relations: context.changedKeys?.('relations') });
    const { entityIds, relationIds, endpoints, entityChunks, relationChunks, chunkIds } = graph;
    const clustering: ClusteringSettings = { maxClusterSize: settings.maxClusterSize, resolution: settings.resolution, seed: settings.seed, algorithm };
    const entityHashes = idHashes(entityIds);
    const digests = adjacencyDigests(graph, entityHashes);
    // Only what an update reads of the previous communities: their chunk and relation lists are most of their bytes, and
    // their members come as numbers from `communities:members` (their rows' entity lists only when that cannot be read).
    const previous = settings.incremental ? await store.table('communities').pick(['id', 'level', 'parent', 'children', 'title']) : [];
    const state = previous.length > 0 ? await readCommunitiesState(store) : undefined;
    const stored = previous.length > 0 ? storedRowsOf(await store.getMeta(communityRowsKey)) : undefined;
    // Between refreshes of the corpus statistics an update places new entities into the kept partition, or (recluster)
    // holds its level 0 to the quality of the last fresh check instead of a fresh clustering each time; a refresh checks
    // it against a fresh one again, as before.
    const { epoch, incremental: sameEpoch } = await statisticsEpochOf(context, 'communities');
    let level0Quality = sameEpoch ? stored?.level0Quality : undefined;
    // The clustering numbers the entities in id order (node r is the entity at position `order[r]`). The hierarchy, the
    // previous communities and the matching of ids work on those numbers: each previous member's id is looked up once,
    // and members are named again only in the rows built, where maps and sets of string ids cost a tenth of the step.
    const { ids: nodeIds, order, rank: nodeAt, graph: clusterGraph } = clusteringGraph(entityIds, endpoints, graph.weights);
    // Positions in the entity list the previous communities were clustered from, each found now at its own position
    // when it is still there (an update appends new entities) and by id otherwise.
    const clustered = state?.digests.ids ?? entityIds;
    const { members: listed, stored: membersStored } = previous.length === 0 ? { members: [], stored: false } : await communityMemberPositions(store, previous.map((community) => community.id), clustered);
    const now = new ValuesById(entityIds, entityIds);
    const nodeOfListed = Int32Array.from(clustered, (id, position) => {
      const current = now.indexOf(id, position);
      return current < 0 ? -1 : (nodeAt[current] as number);
    });
    const previousMembers = listed.map((positions) => Int32Array.from(positions, (position) => (position < 0 ? -1 : (nodeOfListed[position] as number))));
    // Entities whose edges changed since the stored digests: where a warm start revisits, and what rows read anew.
    // Looked up by position in `entityIds`: an entity past the stored ones, when they begin it, is a new one.
    state?.digests.alignTo(entityIds);
    const edgesChanged = state && Uint8Array.from(entityIds, (id, position) => (state.digests.get(id, position) === digests[position] ? 0 : 1));
    let start: LeidenHierarchyStart | undefined;
    let level0Fresh = false;
    let level0Checked = false;
    if (state !== undefined && JSON.stringify(state.clustering) === JSON.stringify(clustering)) {
      const changed = new Set<number>();
      edgesChanged?.forEach((flag, position) => {
        if (flag === 1) changed.add(nodeAt[position] as number);
      });
      start = {
        // A member no longer in the graph (−1) is ignored by the clustering.
        communities: previous.map((community, index) => ({ level: community.level, members: previousMembers[index] as Int32Array })),
        changed,
        ...(level0Quality === undefined ? {} : { qualityReference: level0Quality }),
        placeOnly: sameEpoch && settings.betweenRefreshes === 'place',
        onLevel0Check: (check) => {
          level0Fresh = check.keptFresh;
          level0Checked = check.fresh !== undefined;
        },
      };
    }
    const hierarchy = hierarchicalLeiden(
      clusterGraph,
      {
        maxClusterSize: settings.maxClusterSize,
        resolution: settings.resolution,
        seed: settings.seed,
        moveMargin: settings.moveMargin,
        maxQualityLoss: settings.maxModularityLoss,
        maxSplitQualityLoss: settings.maxSplitModularityLoss,
        onFreshLevel0: (quality) => {
          level0Quality = quality;
        },
      },
      start,
    );
    // A community's members are marked by its index in stamp arrays: the hierarchy lists each entity once per level,
    // and sets of string ids cost most of the step.
    const entityRelationStarts = new Int32Array(entityIds.length + 1);
    for (const entity of endpoints) if (entity >= 0) entityRelationStarts[entity + 1] = (entityRelationStarts[entity + 1] as number) + 1;
    for (let entity = 0; entity < entityIds.length; entity++) entityRelationStarts[entity + 1] = (entityRelationStarts[entity + 1] as number) + (entityRelationStarts[entity] as number);
    // Each entity's relations in table order (a self-loop twice), as rows of one flat array.
    const entityRelations = new Int32Array(entityRelationStarts[entityIds.length] as number);
    const filled = entityRelationStarts.slice(0, entityIds.length);
    for (let end = 0; end < endpoints.length; end++) {
      const entity = endpoints[end] as number;
      if (entity < 0) continue;
      const position = filled[entity] as number;
      entityRelations[position] = end >> 1;
      filled[entity] = position + 1;
    }
    // A community lists its relations by id: their places sort as numbers, far faster than the ids as strings. The
    // relations table is in id order but for the rows an update appended, which `ascendingOrder` sorts and merges in.
    const { rank: relationRank, order: relationsById } = ascendingOrder(relationIds);
    const memberStamp = new Int32Array(entityIds.length).fill(-1);
    const relationStamp = new Int32Array(relationIds.length).fill(-1);
    const chunkStamp = new Int32Array(chunkIds.length).fill(-1);
    // The inner relations of the community being walked (each relation at most once per community).
    const innerRelations = new Int32Array(relationIds.length);
    const { ids, keptFrom } = keepCommunityIds(
      hierarchy,
      previous.map((community, index) => ({ id: community.id, level: community.level, members: previousMembers[index] as Int32Array })),
      settings.keepIdJaccard,
      nodeIds.length,
      (node) => nodeIds[node] as string,
    );
    let nextTitle = previous.reduce((highest, community) => Math.max(highest, titleNumber(community.title)), 0);
    const titles = keptFrom.map((earlier) => (earlier >= 0 ? (previous[earlier] as (typeof previous)[number]).title : `Community ${++nextTitle}`));
    const itemHashes = rowItemHashes(graph, entityHashes);
    const parentId = (community: (typeof hierarchy)[number]): string | null => (community.parent === null ? null : (ids[community.parent] as string));
    // A kept community with the same members, parent, children and title whose inner relations and chunks are the
    // ones it listed (its inner digest) has the row it had: its stored hash stands for it and it is not built again.
    const unchangedRow = (community: (typeof hierarchy)[number], index: number, inner: string): string | undefined => {
      const earlier = keptFrom[index] as number;
      if (earlier < 0 || stored?.inner === undefined) return undefined;
      const before = previous[earlier] as (typeof previous)[number];
      const hash = stored.rows[before.id];
      if (
        hash === undefined ||
        stored.inner[before.id] !== inner ||
        before.title !== titles[index] ||
        before.parent !== parentId(community) ||
        (previousMembers[earlier] as Int32Array).length !== community.members.length ||
        before.children.length !== community.children.length ||
        community.children.some((child, position) => ids[child] !== before.children[position]) ||
        community.members.some((member, position) => member !== (previousMembers[earlier] as Int32Array)[position])
      ) {
        return undefined;
      }
      return hash;
    };
    const rowHashes: Record<string, string> = {};
    const innerDigests: Record<string, string> = {};
    const records: CommunityRecord[] = [];
    const touched = touchedEntities(graph, { edgesChanged, entities: context.changedKeys?.('entities'), relations: context.changedKeys?.('relations'), entityIds });
    hierarchy.forEach((community, index) => {
      const id = ids[index] as string;
      // A kept community none of whose members the run touched lists the inner relations and chunks it listed: its
      // stored inner digest is its digest, without the walk over its members' relations.
      const earlier = keptFrom[index] as number;
      const storedInner = earlier >= 0 ? stored?.inner?.[(previous[earlier] as (typeof previous)[number]).id] : undefined;
      if (touched !== undefined && storedInner !== undefined && community.members.every((node) => touched[order[node] as number] === 0)) {
        const kept = unchangedRow(community, index, storedInner);
        if (kept !== undefined) {
          innerDigests[id] = storedInner;
          rowHashes[id] = kept;
          return;
        }
      }
      const members = Int32Array.from(community.members, (node) => order[node] as number);
      for (let at = 0; at < members.length; at++) {
        const member = members[at] as number;
        if (member >= 0) memberStamp[member] = index;
      }
      // Inner relations in the order first met: by member, then by the member's relations in table order. Every loop
      // here is over typed arrays with nothing allocated per relation: a top-level community walks most of the graph.
      let innerCount = 0;
      let low = 0x811c9dc5;
      let high = 0x01000193;
      let innerChunks = 0;
      const { relationLow, relationHigh } = itemHashes;
      const chunkStarts = relationChunks.starts;
      for (let at = 0; at < members.length; at++) {
        const member = members[at] as number;
        if (member < 0) continue;
        const end = entityRelationStarts[member + 1] as number;
        for (let position = entityRelationStarts[member] as number; position < end; position++) {
          const relation = entityRelations[position] as number;
          if (relationStamp[relation] === index) continue;
          const source = endpoints[relation * 2] as number;
          const target = endpoints[relation * 2 + 1] as number;
          if (source < 0 || memberStamp[source] !== index || target < 0 || memberStamp[target] !== index) continue;
          relationStamp[relation] = index;
          innerRelations[innerCount++] = relation;
          low = foldHash(low, relationLow[relation] as number);
          high = foldHash(high, relationHigh[relation] as number);
          innerChunks += (chunkStarts[relation + 1] as number) - (chunkStarts[relation] as number);
        }
      }
      const inner = innerRelations.subarray(0, innerCount);
      // Without a chunk from its inner relations, a row lists its members' chunks.
      if (innerChunks === 0) {
        for (const member of members) {
          if (member < 0) continue;
          low = foldHash(low, itemHashes.entityLow[member] as number);
          high = foldHash(high, itemHashes.entityHigh[member] as number);
        }
      }
      const innerDigest = `${inner.length.toString(36)}:${(low >>> 0).toString(16)}:${(high >>> 0).toString(16)}`;
      innerDigests[id] = innerDigest;
      const kept = unchangedRow(community, index, innerDigest);
      if (kept !== undefined) {
        rowHashes[id] = kept;
        return;
      }
      const communityChunks: string[] = [];
      const addChunks = (lists: ChunkLists, row: number): void => {
        const end = lists.starts[row + 1] as number;
        for (let position = lists.starts[row] as number; position < end; position++) {
          const chunk = lists.chunks[position] as number;
          if (chunkStamp[chunk] === index) continue;
          chunkStamp[chunk] = index;
          communityChunks.push(chunkIds[chunk] as string);
        }
      };
      for (const relation of inner) addChunks(relationChunks, relation);
      if (communityChunks.length === 0) for (const member of members) if (member >= 0) addChunks(entityChunks, member);
      const record: CommunityRecord = {
        id,
        level: community.level,
        parent: parentId(community),
        children: community.children.map((child) => ids[child] as string),
        title: titles[index] as string,
        entityIds: community.members.map((node) => nodeIds[node] as string),
        relationIds: Array.from(inner.map((relation) => relationRank[relation] as number).sort(), (rank) => relationIds[relationsById[rank] as number] as string),
        chunkIds: communityChunks,
        size: community.members.length,
      };
      records.push(record);
      rowHashes[record.id] = contentId('community-row', JSON.stringify(record));
    });
    const levels = new Set(hierarchy.map((community) => community.level)).size;
    const kept = keptFrom.filter((earlier) => earlier >= 0).length;
    const current = new Set(ids);
    const removed = previous.filter((community) => !current.has(community.id)).map((community) => community.id);
    const nextState: CommunitiesState = { version: 2, clustering, ids: entityIds, digests };
    const members = communityMembersBlob(hierarchy, ids, order, entityIds);
    // An update writes the rows whose content changed; unchanged rows stay where they are (same hid, same bytes).
    const changedRecords = stored === undefined ? records : records.filter((record) => stored.rows[record.id] !== rowHashes[record.id]);
    const nextRows: StoredRows = { version: 3, rows: rowHashes, inner: innerDigests, ...(level0Quality === undefined ? {} : { level0Quality }) };
    return {
      counts: {
        communities: hierarchy.length,
        levels,
        ...(settings.incremental ? { kept, added: hierarchy.length - kept, removed: removed.length, warmStart: start ? 1 : 0, built: records.length, written: changedRecords.length, graphPatched: patched ? 1 : 0, membersStored: membersStored ? 1 : 0 } : {}),
        ...(start ? { changedEntities: start.changed?.size ?? entityIds.length, placedOnly: start.placeOnly === true ? 1 : 0, level0Checked: level0Checked ? 1 : 0, level0Fresh: level0Fresh ? 1 : 0 } : {}),
      },
      // Kept ids no longer name their members, so the version hashes the rows themselves (by their hashes).
      outputVersion: contentId('communities', hierarchy.map((_, index) => rowHashes[ids[index] as string] as string)),
      async write(tx) {
        if (previous.length > 0) {
          // Kept communities stay in their rows (same hid); the rest go and the new ones are appended.
          await tx.table('communities').deleteWhere('id', removed);
        } else {
          await tx.table('communities').clear();
        }
        await tx.table('communities').upsert(changedRecords);
        await tx.setMeta(communitiesStateKey, nextState);
        await tx.setBlob(communityMembersKey, members);
        await tx.setMeta(communityRowsKey, nextRows);
        await keepGraph(tx);
        await recordStatisticsEpoch(tx, 'communities', epoch);
      },
    };
  },
};
}
