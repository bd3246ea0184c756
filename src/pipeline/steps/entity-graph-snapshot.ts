import { InternedStrings } from '../../core/interned-strings.js';
import { packTypedArrays, unpackTypedArrays } from '../../graph/typed-array-bundle.js';
import type { Store } from '../../store/store.js';
import { positionsOf } from '../../core/positions-of.js';

/** Lists of numbers, row r's at `chunks[starts[r]]…chunks[starts[r + 1]]` (CSR). */
export interface ChunkLists {
  starts: Int32Array;
  chunks: Int32Array;
}

/**
 * The entity graph as the communities step reads it: the entities and relations in table (`hid`) order, their chunk
 * lists and the relations' ends as numbers. Kept as a blob beside the communities, so that an update reads only the
 * rows the run wrote (`StepContext.changedKeys`) instead of every relation: on 2Wiki, reading the 100,000 relations
 * and their chunk lists took a quarter of the step.
 */
export interface EntityGraphSnapshot {
  entityIds: string[];
  /** Each entity's row number in its table: what tells an update where a written row now stands. */
  entityHids: Float64Array;
  /** Each entity's chunks, in its row's order. */
  entityChunks: ChunkLists;
  relationIds: string[];
  relationHids: Float64Array;
  /** Two per relation: the entity numbers of its source and target (−1: no such entity). */
  endpoints: Int32Array;
  weights: Float64Array;
  relationChunks: ChunkLists;
  /** Chunk number → chunk id. */
  chunkIds: string[];
  /**
   * The ends that name no entity (`endpoints` −1), by slot (relation × 2 + side): an entity of that id added later is
   * their end from then on, though their relation is not written again.
   */
  dangling: Array<[slot: number, id: string]>;
}

/** The blob of the snapshot an update starts from: rewritten when the changes since have grown past a share of it. */
export const entityGraphSnapshotKey = 'communities:entity-graph';

/** The blob of the rows written since the snapshot ({@link SnapshotChanges}), rewritten by every update. */
export const entityGraphChangesKey = 'communities:entity-graph-changes';

type EntityRow = { id: string; hid?: number; chunkIds: string[] };
type RelationRow = { id: string; hid?: number; source: string; target: string; weight: number; chunkIds: string[] };

/** The rows written since a snapshot, by id: the row as it is, or null when it is gone. */
interface SnapshotChanges {
  entities: Map<string, EntityRow | null>;
  relations: Map<string, RelationRow | null>;
}

const entityColumns = ['id', 'chunkIds'] as const;
const relationColumns = ['id', 'source', 'target', 'weight', 'chunkIds'] as const;

/** What {@link readEntityGraph} gives: the graph, and the writes that keep its blobs for the next update. */
export interface EntityGraphRead {
  graph: EntityGraphSnapshot;
  /** Whether the graph came from the stored snapshot and the rows written since, not from a read of every row. */
  patched: boolean;
  /** Keeps the graph for the next update: the changes since the snapshot, or a new snapshot (and no changes). */
  write(tx: Store): Promise<void>;
}

/**
 * The entity graph of `store`: the stored snapshot with the rows written since (the stored changes, and this run's
 * `changed` rows, read again), when a snapshot is stored and this run's changed keys of both tables are known; else
 * every row. The changes are kept beside the snapshot, which is written again only once they pass `compactShare` of
 * its rows (or when every row was read): writing the whole graph on every update cost as much as reading every row.
 */
export async function readEntityGraph(
  store: Store,
  changed: { entities: ReadonlySet<string> | undefined; relations: ReadonlySet<string> | undefined },
  compactShare = 0.05,
): Promise<EntityGraphRead> {
  const { entities: changedEntities, relations: changedRelations } = changed;
  if (changedEntities !== undefined && changedRelations !== undefined) {
    const snapshot = decodeEntityGraph(await store.getBlob(entityGraphSnapshotKey));
    const since = snapshot && decodeChanges(await store.getBlob(entityGraphChangesKey));
    if (snapshot !== undefined && since !== undefined) {
      const [entities, relations] = await Promise.all([
        changedEntities.size === 0 ? [] : store.table('entities').pick([...entityColumns], { column: 'id', values: [...changedEntities] }),
        changedRelations.size === 0 ? [] : store.table('relations').pick([...relationColumns], { column: 'id', values: [...changedRelations] }),
      ]);
      // This run's rows over the earlier changes.
      const entityById = new Map(entities.map((row) => [row.id, row]));
      for (const id of changedEntities) since.entities.set(id, entityById.get(id) ?? null);
      const relationById = new Map(relations.map((row) => [row.id, row]));
      for (const id of changedRelations) since.relations.set(id, relationById.get(id) ?? null);
      const patched = patchEntityGraph(snapshot, since);
      if (patched !== undefined) {
        const { graph, changes } = patched;
        const compact = changes.entities.size + changes.relations.size > compactShare * (snapshot.entityIds.length + snapshot.relationIds.length);
        const nothingWritten = changedEntities.size + changedRelations.size === 0;
        return {
          graph,
          patched: true,
          async write(tx) {
            if (compact) await writeSnapshot(tx, graph);
            else if (!nothingWritten) await tx.setBlob(entityGraphChangesKey, encodeChanges(changes));
          },
        };
      }
    }
  }
  const [entities, relations] = await Promise.all([store.table('entities').pick([...entityColumns]), store.table('relations').pick([...relationColumns])]);
  const graph = entityGraphOfRows(entities, relations);
  return { graph, patched: false, write: (tx) => writeSnapshot(tx, graph) };
}

