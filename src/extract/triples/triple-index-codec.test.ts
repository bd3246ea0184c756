import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeTripleIndex, encodeTripleIndex } from './triple-index-codec.js';
import { buildTripleIndex, type TripleIndex } from './triple-index.js';

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
