import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRandom } from '../../core/random.js';
import { planTripleChunkRemoval, removeTripleChunks } from './remove-triple-chunks.js';
import { allTripleIndexStrings, appendTripleRows, decodeTripleIndex, encodeTripleIndex, encodeTripleIndexRemoval } from './triple-index-codec.js';
import { buildTripleIndex, type TripleIndex, type TripleRow } from './triple-index.js';

const rows = [
  { id: 't1', subject: 'Ida Halvard', predicate: 'designed', object: 'Weir Bridge', chunkId: 'c1' },
  { id: 't2', subject: 'Weir Bridge', predicate: 'crosses', object: 'the Marle', chunkId: 'c2' },
  { id: 't3', subject: 'ida halvard', predicate: 'Designed', object: 'weir bridge', chunkId: 'c2' },
  { id: 't4', subject: 'Zoë Ørsted 🌉', predicate: 'visited', object: 'Kraków', chunkId: 'c3' },
  { id: 't5', subject: '', predicate: 'is', object: 'dropped', chunkId: 'c3' },
  { id: 't6', subject: 'the Marle', predicate: 'flows into', object: 'the Marle', chunkId: 'c1' },
];

/** Every field of a triple index as plain values. */
function fields(index: TripleIndex): Record<string, unknown> {
  return {
    phraseTexts: [...index.phraseTexts],
    phraseIds: [...index.phraseIds],
    phraseLabels: [...index.phraseLabels],
    phraseIndex: index.phraseTexts.map((text) => index.phraseIndex.get(text)).concat([index.phraseIndex.get('no such phrase') ?? -1]),
    factIds: [...index.factIds],
    factTexts: [...index.factTexts],
    factSubject: [...index.factSubject],
    factObject: [...index.factObject],
    factPredicate: [...index.factPredicate],
    factChunks: index.factChunks.map((list) => [...list]),
    chunkIds: [...index.chunkIds],
    phraseChunks: index.phraseChunks.map((list) => [...list]),
  };
}

test('a triple index decodes to the index that was encoded, field by field', () => {
  const built = buildTripleIndex(rows);
  const encoded = encodeTripleIndex(built);
  assert.ok(encoded);
  // Stored blobs may come back at any byte offset.
  const shifted = new Uint8Array(encoded.byteLength + 1);
  shifted.set(encoded, 1);
  for (const blob of [encoded, shifted.subarray(1)]) {
    const decoded = decodeTripleIndex(blob);
    assert.ok(decoded);
    assert.deepEqual(fields(decoded), fields(built));
  }
  const empty = decodeTripleIndex(encodeTripleIndex(buildTripleIndex([])) as Uint8Array);
  assert.deepEqual(fields(empty as TripleIndex), fields(buildTripleIndex([])));
});

test('a blob of another format or a truncated one is not decoded; a lone surrogate is not encoded', () => {
  const encoded = encodeTripleIndex(buildTripleIndex(rows)) as Uint8Array;
  assert.equal(decodeTripleIndex(new Uint8Array(0)), undefined);
  assert.equal(decodeTripleIndex(encoded.subarray(0, encoded.byteLength - 4)), undefined);
  const otherVersion = Uint8Array.from(encoded);
  otherVersion[4] = 99;
  assert.equal(decodeTripleIndex(otherVersion), undefined);
  assert.equal(encodeTripleIndex(buildTripleIndex([{ id: 'x', subject: 'broken \ud800 pair', predicate: 'is', object: 'text', chunkId: 'c' }])), undefined);
});

/** Surface forms that meet after normalization, facts repeated across chunks, empty arguments, self-loops, non-ASCII. */
const randomWords = ['Ida Halvard', 'ida halvard', 'Weir Bridge', 'weir-bridge', 'the Marle', 'Kraków', 'Zoë Ørsted 🌉', '', '1962', 'Marle Boatworks', 'ferry inn', 'Ferry Inn'];

/** Random triples rows over `words` in 2–13 chunks, and the random source that drew them (for more draws). */
function randomTripleRows(seed: number, words: readonly string[] = randomWords): { rows: TripleRow[]; chunks: string[]; random: () => number } {
  const predicates = ['designed', 'Designed', 'crosses', 'flows  into', 'is'];
  const random = createRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const chunks = Array.from({ length: 2 + Math.floor(random() * 12) }, (_, chunk) => `c${seed}-${chunk}`);
  const rows: TripleRow[] = [];
  for (const chunkId of chunks) {
    for (let triple = Math.floor(random() * 5); triple > 0; triple--) {
      rows.push({ id: `t${rows.length}`, subject: pick(words), predicate: pick(predicates), object: pick(words), chunkId });
    }
  }
  return { rows, chunks, random };
}

