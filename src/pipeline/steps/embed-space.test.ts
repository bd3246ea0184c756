import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { configSchema } from '../../core/config/config-schema.js';
import { builtInPrompts } from '../../core/prompt-library.js';
import type { Embedder } from '../../providers/embed/embedder.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import type { StepContext } from '../pipeline-step.js';
import { embedChangingTexts, embedSpace, type EmbeddingItem } from './embed-space.js';

/** A remote-like embedder (not corpus-fitted) that records what it was asked to embed: one coordinate per text length. */
function recordingEmbedder(): Embedder & { asked: string[] } {
  const asked: string[] = [];
  return {
    id: 'recording:v1',
    dimensions: 4,
    maxBatchSize: 16,
    asked,
    async embed(texts) {
      asked.push(...texts);
      return texts.map((text) => Float32Array.from([1, 0, 0, 0].map((_, index) => (index === text.length % 4 ? 1 : 0))));
    },
  };
}

function contextOf(store: Store, embedder: Embedder): StepContext {
  return {
    store,
    config: configSchema.parse({}),
    tokenizer: undefined as never,
    embedder,
    llm: undefined,
    prompts: builtInPrompts,
    inputs: { paths: [], documents: [] },
    signal: undefined,
    progress: () => undefined,
    warn: () => undefined,
  };
}

async function run(store: Store, embedder: Embedder, items: EmbeddingItem[], textsChange: boolean): Promise<string> {
  const output = await embedSpace(contextOf(store, embedder), 'entities', items, { textsChange });
  await store.transaction((tx) => output.write(tx));
  return output.outputVersion;
}

test('an item whose text changed under the same id is embedded again when the space says texts change; others are not', async () => {
  const store = openSqliteStore(':memory:');
  const embedder = recordingEmbedder();
  const first = await run(store, embedder, [{ id: 'kester', text: 'Kester: a river' }, { id: 'marle', text: 'Marle: a town' }], true);
  assert.deepEqual(embedder.asked, ['Kester: a river', 'Marle: a town']);
  embedder.asked.length = 0;
  const second = await run(store, embedder, [{ id: 'kester', text: 'Kester: a river in flood' }, { id: 'marle', text: 'Marle: a town' }, { id: 'weir', text: 'Weir' }], true);
  assert.deepEqual(embedder.asked, ['Kester: a river in flood', 'Weir']);
  assert.notEqual(second, first);
  const vectors = await store.vectors('entities').load(['kester']);
  assert.equal(vectors.matrix[('Kester: a river in flood'.length % 4)], 1, 'the stored vector is the new text\'s');
  embedder.asked.length = 0;
  assert.equal(await run(store, embedder, [{ id: 'kester', text: 'Kester: a river in flood' }, { id: 'weir', text: 'Weir' }], true), await run(store, embedder, [{ id: 'kester', text: 'Kester: a river in flood' }, { id: 'weir', text: 'Weir' }], true));
  assert.deepEqual(embedder.asked, [], 'nothing changed: nothing embedded');
  assert.deepEqual((await store.vectors('entities').ids()).sort(), ['kester', 'weir'], 'the vanished item lost its vector');
  await store.close();
});

test('without textsChange an id with a vector is not embedded again (ids that hash their text)', async () => {
  const store = openSqliteStore(':memory:');
  const embedder = recordingEmbedder();
  await run(store, embedder, [{ id: 'a', text: 'one' }], false);
  embedder.asked.length = 0;
  await run(store, embedder, [{ id: 'a', text: 'two' }], false);
  assert.deepEqual(embedder.asked, []);
  await store.close();
});

