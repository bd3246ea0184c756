import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTripleIndex } from '../extract/triples/triple-index.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { loadTripleIndex, storeTripleIndex } from './stored-triple-index.js';

const triple = (id: string, subject: string, object: string, chunkId: string) => ({ id, subject, predicate: 'is near', object, chunkId });

test('the index stored through a store is read back as stored, and a rolled-back store leaves the earlier one', async () => {
  const store = openSqliteStore(':memory:');
  try {
    const first = buildTripleIndex([triple('t1', 'kester weir', 'the river', 'c1')]);
    const second = buildTripleIndex([triple('t1', 'kester weir', 'the river', 'c1'), triple('t2', 'tobias marle', 'the boatworks', 'c2')]);
    await store.transaction((tx) => storeTripleIndex(tx, first, 'v1'));
    await assert.rejects(
      store.transaction(async (tx) => {
        await storeTripleIndex(tx, second, 'v2');
        assert.deepEqual([...(await loadTripleIndex(tx)).index.phraseTexts], second.phraseTexts, 'inside its transaction, the index just stored');
        throw new Error('the step failed after storing');
      }),
      /the step failed/,
    );
    const loaded = await loadTripleIndex(store);
    assert.equal(loaded.version, 'v1');
    assert.deepEqual([...loaded.index.phraseTexts], first.phraseTexts);
    await store.transaction((tx) => storeTripleIndex(tx, second, 'v2'));
    const again = await loadTripleIndex(store);
    assert.equal(again.version, 'v2');
    assert.deepEqual([...again.index.factIds], second.factIds);
  } finally {
    await store.close();
  }
});