test('rows of new chunks appended to an encoded index give the bytes a build over all the rows encodes to', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const { rows, chunks, random } = randomTripleRows(seed);
    const split = Math.floor(random() * chunks.length);
    const oldChunks = new Set(chunks.slice(0, split));
    const before = rows.filter((row) => oldChunks.has(row.chunkId));
    const after = rows.filter((row) => !oldChunks.has(row.chunkId));
    const appended = appendTripleRows(encodeTripleIndex(buildTripleIndex(before)) as Uint8Array, after);
    assert.ok(appended, `seed ${seed}`);
    assert.deepEqual(Buffer.from(appended), Buffer.from(encodeTripleIndex(buildTripleIndex(rows)) as Uint8Array), `seed ${seed}`);
  }
});

test('rows of a chunk the index holds are not appended', () => {
  const encoded = encodeTripleIndex(buildTripleIndex(rows)) as Uint8Array;
  assert.equal(appendTripleRows(encoded, [{ id: 't9', subject: 'Kraków', predicate: 'is', object: 'a city', chunkId: 'c2' }]), undefined);
  assert.equal(appendTripleRows(new Uint8Array(0), []), undefined);
});

test('allTripleIndexStrings gives every string of a field at once, ASCII or not, as the index lists them', () => {
  const built = buildTripleIndex(rows);
  const encoded = encodeTripleIndex(built);
  assert.ok(encoded);
  const decoded = decodeTripleIndex(encoded);
  assert.ok(decoded);
  for (const field of ['phraseTexts', 'phraseIds', 'phraseLabels', 'factIds', 'factTexts', 'factPredicate', 'chunkIds'] as const) {
    assert.deepEqual([...allTripleIndexStrings(decoded, field)], [...built[field]], field);
    assert.deepEqual([...allTripleIndexStrings(built, field)], [...built[field]], field);
  }
  // A non-ASCII field (the labels hold "Zoë Ørsted 🌉") and an ASCII one (the ids) both came through.
  assert.ok(allTripleIndexStrings(decoded, 'phraseLabels').includes('Zoë Ørsted 🌉'));
});

test('removing chunks from a stored index gives the bytes a build over the kept rows encodes to, reading only the rows it must', async () => {
  // No empty arguments: see `removeTripleChunks`.
  const words = randomWords.map((word) => word || 'Lund');
  let walkedSome = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const { rows, chunks, random } = randomTripleRows(seed, words);
    const removed = chunks.filter(() => random() < 0.3);
    const gone = new Set(removed);
    const kept = rows.filter((row) => !gone.has(row.chunkId));
    const blob = encodeTripleIndex(buildTripleIndex(rows)) as Uint8Array;
    const stored = decodeTripleIndex(blob);
    assert.ok(stored);
    const read: string[] = [];
    const readRows = async (chunkIds: readonly string[]): Promise<TripleRow[]> => {
      read.push(...chunkIds);
      const wanted = new Set(chunkIds);
      return kept.filter((row) => wanted.has(row.chunkId));
    };
    const updated = await removeTripleChunks(stored, removed, readRows);
    const expected = Buffer.from(encodeTripleIndex(buildTripleIndex(kept)) as Uint8Array);
    assert.deepEqual(Buffer.from(encodeTripleIndex(updated) as Uint8Array), expected, `seed ${seed}`);
    const removal = await planTripleChunkRemoval(stored, removed, readRows);
    assert.deepEqual(Buffer.from(encodeTripleIndexRemoval(blob, removal) as Uint8Array), expected, `seed ${seed}: the encoded index, its bytes copied`);
    for (const text of updated.phraseTexts) assert.equal(updated.phraseIndex.get(text), updated.phraseTexts.indexOf(text), `seed ${seed}`);
    assert.ok(read.every((chunkId) => !gone.has(chunkId)), `seed ${seed}: only kept chunks are read`);
    if (read.length > 0) walkedSome++;
  }
  // Some cases moved a first occurrence into a later chunk (and read its rows).
  assert.ok(walkedSome > 5, `${walkedSome}`);
});