async function writeSnapshot(tx: Store, graph: EntityGraphSnapshot): Promise<void> {
  await tx.setBlob(entityGraphSnapshotKey, encodeEntityGraph(graph));
  await tx.setBlob(entityGraphChangesKey, encodeChanges({ entities: new Map(), relations: new Map() }));
}

/** The chunk lists of `lists` as rows of one CSR, each given as ids. */
function listsOf(lists: ReadonlyArray<readonly string[]>, numbers: InternedStrings): ChunkLists {
  const starts = new Int32Array(lists.length + 1);
  lists.forEach((list, row) => {
    starts[row + 1] = (starts[row] as number) + list.length;
  });
  const chunks = new Int32Array(starts[lists.length] as number);
  let position = 0;
  for (const list of lists) for (const id of list) chunks[position++] = numbers.numberOf(id);
  return { starts, chunks };
}

/** The snapshot of every row of the two tables, in table order. */
export function entityGraphOfRows(entities: readonly EntityRow[], relations: readonly RelationRow[]): EntityGraphSnapshot {
  const numbers = new InternedStrings();
  const entityChunks = listsOf(entities.map((entity) => entity.chunkIds), numbers);
  const relationChunks = listsOf(relations.map((relation) => relation.chunkIds), numbers);
  const entityIds = entities.map((entity) => entity.id);
  const index = positionsOf(entityIds);
  const endpoints = new Int32Array(relations.length * 2);
  const dangling: Array<[number, string]> = [];
  relations.forEach((relation, row) => {
    [relation.source, relation.target].forEach((id, side) => {
      const entity = index.get(id);
      endpoints[row * 2 + side] = entity ?? -1;
      if (entity === undefined) dangling.push([row * 2 + side, id]);
    });
  });
  return {
    entityIds,
    entityHids: Float64Array.from(entities, (entity) => entity.hid ?? 0),
    entityChunks,
    relationIds: relations.map((relation) => relation.id),
    relationHids: Float64Array.from(relations, (relation) => relation.hid ?? 0),
    endpoints,
    weights: Float64Array.from(relations, (relation) => relation.weight),
    relationChunks,
    chunkIds: numbers.values,
    dangling,
  };
}

/** Where the rows of one table of a snapshot stand after changes: see {@link placeRows}. */
interface Placement<R> {
  /** Each snapshot row's new position, −1 when it is gone. */
  positions: Int32Array;
  /** The changed row replacing each snapshot row, undefined where the row is as the snapshot holds it. */
  replaced: Array<R | undefined>;
  /** The new rows, in table order. */
  appended: R[];
  /** The changes that differ from the snapshot: rows changed, gone, or new. */
  changes: Map<string, R | null>;
  kept: number;
}

/**
 * Where the rows of one table stand after `changes`: a changed row takes its snapshot row's place (a kept row keeps its
 * `hid`, the store contract), a gone one leaves it, a new one is appended (its `hid` may be a deleted last row's), and a
 * row deleted and inserted again (another `hid`) is a new one; so the order is the table's. A changed row equal to its
 * snapshot row (`same`: a relation rewritten for a column the graph does not hold) changes nothing. Undefined when the
 * rows do not fit the snapshot's order: a new row before a kept one, which neither store makes.
 */
