import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { type NlpExtractConfig, nlpExtractConfigSchema } from '../../core/config/config-schema.js';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import { buildNounGraph, type ChunkPhrases, type NounGraphFit, phraseEntityId, pmiWeight } from './build-noun-graph.js';
import { decodeNounGraphState, encodeNounGraphState, fitNounGraphState, type NounGraphState } from './noun-graph-state.js';
import { updateNounGraph, type NounGraphReader } from './update-noun-graph.js';

const config: NlpExtractConfig = { ...nlpExtractConfigSchema.parse({}), typing: 'heuristic' };

/** A chunk whose one sentence names the phrases in order. */
function chunkOf(chunkId: string, keys: readonly string[]): ChunkPhrases {
  const text = `${keys.join(' and ')}.`;
  let at = 0;
  const mentions = keys.map((key) => {
    const start = text.indexOf(key, at);
    at = start + key.length;
    return { key, surface: key, start, end: start + key.length, sentence: 0, kind: 'phrase' as const };
  });
  return { chunkId, text, extraction: { sentences: [[0, text.length]], mentions } };
}

/** A corpus where "w" and "x" share chunks with each other only, and a crowd of other phrases pair up. */
const corpus = (): ChunkPhrases[] => [
  chunkOf('c1', ['w', 'x']),
  chunkOf('c2', ['w', 'x', 'y']),
  chunkOf('c3', ['a', 'b', 'c']),
  chunkOf('c4', ['a', 'b', 'd']),
  chunkOf('c5', ['b', 'c', 'd']),
  chunkOf('c6', ['a', 'c', 'y']),
  chunkOf('c7', ['d', 'y', 'b']),
];

/** The graph as a table: its fresh build, the fitted state, and a reader over the rows. */
function fresh(chunks: readonly ChunkPhrases[]): { state: NounGraphState; entities: Map<string, EntityRecord>; relations: Map<string, RelationRecord>; reader: NounGraphReader } {
  let fit: NounGraphFit | undefined;
  const graph = buildNounGraph(chunks, config, (fitted) => (fit = fitted));
  const state = fitNounGraphState(chunks, fit as NounGraphFit, graph, { settings: 's', typingCutoff: null, typed: new Map() });
  const entities = new Map(graph.entities.map((entity) => [entity.id, entity]));
  const relations = new Map(graph.relations.map((relation) => [relation.id, relation]));
  const byId = new Map(chunks.map((chunk) => [chunk.chunkId, chunk]));
  const reader: NounGraphReader = {
    chunks: async (ids) => ids.flatMap((id) => byId.get(id) ?? []),
    entities: async (ids) => ids.flatMap((id) => entities.get(id) ?? []),
    relations: async (ids) => ids.flatMap((id) => relations.get(id) ?? []),
  };
  return { state, entities, relations, reader };
}

function relationOf(relations: ReadonlyMap<string, RelationRecord>, a: string, b: string): RelationRecord | undefined {
  const [source, target] = [phraseEntityId(a), phraseEntityId(b)].sort();
  return [...relations.values()].find((relation) => relation.source === source && relation.target === target);
}

