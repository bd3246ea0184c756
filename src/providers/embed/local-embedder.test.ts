import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLocalEmbedder } from './local-embedder.js';

const corpus = [
  'The river flooded the lower town in the spring of 1952.',
  'Floods along the river forced the mill to close for a month.',
  'The bakery on Quay Street sells rye bread and almond cakes.',
  'A new bridge was designed by the engineering firm Halvard & Stroud.',
  'The town council debated the cost of the flood barrier.',
  'Ida Halvard trained as an engineer in Glasgow before founding her firm.',
];

function dot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] as number) * (right[index] as number);
  return sum;
}

test('vectors are deterministic, unit length, and identical across instances', async () => {
  const first = createLocalEmbedder();
  const second = createLocalEmbedder();
  first.fit(corpus);
  second.fit(corpus);
  const [a] = await first.embed([corpus[0] as string]);
  const [b] = await second.embed([corpus[0] as string]);
  assert.ok(a && b);
  assert.deepEqual(a, b);
  assert.equal(a.length, 1024);
  assert.ok(Math.abs(dot(a, a) - 1) < 1e-5);
  assert.equal(first.id, second.id);
});

test('related texts are closer than unrelated ones, including inflected forms', async () => {
  const embedder = createLocalEmbedder();
  embedder.fit(corpus);
  const [query, flood, bakery, engineer] = await embedder.embed([
    'When did the river flood the town?',
    corpus[1] as string,
    corpus[2] as string,
    'Which engineers designed bridges?',
  ]);
  assert.ok(query && flood && bakery && engineer);
  assert.ok(dot(query, flood) > dot(query, bakery) + 0.1, 'flood question should match the flood passage');
  const [bridge] = await embedder.embed([corpus[3] as string]);
  assert.ok(bridge && dot(engineer, bridge) > dot(engineer, bakery));
});

test('fitting changes the id; state export/import reproduces vectors exactly', async () => {
  const embedder = createLocalEmbedder({ dimensions: 256 });
  const unfittedId = embedder.id;
  embedder.fit(corpus);
  assert.notEqual(embedder.id, unfittedId);
  const restored = createLocalEmbedder({ dimensions: 256 });
  restored.importState(embedder.exportState());
  assert.equal(restored.id, embedder.id);
  assert.deepEqual(await restored.embed(corpus), await embedder.embed(corpus));
  assert.throws(() => restored.importState(new Uint8Array(32)));
});

test('rare words weigh more than common ones after fitting', async () => {
  const embedder = createLocalEmbedder();
  embedder.fit(corpus);
  const [rare, common, text] = await embedder.embed(['Halvard', 'river', 'Halvard crossed the river']);
  assert.ok(rare && common && text);
  assert.ok(dot(text, rare) > dot(text, common));
});

test('an empty or stopword-only text embeds to the zero vector', async () => {
  const embedder = createLocalEmbedder();
  const [empty, stop] = await embedder.embed(['', 'the of and']);
  assert.ok(empty && stop);
  assert.equal(dot(empty, empty), 0);
  assert.equal(dot(stop, stop), 0);
});

test('the sparse form of a vector holds exactly its non-zero coordinates', async () => {
  const embedder = createLocalEmbedder();
  const texts = ['the weir holds back the river', 'Kester Weir Bridge', '', 'a phrase', 'Ünïcödé café 東京'];
  embedder.fit(texts);
  const dense = await embedder.embed(texts);
  assert.ok(embedder.embedSparse, 'the local embedder gives sparse vectors');
  const sparse = await embedder.embedSparse(texts);
  for (const [index, vector] of dense.entries()) {
    const expected = [...vector.keys()].filter((column) => vector[column] !== 0);
    const entry = sparse[index];
    assert.ok(entry);
    const kept = [...entry.columns.keys()].filter((position) => entry.values[position] !== 0);
    assert.deepEqual(kept.map((position) => entry.columns[position]), expected, texts[index]);
    assert.deepEqual(kept.map((position) => entry.values[position]), expected.map((column) => vector[column]), texts[index]);
    assert.equal(entry.dimensions, vector.length);
  }
});