function placeRows<R extends { id: string; hid?: number }>(
  ids: readonly string[],
  hids: Float64Array,
  changes: ReadonlyMap<string, R | null>,
  same: (row: R, snapshotRow: number) => boolean,
): Placement<R> | undefined {
  const positions = new Int32Array(ids.length);
  const replaced: Array<R | undefined> = new Array<R | undefined>(ids.length);
  const effective = new Map<string, R | null>();
  const inSnapshot = new Set<string>();
  let kept = 0;
  let lastKeptHid = -Infinity;
  for (let row = 0; row < ids.length; row++) {
    const id = ids[row] as string;
    const change = changes.get(id);
    if (change !== undefined) {
      // Gone, or deleted and inserted again: then its row is a new one, appended below.
      if (change === null || change.hid !== hids[row]) {
        positions[row] = -1;
        effective.set(id, null);
        continue;
      }
      inSnapshot.add(id);
      if (!same(change, row)) {
        replaced[row] = change;
        effective.set(id, change);
      }
    }
    positions[row] = kept++;
    lastKeptHid = hids[row] as number;
  }
  const appended: R[] = [];
  for (const [id, change] of changes) if (change !== null && !inSnapshot.has(id)) appended.push(change);
  appended.sort((left, right) => (left.hid ?? 0) - (right.hid ?? 0));
  if (appended.some((row) => (row.hid ?? -Infinity) <= lastKeptHid)) return undefined;
  for (const row of appended) effective.set(row.id, row);
  return { positions, replaced, appended, changes: effective, kept: kept + appended.length };
}

/** Whether `ids` are the chunks of row `row` of `lists`. */
function sameChunks(ids: readonly string[], lists: ChunkLists, row: number, chunkIds: readonly string[]): boolean {
  const start = lists.starts[row] as number;
  if ((lists.starts[row + 1] as number) - start !== ids.length) return false;
  return ids.every((id, offset) => chunkIds[lists.chunks[start + offset] as number] === id);
}

/** CSR lists filled row by row into arrays of known size: a row copied from other lists, or given as ids. */
class ListsFiller {
  readonly starts: Int32Array;
  readonly chunks: Int32Array;
  private row = 0;

  constructor(rows: number, entries: number) {
    this.starts = new Int32Array(rows + 1);
    this.chunks = new Int32Array(entries);
  }

  copy(lists: ChunkLists, row: number): void {
    const start = lists.starts[row] as number;
    const end = lists.starts[row + 1] as number;
    const at = this.starts[this.row] as number;
    this.chunks.set(lists.chunks.subarray(start, end), at);
    this.starts[++this.row] = at + end - start;
  }

  add(ids: readonly string[], numbers: InternedStrings): void {
    let at = this.starts[this.row] as number;
    for (const id of ids) this.chunks[at++] = numbers.numberOf(id);
    this.starts[++this.row] = at;
  }
}

/** The entries of the lists that stay: those of kept rows not replaced, and of the rows replacing or appended. */
function entriesAfter<R extends { chunkIds: readonly string[] }>(lists: ChunkLists, placement: Placement<R>): number {
  let entries = 0;
  placement.positions.forEach((position, row) => {
    if (position < 0) return;
    const current = placement.replaced[row];
    entries += current === undefined ? (lists.starts[row + 1] as number) - (lists.starts[row] as number) : current.chunkIds.length;
  });
  for (const row of placement.appended) entries += row.chunkIds.length;
  return entries;
}

/**
 * The snapshot after `changes` (rows written since it, as they are now, or null when gone), and the changes that
 * differ from it; undefined when the rows do not fit its order ({@link placeRows}). The graph is the one a read of every
 * row gives.
 */