describe('updateNounGraph: the noun graph between refreshes', () => {
  test('an added chunk leaves the edges whose ends it does not mention as they are; a fresh build re-weighs them', async () => {
    const base = fresh(corpus());
    const before = relationOf(base.relations, 'a', 'b');
    assert.ok(before);
    const added = chunkOf('c8', ['w', 'x', 'y']);
    const update = await updateNounGraph(base.state, { added: [added], removed: [] }, config, base.reader);
    assert.ok(!update.relations.some((relation) => relation.id === before.id), 'a–b is not written');
    assert.ok(!update.removedRelationIds.includes(before.id));
    assert.ok(update.relations.length > 0, 'the pairs of the added chunk are');
    const rebuilt = relationOf(fresh([...corpus(), added]).relations, 'a', 'b');
    assert.ok(rebuilt && rebuilt.weight !== before.weight, 'a fresh build moves a–b with the totals');
  });

  test('a pair of the added chunk is weighed with the stored totals and the current counts', async () => {
    const base = fresh(corpus());
    const update = await updateNounGraph(base.state, { added: [chunkOf('c8', ['w', 'x'])], removed: [] }, config, base.reader);
    const wx = update.relations.find((relation) => relation === relationOf(new Map(update.relations.map((row) => [row.id, row])), 'w', 'x'));
    assert.ok(wx);
    // w and x are now in three chunks each, all three shared.
    assert.equal(wx.weight, pmiWeight(3, 3, 3, base.state.totalWeight, base.state.totalFrequency));
    assert.deepEqual(wx.chunkIds, ['c1', 'c2', 'c8']);
  });

  test('removing the added chunk brings back every row it changed, and the graph hash', async () => {
    const base = fresh(corpus());
    const entities = new Map(base.entities);
    const relations = new Map(base.relations);
    const reader: NounGraphReader = { ...base.reader, entities: async (ids) => ids.flatMap((id) => entities.get(id) ?? []), relations: async (ids) => ids.flatMap((id) => relations.get(id) ?? []) };
    const apply = (update: Awaited<ReturnType<typeof updateNounGraph>>): void => {
      for (const id of update.removedEntityIds) entities.delete(id);
      for (const id of update.removedRelationIds) relations.delete(id);
      for (const entity of update.entities) entities.set(entity.id, entity);
      for (const relation of update.relations) relations.set(relation.id, relation);
    };
    const added = chunkOf('c8', ['w', 'x', 'y', 'e', 'a']);
    const grown = await updateNounGraph(base.state, { added: [added], removed: [] }, config, reader);
    apply(grown);
    assert.ok(grown.entities.length + grown.relations.length > 0);
    const shrunk = await updateNounGraph(grown.state, { added: [], removed: [added] }, config, reader);
    apply(shrunk);
    assert.deepEqual(new Map([...entities].sort()), new Map([...base.entities].sort()));
    assert.deepEqual(new Map([...relations].sort()), new Map([...base.relations].sort()));
    assert.deepEqual(shrunk.state.graphHash, base.state.graphHash);
    assert.ok(grown.state.keys.includes('e'));
    assert.deepEqual(shrunk.state, base.state, 'the state forgets the phrases only the removed chunk had');
  });

  test('a proper name of one added chunk keeps its strongest pair, as in a fresh build, and loses it at its second chunk', async () => {
    const base = fresh(corpus());
    const named = (chunkId: string, keys: string[]): ChunkPhrases => {
      const chunk = chunkOf(chunkId, keys);
      return { ...chunk, extraction: { ...chunk.extraction, mentions: chunk.extraction.mentions.map((mention) => (mention.key === 'zed' ? { ...mention, kind: 'proper' } : mention)) } };
    };
    const added = named('c8', ['a', 'b', 'zed']);
    const update = await updateNounGraph(base.state, { added: [added], removed: [] }, config, base.reader);
    const zedRelations = (rows: readonly RelationRecord[]): RelationRecord[] => rows.filter((relation) => [relation.source, relation.target].includes(phraseEntityId('zed')));
    const kept = zedRelations(update.relations);
    assert.equal(kept.length, 1, 'one pair, under the threshold, keeps the name in the graph');
    assert.ok(update.entities.some((entity) => entity.id === phraseEntityId('zed')));
    assert.ok((kept[0] as RelationRecord).weight < (base.state.threshold ?? 0), 'the pair is under the stored threshold');
    const rebuilt = zedRelations([...fresh([...corpus(), added]).relations.values()]);
    assert.deepEqual(kept.map((relation) => relation.id), rebuilt.map((relation) => relation.id), 'the pair a fresh build keeps');
    // A second chunk naming zed with other phrases: zed is no longer a one-chunk name, its rescued pair goes.
    const relations = new Map(base.relations);
    for (const relation of update.relations) relations.set(relation.id, relation);
    const entities = new Map(base.entities);
    for (const entity of update.entities) entities.set(entity.id, entity);
    const byId = new Map([...corpus(), added].map((chunk) => [chunk.chunkId, chunk]));
    const reader: NounGraphReader = { chunks: async (ids) => ids.flatMap((id) => byId.get(id) ?? []), entities: async (ids) => ids.flatMap((id) => entities.get(id) ?? []), relations: async (ids) => ids.flatMap((id) => relations.get(id) ?? []) };
    const second = await updateNounGraph(update.state, { added: [named('c9', ['zed', 'w'])], removed: [] }, config, reader);
    assert.ok(second.removedRelationIds.includes((kept[0] as RelationRecord).id), 'the rescued pair is removed');
  });

  test('names of one added chunk each keep one pair, to a recurring phrase rather than to each other, as a fresh build does', async () => {
    // w is in two chunks of the corpus; the added chunk does not make it the ego node (the highest degree).
    const base = fresh(corpus());
    const names = ['pia', 'quin', 'rho'];
    const chunk = chunkOf('c8', ['w', ...names]);
    const added: ChunkPhrases = { ...chunk, extraction: { ...chunk.extraction, mentions: chunk.extraction.mentions.map((mention) => (names.includes(mention.key) ? { ...mention, kind: 'proper' } : mention)) } };
    const update = await updateNounGraph(base.state, { added: [added], removed: [] }, config, base.reader);
    const ids = new Map([...names, 'w'].map((key) => [phraseEntityId(key), key]));
    const namePairs = (rows: Iterable<RelationRecord>): string[] =>
      [...rows].filter((relation) => names.some((name) => [relation.source, relation.target].includes(phraseEntityId(name)))).map((relation) => [ids.get(relation.source), ids.get(relation.target)].sort().join('-')).sort();
    assert.deepEqual(namePairs(update.relations), ['pia-w', 'quin-w', 'rho-w']);
    assert.deepEqual(namePairs(fresh([...corpus(), added]).relations.values()), ['pia-w', 'quin-w', 'rho-w']);
  });

  test('names typed so far stay typed while chunks are added, and leave with the last chunk that names them', async () => {
    const typing: NlpExtractConfig = { ...config, typing: 'compromise' };
    const base = fresh(corpus());
    const entities = new Map(base.entities);
    const relations = new Map(base.relations);
    const byId = new Map(corpus().map((chunk) => [chunk.chunkId, chunk]));
    const reader: NounGraphReader = { chunks: async (ids) => ids.flatMap((id) => byId.get(id) ?? []), entities: async (ids) => ids.flatMap((id) => entities.get(id) ?? []), relations: async (ids) => ids.flatMap((id) => relations.get(id) ?? []) };
    const update = async (state: NounGraphState, change: { added: ChunkPhrases[]; removed: ChunkPhrases[] }): Promise<NounGraphState> => {
      for (const chunk of change.added) byId.set(chunk.chunkId, chunk);
      const result = await updateNounGraph(state, change, typing, reader);
      for (const id of result.removedEntityIds) entities.delete(id);
      for (const id of result.removedRelationIds) relations.delete(id);
      for (const entity of result.entities) entities.set(entity.id, entity);
      for (const relation of result.relations) relations.set(relation.id, relation);
      // What is typed is sorted by name, and each name is a key or a surface form of a phrase still in the graph.
      const live = new Set([...result.state.keys, ...result.state.surfaces.flatMap((forms) => forms.map(([surface]) => surface))]);
      const names = result.state.typed.map(([name]) => name);
      assert.deepEqual(names, [...names].sort());
      assert.deepEqual(names.filter((name) => !live.has(name)), []);
      return result.state;
    };
    const named = (chunkId: string, keys: string[], names: string[]): ChunkPhrases => {
      const chunk = chunkOf(chunkId, keys);
      return { ...chunk, extraction: { ...chunk.extraction, mentions: chunk.extraction.mentions.map((mention) => (names.includes(mention.key) ? { ...mention, kind: 'proper' } : mention)) } };
    };
    const first = named('c8', ['a', 'b', 'zed', 'quill'], ['zed', 'quill']);
    const second = named('c9', ['c', 'd', 'yarrow'], ['yarrow']);
    const afterFirst = await update(base.state, { added: [first], removed: [] });
    const typedFirst = afterFirst.typed.map(([name]) => name);
    assert.ok(typedFirst.includes('zed') && typedFirst.includes('quill'), typedFirst.join(', '));
    const afterSecond = await update(afterFirst, { added: [second], removed: [] });
    assert.deepEqual(
      afterSecond.typed.filter(([name]) => name !== 'yarrow'),
      afterFirst.typed,
      'an add keeps every name typed before, with its type',
    );
    assert.ok(afterSecond.typed.some(([name]) => name === 'yarrow'));
    const afterRemoval = await update(afterSecond, { added: [], removed: [first] });
    assert.deepEqual(
      afterRemoval.typed.map(([name]) => name),
      afterSecond.typed.map(([name]) => name).filter((name) => name !== 'zed' && name !== 'quill'),
      'the names only the removed chunk gave leave with it',
    );
  });

  test('no change writes nothing', async () => {
    const base = fresh(corpus());
    const update = await updateNounGraph(base.state, { added: [], removed: [] }, config, base.reader);
    assert.deepEqual([update.entities, update.relations, update.removedEntityIds, update.removedRelationIds], [[], [], [], []]);
    assert.deepEqual(update.state.graphHash, base.state.graphHash);
  });
});

