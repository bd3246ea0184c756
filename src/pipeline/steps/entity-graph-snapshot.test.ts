import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import { TableChanges } from '../table-changes.js';
import { entityGraphChangesKey, entityGraphSnapshotKey, readEntityGraph, type EntityGraphSnapshot } from './entity-graph-snapshot.js';

const entity = (id: string, chunkIds: string[]): EntityRecord => ({ id, title: id, type: 'noun phrase', description: '', aliases: [], frequency: chunkIds.length, degree: 0, chunkIds });
const relation = (id: string, source: string, target: string, weight: number, chunkIds: string[]): RelationRecord => ({
  id,
  source,
  target,
  description: '',
  keywords: [],
  weight,
  combinedDegree: 0,
  chunkIds,
});

/** The snapshot a read of every row gives: what a patched one must equal. */
async function everyRow(store: Store): Promise<EntityGraphSnapshot> {
  return (await readEntityGraph(store, { entities: undefined, relations: undefined })).graph;
}

/**
 * Runs `write` as a pipeline run would, reads the graph as the next update does and keeps it as the step does. With
 * `fresh`, a snapshot of the tables as they are is stored first.
 */
async function update(store: Store, write: (tx: Store) => Promise<void>, options: { fresh?: boolean; compactShare?: number } = {}): Promise<{ graph: EntityGraphSnapshot; patched: boolean }> {
  if (options.fresh !== false) await (await readEntityGraph(store, { entities: undefined, relations: undefined })).write(store);
  const changes = new TableChanges();
  await changes.recording(store).transaction(write);
  const read = await readEntityGraph(store, { entities: changes.of('entities'), relations: changes.of('relations') }, options.compactShare);
  await store.transaction((tx) => read.write(tx));
  return read;
}

test('a snapshot patched with the rows a run wrote equals a read of every row: rows changed, removed and added, ends resolved and left dangling', async () => {
  const store = openSqliteStore(':memory:');
  await store.table('entities').upsert([entity('kester', ['c1']), entity('marle', ['c1', 'c2']), entity('weir', ['c2']), entity('inn', ['c3'])]);
  await store.table('relations').upsert([
    relation('r1', 'kester', 'marle', 1, ['c1']),
    relation('r2', 'marle', 'weir', 2, ['c2']),
    relation('r3', 'weir', 'inn', 3, ['c2', 'c3']),
    relation('r4', 'inn', 'ferry', 1, ['c3']),
    relation('r5', 'kester', 'weir', 1, ['c1', 'c2']),
  ]);
  const first = await update(store, async (tx) => {
    await tx.table('entities').deleteWhere('id', ['marle']);
    await tx.table('relations').deleteWhere('id', ['r1']);
    await tx.table('entities').upsert([entity('kester', ['c1', 'c4']), entity('ferry', ['c4'])]);
    await tx.table('relations').upsert([relation('r3', 'weir', 'inn', 5, ['c3']), relation('r6', 'ferry', 'marle', 1, ['c4']), relation('r7', 'ferry', 'kester', 2, ['c4'])]);
  });
  assert.equal(first.patched, true);
  assert.deepEqual(first.graph, await everyRow(store));
  assert.deepEqual(first.graph.dangling, [[0, 'marle'], [9, 'marle']], 'r2 lost its source and the new r6 ends at no entity');
  assert.equal(first.graph.endpoints[5], first.graph.entityIds.indexOf('ferry'), 'r4 found its target, added since');
  assert.ok(!first.graph.chunkIds.includes('c9'));

  // The ends that dangle find an entity added in a later run, though their relations are not written again.
  const second = await update(store, async (tx) => tx.table('entities').upsert([entity('marle', ['c5'])]));
  assert.equal(second.patched, true);
  assert.deepEqual(second.graph, await everyRow(store));
  assert.deepEqual(second.graph.dangling, []);

  // The last relation deleted and a new one inserted: the new row may take the deleted row's hid, and is still appended.
  const reused = await update(store, async (tx) => {
    const last = (await tx.table('relations').pick(['id'])).at(-1)?.id ?? '';
    await tx.table('relations').deleteWhere('id', [last]);
    await tx.table('relations').upsert([relation('r8', 'inn', 'weir', 1, ['c3'])]);
  });
  assert.equal(reused.patched, true);
  assert.deepEqual(reused.graph, await everyRow(store));

  // A run that removes the documents of some chunks: the chunks no list names drop out of the numbering.
  const third = await update(store, async (tx) => {
    await tx.table('relations').deleteWhere('id', ['r5', 'r3', 'r7', 'r6']);
    await tx.table('entities').upsert([entity('kester', ['c1'])]);
  });
  assert.equal(third.patched, true);
  assert.deepEqual(third.graph, await everyRow(store));
  await store.close();
});