export function patchEntityGraph(snapshot: EntityGraphSnapshot, changes: SnapshotChanges): { graph: EntityGraphSnapshot; changes: SnapshotChanges } | undefined {
  const { chunkIds } = snapshot;
  const entityPlace = placeRows(snapshot.entityIds, snapshot.entityHids, changes.entities, (row, at) => sameChunks(row.chunkIds, snapshot.entityChunks, at, chunkIds));
  if (entityPlace === undefined) return undefined;
  // A relation's ends as ids: an entity's id, or the id a dangling end names.
  const danglingBySlot = new Map(snapshot.dangling);
  const endId = (slot: number): string | undefined => {
    const entity = snapshot.endpoints[slot] as number;
    return entity >= 0 ? snapshot.entityIds[entity] : danglingBySlot.get(slot);
  };
  const relationPlace = placeRows(
    snapshot.relationIds,
    snapshot.relationHids,
    changes.relations,
    (row, at) => row.weight === snapshot.weights[at] && row.source === endId(at * 2) && row.target === endId(at * 2 + 1) && sameChunks(row.chunkIds, snapshot.relationChunks, at, chunkIds),
  );
  if (relationPlace === undefined) return undefined;
  const numbers = new InternedStrings([...chunkIds]);

  const entityIds: string[] = [];
  const entityHids = new Float64Array(entityPlace.kept);
  const entityChunks = new ListsFiller(entityPlace.kept, entriesAfter(snapshot.entityChunks, entityPlace));
  snapshot.entityIds.forEach((id, row) => {
    if ((entityPlace.positions[row] as number) < 0) return;
    const current = entityPlace.replaced[row];
    entityHids[entityIds.length] = snapshot.entityHids[row] as number;
    entityIds.push(id);
    if (current === undefined) entityChunks.copy(snapshot.entityChunks, row);
    else entityChunks.add(current.chunkIds, numbers);
  });
  for (const entity of entityPlace.appended) {
    entityHids[entityIds.length] = entity.hid ?? 0;
    entityIds.push(entity.id);
    entityChunks.add(entity.chunkIds, numbers);
  }

  // Ends of kept relations move with their entities; ends of changed relations, and dangling ends, are looked up.
  let entityIndex: Map<string, number> | undefined;
  const entityNumber = (id: string): number => {
    entityIndex ??= positionsOf(entityIds);
    return entityIndex.get(id) ?? -1;
  };
  const relations = relationPlace.kept;
  const relationIds: string[] = [];
  const relationHids = new Float64Array(relations);
  const endpoints = new Int32Array(relations * 2);
  const weights = new Float64Array(relations);
  const relationChunks = new ListsFiller(relations, entriesAfter(snapshot.relationChunks, relationPlace));
  const dangling: Array<[number, string]> = [];
  const setEnd = (slot: number, entity: number, id: string | undefined): void => {
    endpoints[slot] = entity;
    if (entity < 0 && id !== undefined) dangling.push([slot, id]);
  };
  const addChanged = (relation: RelationRow): void => {
    const at = relationIds.length;
    relationIds.push(relation.id);
    relationHids[at] = relation.hid ?? 0;
    setEnd(at * 2, entityNumber(relation.source), relation.source);
    setEnd(at * 2 + 1, entityNumber(relation.target), relation.target);
    weights[at] = relation.weight;
    relationChunks.add(relation.chunkIds, numbers);
  };
  snapshot.relationIds.forEach((id, row) => {
    if ((relationPlace.positions[row] as number) < 0) return;
    const current = relationPlace.replaced[row];
    if (current !== undefined) {
      addChanged(current);
      return;
    }
    const at = relationIds.length;
    relationIds.push(id);
    relationHids[at] = snapshot.relationHids[row] as number;
    for (let side = 0; side < 2; side++) {
      const before = snapshot.endpoints[row * 2 + side] as number;
      const moved = before >= 0 ? (entityPlace.positions[before] as number) : -1;
      if (moved >= 0) setEnd(at * 2 + side, moved, undefined);
      else if (before >= 0) {
        // An end whose entity left its row: the entity inserted again under its id, else it dangles from now on.
        const id = snapshot.entityIds[before] as string;
        setEnd(at * 2 + side, entityNumber(id), id);
      } else {
        const danglingId = danglingBySlot.get(row * 2 + side);
        setEnd(at * 2 + side, danglingId === undefined ? -1 : entityNumber(danglingId), danglingId);
      }
    }
    weights[at] = snapshot.weights[row] as number;
    relationChunks.copy(snapshot.relationChunks, row);
  });
  for (const relation of relationPlace.appended) addChanged(relation);
  const graph = compactChunks({
    entityIds,
    entityHids,
    entityChunks: { starts: entityChunks.starts, chunks: entityChunks.chunks },
    relationIds,
    relationHids,
    endpoints,
    weights,
    relationChunks: { starts: relationChunks.starts, chunks: relationChunks.chunks },
    chunkIds: numbers.values,
    dangling,
  });
  return { graph, changes: { entities: entityPlace.changes, relations: relationPlace.changes } };
}

/**
 * The snapshot with its chunks numbered as a read of every row numbers them: in the order the entities' lists and then
 * the relations' first name them (chunks no list names any more, of removed documents, drop out).
 */
function compactChunks(snapshot: EntityGraphSnapshot): EntityGraphSnapshot {
  const renumbered = new Int32Array(snapshot.chunkIds.length).fill(-1);
  const chunkIds: string[] = [];
  const renumber = (lists: ChunkLists): ChunkLists => ({
    starts: lists.starts,
    chunks: lists.chunks.map((chunk) => {
      if (renumbered[chunk] === -1) {
        renumbered[chunk] = chunkIds.length;
        chunkIds.push(snapshot.chunkIds[chunk] as string);
      }
      return renumbered[chunk] as number;
    }),
  });
  const entityChunks = renumber(snapshot.entityChunks);
  const relationChunks = renumber(snapshot.relationChunks);
  return { ...snapshot, entityChunks, relationChunks, chunkIds };
}

