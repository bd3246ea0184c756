import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTripleIndex, type TripleRow } from '../../../extract/triples/triple-index.js';
import { appendToPprGraph, assemblePprGraph, encodeAssembledPprGraph, encodePprGraph, type PhraseSynonyms } from './ppr-graph.js';

const row = (chunkId: string, subject: string, predicate: string, object: string): TripleRow => ({ id: `${chunkId}:${subject}:${predicate}:${object}`, subject, predicate, object, chunkId });

const synonymsOf = (edges: Array<[number, number, number]>): PhraseSynonyms => ({
  sources: Int32Array.from(edges, (edge) => edge[0]),
  targets: Int32Array.from(edges, (edge) => edge[1]),
  weights: Float32Array.from(edges, (edge) => edge[2]),
});

test('a graph appended to is the graph assembled from the appended index, byte for byte', () => {
  const before = [
    row('c1', 'Kester', 'flows through', 'Kestermouth'),
    row('c1', 'Kester Weir', 'crosses', 'Kester'),
    row('c2', 'Marle Boatworks', 'built', 'racing gigs'),
    row('c2', 'Marle', 'lies on', 'Kester'),
    row('c3', 'Ferry Inn', 'stands in', 'Kestermouth'),
    row('c3', 'Ferry Inn', 'is', 'Ferry Inn'),
  ];
  const added = [
    // An old fact again (its pair gains a triple), an old pair by another predicate, new phrases, a self-loop.
    row('c5', 'Kester', 'flows through', 'Kestermouth'),
    row('c5', 'Kestermouth', 'lies at the mouth of', 'Kester'),
    row('c5', 'Regatta', 'is rowed on', 'Kester'),
    row('c6', 'Flood Boat Crew', 'dined at', 'Ferry Inn'),
    row('c6', 'Heritage Society', 'met at', 'Ferry Inn'),
    row('c6', 'Regatta', 'is', 'Regatta'),
  ];
  const old = buildTripleIndex(before);
  const index = buildTripleIndex([...before, ...added]);
  const phrase = (text: string): number => index.phraseIndex.get(text.toLowerCase()) as number;
  // c4 has no triples; c5 and c6 are new.
  const oldPassages = ['c1', 'c2', 'c3', 'c4'];
  const passages = [...oldPassages, 'c5', 'c6', 'c7'];
  const pair = (a: string, b: string, weight: number): [number, number, number] => [Math.min(phrase(a), phrase(b)), Math.max(phrase(a), phrase(b)), weight];
  const sorted = (edges: Array<[number, number, number]>) => synonymsOf(edges.sort((left, right) => left[0] - right[0] || left[1] - right[1]));
  // Old synonyms: one kept, one that goes, one whose pair is also a relation and changes weight.
  const oldSynonyms = sorted([pair('Kester', 'Kester Weir', 0.85), pair('Marle', 'Marle Boatworks', 0.9), pair('Kestermouth', 'Kester', 0.8125)]);
  // New: the kept one, the changed one, one between an old and a new phrase and one between new phrases.
  const synonyms = sorted([pair('Kester', 'Kester Weir', 0.85), pair('Kestermouth', 'Kester', 0.875), pair('Ferry Inn', 'Flood Boat Crew', 0.8), pair('Regatta', 'Heritage Society', 0.83)]);
  const stored = encodePprGraph(assemblePprGraph(old, oldPassages, oldSynonyms));
  const appended = appendToPprGraph(stored, index, passages, { facts: old.factIds.length, chunks: old.chunkIds.length, synonyms: oldSynonyms, passagesFit: (count) => count === oldPassages.length }, synonyms);
  assert.ok(appended);
  assert.deepEqual(Buffer.from(appended), Buffer.from(encodePprGraph(assemblePprGraph(index, passages, synonyms))));
  // Encoded without the graph: the same bytes.
  assert.deepEqual(Buffer.from(encodeAssembledPprGraph(index, passages, synonyms)), Buffer.from(encodePprGraph(assemblePprGraph(index, passages, synonyms))));
  assert.deepEqual(Buffer.from(encodeAssembledPprGraph(old, oldPassages, oldSynonyms)), Buffer.from(stored));
  // Passages that are not the graph's: no update.
  assert.equal(appendToPprGraph(stored, index, passages, { facts: old.factIds.length, chunks: old.chunkIds.length, synonyms: oldSynonyms, passagesFit: () => false }, synonyms), undefined);
});