test('a row deleted and inserted again stands last, as in the table; unknown changes or an unreadable snapshot read every row', async () => {
  const store = openSqliteStore(':memory:');
  await store.table('entities').upsert([entity('kester', ['c1']), entity('marle', ['c1'])]);
  await store.table('relations').upsert([relation('r1', 'kester', 'marle', 1, ['c1'])]);
  const moved = await update(store, async (tx) => {
    await tx.table('entities').deleteWhere('id', ['kester']);
    await tx.table('entities').upsert([entity('kester', ['c1'])]);
  });
  assert.equal(moved.patched, true);
  assert.deepEqual(moved.graph.entityIds, ['marle', 'kester']);
  assert.deepEqual(moved.graph, await everyRow(store));
  assert.equal((await readEntityGraph(store, { entities: new Set(), relations: undefined })).patched, false);
  await store.setBlob(entityGraphSnapshotKey, new Uint8Array([1, 2, 3]));
  assert.equal((await readEntityGraph(store, { entities: new Set(), relations: new Set() })).patched, false);
  await store.close();
});

test('changes kept beside the snapshot add up over updates until they pass a share of it, and rows rewritten as they were are no change', async () => {
  const store = openSqliteStore(':memory:');
  const entities = Array.from({ length: 20 }, (_, index) => entity(`e${index}`, [`c${index % 5}`]));
  await store.table('entities').upsert(entities);
  await store.table('relations').upsert(Array.from({ length: 30 }, (_, index) => relation(`r${index}`, `e${index % 20}`, `e${(index * 7 + 3) % 20}`, 1 + (index % 3), [`c${index % 5}`])));
  await (await readEntityGraph(store, { entities: undefined, relations: undefined })).write(store);
  const snapshotBlob = await store.getBlob(entityGraphSnapshotKey);
  const runs: Array<(tx: Store) => Promise<void>> = [
    async (tx) => tx.table('entities').upsert([entity('e21', ['c9']), entity('e3', ['c3', 'c9'])]),
    async (tx) => {
      await tx.table('relations').upsert([relation('r30', 'e21', 'e3', 2, ['c9'])]);
      await tx.table('entities').deleteWhere('id', ['e7']);
    },
    // Every relation written again as it was (as a degree column's change rewrites them): nothing of the graph changed.
    async (tx) => tx.table('relations').upsert(await tx.table('relations').all()),
    async (tx) => tx.table('entities').upsert([entity('e7', ['c1'])]),
  ];
  for (const [round, run] of runs.entries()) {
    const read = await update(store, run, { fresh: false, compactShare: 1 });
    assert.equal(read.patched, true, `round ${round}`);
    assert.deepEqual(read.graph, await everyRow(store), `round ${round}`);
    assert.deepEqual(await store.getBlob(entityGraphSnapshotKey), snapshotBlob, `round ${round}: the snapshot stays`);
  }
  const kept = JSON.parse(Buffer.from((await store.getBlob(entityGraphChangesKey)) ?? new Uint8Array()).toString('utf8')) as { entities: unknown[]; relations: unknown[] };
  assert.deepEqual(
    { entities: kept.entities.length, relations: kept.relations.length },
    { entities: 3, relations: 1 },
    'e21, e3 and e7 (gone, then back in another row); r30; the relations written as they were are not kept',
  );
  // Past the share, the snapshot is written again and the changes start over.
  const compacted = await update(store, async (tx) => tx.table('entities').upsert([entity('e22', ['c1'])]), { fresh: false, compactShare: 0 });
  assert.deepEqual(compacted.graph, await everyRow(store));
  assert.notDeepEqual(await store.getBlob(entityGraphSnapshotKey), snapshotBlob);
  assert.equal(Buffer.from((await store.getBlob(entityGraphChangesKey)) ?? new Uint8Array()).toString('utf8'), JSON.stringify({ version: 1, entities: [], relations: [] }));
  const after = await update(store, async (tx) => tx.table('entities').upsert([entity('e23', ['c2'])]), { fresh: false });
  assert.equal(after.patched, true);
  assert.deepEqual(after.graph, await everyRow(store));
  await store.close();
});
