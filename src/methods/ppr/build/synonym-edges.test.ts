import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRandom, type Random } from '../../../core/random.js';
import { decodeSynonymState, encodeSynonymState, synonymComputation, updateSynonymEdges, type SparseVector, type SynonymEdgeOptions } from './synonym-edges.js';

/*
 * An update of the synonym edges (issue 38) must give the edges a fresh computation gives for the same phrases and
 * vectors, whatever the phrases' order in the triple index (an update of the index can move them) and whatever came
 * and went. Phrases here are drawn from a small vocabulary so that they share words, and vectors from a few coarse
 * values so that similarities tie, at the threshold and at the `topK` cut.
 */

const vocabulary = ['river', 'kester', 'bridge', 'weir', 'mill', 'ferry', 'inn', 'boat', 'crew', 'the', 'of', 'marle', 'flood', 'gig'];
const dimensions = 12;

function phraseText(random: Random): string {
  const words = 1 + Math.floor(random() * 3);
  return Array.from({ length: words }, () => vocabulary[Math.floor(random() * vocabulary.length)] as string).join(' ');
}

/** A unit vector from the phrase's words (so phrases with common words are close) and coarse noise (so values tie). */
function phraseVector(text: string, random: Random): SparseVector {
  const dense = new Float32Array(dimensions);
  for (const word of text.split(' ')) {
    const index = vocabulary.indexOf(word);
    dense[index % dimensions] = (dense[index % dimensions] as number) + 1;
  }
  dense[Math.floor(random() * dimensions)] = (dense[Math.floor(random() * dimensions)] as number) + Math.floor(random() * 3) / 2;
  const norm = Math.hypot(...dense);
  const columns: number[] = [];
  const values: number[] = [];
  dense.forEach((value, coordinate) => {
    if (value === 0) return;
    columns.push(coordinate);
    values.push(value / norm);
  });
  return { dimensions, columns: Int32Array.from(columns), values: Float32Array.from(values) };
}

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

/** The edges as "text|text weight" lines: comparable across two phrase orders. */
function edgeLines(texts: readonly string[], edges: { sources: ArrayLike<number>; targets: ArrayLike<number>; weights: ArrayLike<number> }): string[] {
  return Array.from({ length: edges.sources.length }, (_, edge) => {
    const pair = [texts[edges.sources[edge] as number] as string, texts[edges.targets[edge] as number] as string].sort();
    return `${pair.join('|')} ${edges.weights[edge]}`;
  }).sort();
}

