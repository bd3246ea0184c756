import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTripleIndex, type TripleRow } from '../../../extract/triples/triple-index.js';
import { planTripleChunkRemoval, removeTripleChunks } from '../../../extract/triples/remove-triple-chunks.js';
import { appendToPprGraph, assemblePprGraph, encodeAssembledPprGraph, encodePprGraph, removeFromPprGraph, type PhraseSynonyms } from './ppr-graph.js';

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

test('a graph removed from is the graph assembled from the index without the removed chunks, byte for byte', async () => {
  const rows = [
    row('c1', 'Kester', 'flows through', 'Kestermouth'),
    row('c1', 'Kester Weir', 'crosses', 'Kester'),
    row('c2', 'Marle Boatworks', 'built', 'racing gigs'),
    row('c2', 'Marle', 'lies on', 'Kester'),
    row('c2', 'Kester', 'flows through', 'Kestermouth'),
    row('c3', 'Ferry Inn', 'stands in', 'Kestermouth'),
    row('c3', 'Ferry Inn', 'is', 'Ferry Inn'),
    row('c3', 'Regatta', 'is rowed on', 'Kester'),
    // c2 goes: a kept pair loses a triple, phrases first named in c2 (Marle Boatworks, racing gigs) go, and one
    // first named in c2 (Marle) moves after the phrases of c3.
    row('c5', 'Marle', 'hosts', 'Regatta'),
    row('c5', 'Heritage Society', 'met at', 'Ferry Inn'),
    row('c6', 'Flood Boat Crew', 'dined at', 'Ferry Inn'),
  ];
  const old = buildTripleIndex(rows);
  const removed = ['c2', 'c6'];
  const readRows = async (ids: readonly string[]) => rows.filter((candidate) => ids.includes(candidate.chunkId));
  const plan = await planTripleChunkRemoval(old, removed, readRows);
  const index = await removeTripleChunks(old, removed, readRows);
  assert.deepEqual(index.phraseTexts, buildTripleIndex(rows.filter((candidate) => !removed.includes(candidate.chunkId))).phraseTexts);
  const oldPhrase = (text: string): number => old.phraseIndex.get(text.toLowerCase()) as number;
  const phrase = (text: string): number => index.phraseIndex.get(text.toLowerCase()) as number;
  assert.ok(oldPhrase('Marle') < oldPhrase('Regatta') && phrase('Marle') > phrase('Regatta'), 'a phrase moved');
  const sorted = (edges: Array<[number, number, number]>) => synonymsOf(edges.sort((left, right) => left[0] - right[0] || left[1] - right[1]));
  const pair = (at: (text: string) => number, a: string, b: string, weight: number): [number, number, number] => [Math.min(at(a), at(b)), Math.max(at(a), at(b)), weight];
  // Old synonyms: one kept, one that goes with a removed phrase, one that goes between kept phrases, one on a relation that changes weight.
  const oldSynonyms = sorted([
    pair(oldPhrase, 'Kester', 'Kester Weir', 0.85),
    pair(oldPhrase, 'Marle', 'Marle Boatworks', 0.9),
    pair(oldPhrase, 'Regatta', 'Heritage Society', 0.82),
    pair(oldPhrase, 'Kestermouth', 'Kester', 0.8125),
  ]);
  const synonyms = sorted([pair(phrase, 'Kester', 'Kester Weir', 0.85), pair(phrase, 'Kestermouth', 'Kester', 0.875)]);
  const oldPassages = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
  const passages = ['c1', 'c3', 'c4', 'c5'];
  const stored = encodePprGraph(assemblePprGraph(old, oldPassages, oldSynonyms));
  const updated = removeFromPprGraph(stored, index, passages, { phrases: plan.newPhrase, passageIds: oldPassages, synonyms: oldSynonyms }, synonyms);
  assert.ok(updated);
  assert.deepEqual(Buffer.from(updated), Buffer.from(encodePprGraph(assemblePprGraph(index, passages, synonyms))));
  // Passages that are not the graph's: no update.
  assert.equal(removeFromPprGraph(stored, index, ['c1', 'c7'], { phrases: plan.newPhrase, passageIds: oldPassages, synonyms: oldSynonyms }, synonyms), undefined);
});