/** Packs a snapshot into a blob. */
export function encodeEntityGraph(snapshot: EntityGraphSnapshot): Uint8Array {
  return packTypedArrays({
    json: { version: 1, entityIds: snapshot.entityIds, relationIds: snapshot.relationIds, chunkIds: snapshot.chunkIds, dangling: snapshot.dangling },
    arrays: {
      entityHids: snapshot.entityHids,
      entityChunkStarts: snapshot.entityChunks.starts,
      entityChunks: snapshot.entityChunks.chunks,
      relationHids: snapshot.relationHids,
      endpoints: snapshot.endpoints,
      weights: snapshot.weights,
      relationChunkStarts: snapshot.relationChunks.starts,
      relationChunks: snapshot.relationChunks.chunks,
    },
  });
}

/** The snapshot in a blob written by {@link encodeEntityGraph}, or undefined when there is none or it is not one. */
export function decodeEntityGraph(bytes: Uint8Array | undefined): EntityGraphSnapshot | undefined {
  if (bytes === undefined) return undefined;
  try {
    const { json, arrays } = unpackTypedArrays(bytes);
    const header = json as { version?: number; entityIds?: string[]; relationIds?: string[]; chunkIds?: string[]; dangling?: Array<[number, string]> };
    const { entityHids, entityChunkStarts, entityChunks, relationHids, endpoints, weights, relationChunkStarts, relationChunks } = arrays;
    if (header.version !== 1 || !header.entityIds || !header.relationIds || !header.chunkIds || !header.dangling) return undefined;
    const entities = header.entityIds.length;
    const relations = header.relationIds.length;
    if (
      !(entityHids instanceof Float64Array && entityHids.length === entities) ||
      !(entityChunkStarts instanceof Int32Array && entityChunkStarts.length === entities + 1) ||
      !(entityChunks instanceof Int32Array) ||
      !(relationHids instanceof Float64Array && relationHids.length === relations) ||
      !(endpoints instanceof Int32Array && endpoints.length === relations * 2) ||
      !(weights instanceof Float64Array && weights.length === relations) ||
      !(relationChunkStarts instanceof Int32Array && relationChunkStarts.length === relations + 1) ||
      !(relationChunks instanceof Int32Array)
    ) {
      return undefined;
    }
    return {
      entityIds: header.entityIds,
      entityHids,
      entityChunks: { starts: entityChunkStarts, chunks: entityChunks },
      relationIds: header.relationIds,
      relationHids,
      endpoints,
      weights,
      relationChunks: { starts: relationChunkStarts, chunks: relationChunks },
      chunkIds: header.chunkIds,
      dangling: header.dangling,
    };
  } catch {
    // An unreadable snapshot only costs a read of every row.
    return undefined;
  }
}

/** Packs the changes since a snapshot (JSON: an entity `[id, hid, chunkIds]`, a relation `[id, hid, source, target, weight, chunkIds]`, a gone row `[id]`). */
function encodeChanges(changes: SnapshotChanges): Uint8Array {
  const entities = [...changes.entities].map(([id, row]) => (row === null ? [id] : [id, row.hid ?? 0, row.chunkIds]));
  const relations = [...changes.relations].map(([id, row]) => (row === null ? [id] : [id, row.hid ?? 0, row.source, row.target, row.weight, row.chunkIds]));
  return Buffer.from(JSON.stringify({ version: 1, entities, relations }), 'utf8');
}

/** The changes in a blob written by {@link encodeChanges}; none when there is no blob, undefined when it is unreadable. */
function decodeChanges(bytes: Uint8Array | undefined): SnapshotChanges | undefined {
  const changes: SnapshotChanges = { entities: new Map(), relations: new Map() };
  if (bytes === undefined) return changes;
  try {
    const parsed = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as { version?: number; entities?: unknown[][]; relations?: unknown[][] };
    if (parsed.version !== 1 || !Array.isArray(parsed.entities) || !Array.isArray(parsed.relations)) return undefined;
    for (const [id, hid, chunkIds] of parsed.entities as Array<[string, number?, string[]?]>) {
      changes.entities.set(id, hid === undefined || chunkIds === undefined ? null : { id, hid, chunkIds });
    }
    for (const [id, hid, source, target, weight, chunkIds] of parsed.relations as Array<[string, number?, string?, string?, number?, string[]?]>) {
      changes.relations.set(id, hid === undefined || source === undefined || target === undefined || weight === undefined || chunkIds === undefined ? null : { id, hid, source, target, weight, chunkIds });
    }
    return changes;
  } catch {
    // Unreadable changes: every row is read.
    return undefined;
  }
}