describe('synonym edges: an update equals a fresh computation', () => {
  test('random phrases added and removed, in a new order, with tied similarities', async () => {
    let updates = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const random = createRandom(seed);
      const options: SynonymEdgeOptions = { topK: 1 + Math.floor(random() * 4), threshold: [0.5, 0.7, 0.8][seed % 3] as number, search: 'shared-word' };
      const vectorOf = new Map<string, SparseVector>();
      const draw = (count: number): string[] => {
        const texts = new Set<string>();
        while (texts.size < count) texts.add(phraseText(random));
        for (const text of texts) if (!vectorOf.has(text)) vectorOf.set(text, phraseVector(text, random));
        return [...texts];
      };
      const before = draw(20 + Math.floor(random() * 40));
      const previous = await synonymComputation(before, before.map((text) => vectorOf.get(text) as SparseVector), options);

      const removed = new Set(before.filter(() => random() < 0.2));
      const added = draw(60).filter((text) => !before.includes(text)).slice(0, 1 + Math.floor(random() * 10));
      const after = shuffled([...before.filter((text) => !removed.has(text)), ...added], random);
      const vectors = after.map((text) => vectorOf.get(text) as SparseVector);

      const fresh = await synonymComputation(after, vectors, options);
      const state = decodeSynonymState(encodeSynonymState(previous.state));
      assert.ok(state);
      const updated = updateSynonymEdges(after, vectors, options, state);
      assert.ok(updated, `seed ${seed}: no block crossed the limit, so the update applies`);
      updates++;
      assert.deepEqual(edgeLines(after, updated.edges), edgeLines(after, fresh.edges), `seed ${seed}: edges`);
      assert.deepEqual([...updated.edges.sources], [...fresh.edges.sources], `seed ${seed}: the same indices, in the same order`);
      assert.deepEqual([...updated.edges.targets], [...fresh.edges.targets], `seed ${seed}: targets`);
      assert.deepEqual([...updated.edges.weights], [...fresh.edges.weights], `seed ${seed}: weights`);
      assert.deepEqual(encodeSynonymState(updated.state), encodeSynonymState(fresh.state), `seed ${seed}: the state the next update starts from`);
      assert.ok(updated.searched <= added.length + before.length - removed.size);
      // With the phrases' text order (a stored triple index holds it), the old phrases are found by a walk: the same result.
      const textOrder = Int32Array.from(after.map((_, phrase) => phrase).sort((left, right) => ((after[left] as string) < (after[right] as string) ? -1 : 1)));
      const walked = updateSynonymEdges(after, vectors, options, state, textOrder);
      assert.ok(walked);
      assert.deepEqual(encodeSynonymState(walked.state), encodeSynonymState(updated.state), `seed ${seed}: with the text order`);
      assert.deepEqual([walked.edges.sources, walked.edges.targets, walked.edges.weights].map((part) => [...part]), [updated.edges.sources, updated.edges.targets, updated.edges.weights].map((part) => [...part]));
    }
    assert.equal(updates, 60);
  });

  test('a fresh computation does not depend on the phrases’ order', async () => {
    const random = createRandom(7);
    const texts = [...new Set(Array.from({ length: 80 }, () => phraseText(random)))];
    const vectorOf = new Map(texts.map((text) => [text, phraseVector(text, random)]));
    const options: SynonymEdgeOptions = { topK: 2, threshold: 0.6, search: 'shared-word' };
    const first = await synonymComputation(texts, texts.map((text) => vectorOf.get(text) as SparseVector), options);
    const order = shuffled(texts, random);
    const second = await synonymComputation(order, order.map((text) => vectorOf.get(text) as SparseVector), options);
    assert.ok(first.edges.sources.length > 0);
    assert.deepEqual(edgeLines(order, second.edges), edgeLines(texts, first.edges));
    for (const search of ['exact', 'shared-word'] as const) {
      const exactFirst = await synonymComputation(texts, texts.map((text) => vectorOf.get(text) as SparseVector), { ...options, search });
      const exactSecond = await synonymComputation(order, order.map((text) => vectorOf.get(text) as SparseVector), { ...options, search });
      assert.deepEqual(edgeLines(order, exactSecond.edges), edgeLines(texts, exactFirst.edges), search);
    }
  });

  test('no update across a change of the oversized words, or for the exact search', async () => {
    const texts = ['kester river', 'kester weir'];
    const vectors = [phraseVector(texts[0] as string, createRandom(1)), phraseVector(texts[1] as string, createRandom(2))];
    const options: SynonymEdgeOptions = { topK: 2, threshold: 0.5, search: 'shared-word' };
    const { state } = await synonymComputation(texts, vectors, options);
    assert.ok(updateSynonymEdges(texts, vectors, options, state));
    // A block the previous search found too large and that an added phrase now puts below the limit (a stand-in for
    // 4,096 phrases): its pairs all come at once.
    const grown = [...texts, 'kester mill'];
    const grownVectors = [...vectors, phraseVector('kester mill', createRandom(3))];
    assert.ok(updateSynonymEdges(grown, grownVectors, options, state));
    assert.equal(updateSynonymEdges(grown, grownVectors, options, { ...state, oversizedWords: ['kester'] }), undefined);
    assert.equal(updateSynonymEdges(texts, vectors, { ...options, search: 'exact' }, state), undefined);
  });
});