test('with keepsRowOrder, the ids after the write, as embedSpace gives them, are the space’s stored order: deletes close up, new ids go last, a replaced vector keeps its place', async () => {
  const store = openSqliteStore(':memory:');
  // Written in the step's transaction, in order, as the local embedder's vectors are.
  const embedder = Object.assign(recordingEmbedder(), { corpusFitted: true as const, fit: () => undefined, exportState: () => new Uint8Array(0), importState: () => undefined });
  const rounds: EmbeddingItem[][] = [
    [{ id: 'kester', text: 'Kester' }, { id: 'marle', text: 'Marle' }, { id: 'weir', text: 'Weir' }],
    [{ id: 'ferry', text: 'Ferry' }, { id: 'weir', text: 'Weir bridge' }, { id: 'kester', text: 'Kester' }, { id: 'inn', text: 'Inn' }],
    [{ id: 'inn', text: 'Inn' }, { id: 'regatta', text: 'Regatta' }],
  ];
  for (const items of rounds) {
    const output = await embedSpace(contextOf(store, embedder), 'entities', items, { textsChange: true, keepsRowOrder: true });
    await store.transaction((tx) => output.write(tx));
    assert.deepEqual(output.idsAfterWrite, await store.vectors('entities').ids());
  }
  await store.close();
});

test('a run that changes nothing does not write the text hashes again, and a later change is still seen', async () => {
  const store = openSqliteStore(':memory:');
  const embedder = recordingEmbedder();
  const items = [{ id: 'kester', text: 'Kester: a river' }, { id: 'marle', text: 'Marle: a town' }];
  await run(store, embedder, items, true);
  const blobsWritten: string[] = [];
  const output = await embedSpace(contextOf(store, embedder), 'entities', items, { textsChange: true });
  await store.transaction((tx) =>
    output.write(
      new Proxy(tx, {
        get: (target, property) =>
          property === 'setBlob'
            ? async (key: string, value: Uint8Array) => {
                blobsWritten.push(key);
                await target.setBlob(key, value);
              }
            : Reflect.get(target, property),
      }),
    ),
  );
  assert.deepEqual(blobsWritten, []);
  embedder.asked.length = 0;
  await run(store, embedder, [{ id: 'kester', text: 'Kester: a river' }, { id: 'marle', text: 'Marle: a market town' }], true);
  assert.deepEqual(embedder.asked, ['Marle: a market town']);
  await store.close();
});

test('text hashes stored by an earlier version (a deflated JSON object) are still read: nothing unchanged is embedded again', async () => {
  const store = openSqliteStore(':memory:');
  const embedder = recordingEmbedder();
  const items = [{ id: 'kester', text: 'Kester: a river' }, { id: 'marle', text: 'Marle: a town' }];
  await run(store, embedder, items, true);
  const earlierHash = (text: string): string => createHash('sha1').update(text).digest('base64url').slice(0, 12);
  const earlier = deflateRawSync(Buffer.from(JSON.stringify(Object.fromEntries(items.map((item) => [item.id, earlierHash(item.text)]))), 'utf8'), { level: 1 });
  await store.transaction((tx) => tx.setBlob('vector-texts:entities', earlier));
  embedder.asked.length = 0;
  await run(store, embedder, items, true);
  assert.deepEqual(embedder.asked, [], 'the earlier hashes match: nothing embedded');
  await run(store, embedder, [items[0] as EmbeddingItem, { id: 'marle', text: 'Marle: a market town' }], true);
  assert.deepEqual(embedder.asked, ['Marle: a market town']);
  await store.close();
});

test('an item whose stored hash is not at its own position (items in another order, one removed before it) is found by its id', async () => {
  const store = openSqliteStore(':memory:');
  const embedder = recordingEmbedder();
  await run(store, embedder, [{ id: 'kester', text: 'Kester: a river' }, { id: 'marle', text: 'Marle: a town' }, { id: 'weir', text: 'Weir' }], true);
  embedder.asked.length = 0;
  await run(store, embedder, [{ id: 'weir', text: 'Weir' }, { id: 'marle', text: 'Marle: a town' }], true);
  assert.deepEqual(embedder.asked, []);
  await run(store, embedder, [{ id: 'marle', text: 'Marle: a town' }, { id: 'weir', text: 'Weir: rebuilt' }], true);
  assert.deepEqual(embedder.asked, ['Weir: rebuilt']);
  await store.close();
});