test('the stored state reads back as it was written', async () => {
  const base = fresh(corpus());
  const update = await updateNounGraph(base.state, { added: [chunkOf('c8', ['w', 'x', 'new phrase'])], removed: [] }, config, base.reader);
  for (const state of [base.state, update.state]) assert.deepEqual(decodeNounGraphState(encodeNounGraphState(state)), state);
  assert.equal(decodeNounGraphState(new Uint8Array([1, 2, 3])), undefined, 'unreadable bytes rebuild the graph');
  const odd = { ...update.state, keys: update.state.keys.map((key, node) => (node === 0 ? `${key} é\ud800` : node === 1 ? `${key} 😀` : key)) };
  assert.deepEqual(decodeNounGraphState(encodeNounGraphState(odd)), odd, 'any string, a lone surrogate included');
  const stored = encodeNounGraphState(update.state);
  const unaligned = new Uint8Array(stored.byteLength + 1).subarray(1);
  unaligned.set(stored);
  assert.deepEqual(decodeNounGraphState(unaligned), update.state, 'from any byte offset');
});

test('a state stored deflated, as kgrag stored it before, reads back', () => {
  const { state } = fresh(corpus());
  assert.deepEqual(decodeNounGraphState(deflatedState(state)), state);
});

/** The state as kgrag stored it before its current format: deflated, a length, a JSON header with every string, the number lists. */
function deflatedState(state: NounGraphState): Uint8Array {
  const numberLists = [state.proper, state.finalDegree, state.described, state.memberStart, state.members, state.paired];
  const flat = (lists: ReadonlyArray<ReadonlyArray<[string, number]>>) => ({
    values: lists.flatMap((list) => list.map(([value]) => value)),
    counts: lists.flatMap((list) => list.map(([, count]) => count)),
    sizes: lists.map((list) => list.length),
  });
  const surfaces = flat(state.surfaces);
  const hints = flat(state.typeHints);
  const { proper: _p, finalDegree: _f, described: _d, memberStart: _s, members: _m, paired: _a, surfaces: _u, typeHints: _t, ...rest } = state;
  const header = Buffer.from(JSON.stringify({ ...rest, surfaceValues: surfaces.values, hintValues: hints.values }), 'utf8');
  const lists = [...numberLists, surfaces.counts, surfaces.sizes, hints.counts, hints.sizes];
  const numbers = Int32Array.from([...lists.map((list) => list.length), ...lists.flat()]);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return deflateRawSync(Buffer.concat([length, header, Buffer.from(numbers.buffer)]), { level: 1 });
}