test('embedChangingTexts, told which items may have changed, reads and embeds only those and ends where comparing every item ends', async () => {
  // Each round: the space's items, and the ids a run wrote since the last (changed, added, deleted, or rewritten as they were).
  const rounds: Array<{ items: EmbeddingItem[]; written: string[] }> = [
    { items: [{ id: 'kester', text: 'Kester' }, { id: 'marle', text: 'Marle' }, { id: 'weir', text: 'Weir' }], written: [] },
    { items: [{ id: 'kester', text: 'Kester' }, { id: 'marle', text: 'Marle town' }, { id: 'weir', text: 'Weir' }, { id: 'inn', text: 'Inn' }], written: ['marle', 'inn', 'kester'] },
    { items: [{ id: 'kester', text: 'Kester' }, { id: 'weir', text: 'Weir bridge' }, { id: 'inn', text: 'Inn' }], written: ['marle', 'weir'] },
    { items: [{ id: 'kester', text: 'Kester' }, { id: 'weir', text: 'Weir bridge' }, { id: 'inn', text: 'Inn' }], written: [] },
  ];
  for (const fitted of [false, true]) {
    const make = () => (fitted ? Object.assign(recordingEmbedder(), { corpusFitted: true as const, fit: () => undefined, exportState: () => new Uint8Array(0), importState: () => undefined }) : recordingEmbedder());
    const full = { store: openSqliteStore(':memory:'), embedder: make() };
    const changing = { store: openSqliteStore(':memory:'), embedder: make() };
    for (const [round, { items, written }] of rounds.entries()) {
      full.embedder.asked.length = 0;
      changing.embedder.asked.length = 0;
      const expected = await embedSpace(contextOf(full.store, full.embedder), 'entities', items, { textsChange: true });
      await full.store.transaction((tx) => expected.write(tx));
      const read: Array<readonly string[] | undefined> = [];
      const source = {
        read: async (ids?: readonly string[]) => {
          read.push(ids);
          return ids === undefined ? items : items.filter((item) => ids.includes(item.id));
        },
        // The first run knows no changes: every item is read.
        changed: round === 0 ? undefined : new Set(written),
      };
      const output = await embedChangingTexts(contextOf(changing.store, changing.embedder), 'entities', source);
      await changing.store.transaction((tx) => output.write(tx));
      const label = `${fitted ? 'fitted' : 'remote'} round ${round}`;
      assert.deepEqual(read, round === 0 ? [undefined] : written.length === 0 ? [] : [written], `${label}: read`);
      assert.equal(output.outputVersion, expected.outputVersion, `${label}: output version`);
      assert.deepEqual(output.counts, expected.counts, `${label}: counts`);
      assert.deepEqual(changing.embedder.asked, full.embedder.asked, `${label}: texts embedded`);
      assert.deepEqual(await changing.store.vectors('entities').ids(), await full.store.vectors('entities').ids(), `${label}: stored ids`);
      if (output.idsAfterWrite) assert.deepEqual(output.idsAfterWrite, await changing.store.vectors('entities').ids(), `${label}: ids after the write`);
    }
    // The stored hashes are the full comparison's: a run over every item from here embeds nothing.
    changing.embedder.asked.length = 0;
    await run(changing.store, changing.embedder, rounds.at(-1)?.items ?? [], true);
    assert.deepEqual(changing.embedder.asked, []);
    await full.store.close();
    await changing.store.close();
  }
});

test('embedChangingTexts compares every item when the stored hashes do not name the stored vectors', async () => {
  const store = openSqliteStore(':memory:');
  const embedder = recordingEmbedder();
  await run(store, embedder, [{ id: 'kester', text: 'Kester' }, { id: 'marle', text: 'Marle' }], true);
  // A vector written without its hash (a remote embedder's batch stored before a crash).
  await store.vectors('entities').upsert([{ id: 'weir', vector: Float32Array.from([0, 1, 0, 0]) }], embedder.id);
  embedder.asked.length = 0;
  const items = [{ id: 'kester', text: 'Kester' }, { id: 'marle', text: 'Marle' }, { id: 'weir', text: 'Weir' }];
  let everyItem = false;
  const output = await embedChangingTexts(contextOf(store, embedder), 'entities', {
    read: async (ids) => {
      everyItem ||= ids === undefined;
      return ids === undefined ? items : items.filter((item) => ids.includes(item.id));
    },
    changed: new Set(),
  });
  await store.transaction((tx) => output.write(tx));
  assert.ok(everyItem);
  assert.deepEqual(embedder.asked, ['Weir'], 'the vector without a hash is made again');
  await store.close();
});
