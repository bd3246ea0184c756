import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type NlpExtractConfig, nlpExtractConfigSchema } from '../../core/config/config-schema.js';
import { createRandom } from '../../core/random.js';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import { buildNounGraph, describePhrase, descriptionWindow, percentile, phraseEntityId, properTitle } from './build-noun-graph.js';
import type { ChunkPhrases, NounGraph, NounGraphFit } from './build-noun-graph.js';
import { type GraphMentionRules, graphMentions } from './graph-mentions.js';
import { createNounPhraseExtractor, extractNounPhrases } from './noun-phrase-extractor.js';
import type { MentionKind, PhraseMention } from './noun-phrase-extractor.js';

/** Every pruning step off: only "nodes without edges are dropped" remains. */
const noPruning: NlpExtractConfig = {
  minNodeFrequency: 1,
  minProperNameFrequency: 1,
  minPhraseRepeats: 1,
  mergeShortNames: false, titleAliases: false,
  keepApart: [],
  minNodeDegree: 0,
  minEdgeWeightPercentile: 0,
  removeEgoNodes: false,
  maxPhrasesPerChunk: 64,
  typing: 'none',
};
const withConfig = (overrides: Partial<NlpExtractConfig>): NlpExtractConfig => ({ ...noPruning, ...overrides });

interface PhraseSpec {
  key: string;
  surface?: string;
  sentence?: number;
  kind?: MentionKind;
  typeHint?: string;
}

/**
 * A chunk built by hand: `sentences` joined by one space (or the given separator), mentions in the
 * given order. A mention's offsets point at its surface inside its sentence when present there.
 */
function chunkOf(chunkId: string, phrases: ReadonlyArray<string | PhraseSpec>, sentences?: readonly string[], separator = ' '): ChunkPhrases {
  const specs = phrases.map((phrase) => (typeof phrase === 'string' ? { key: phrase } : phrase));
  const parts = sentences ?? [`${specs.map((spec) => spec.surface ?? spec.key).join(' and ')}.`];
  const spans: Array<[number, number]> = [];
  let text = '';
  for (const sentence of parts) {
    if (text.length > 0) text += separator;
    spans.push([text.length, text.length + sentence.length]);
    text += sentence;
  }
  const mentions: PhraseMention[] = specs.map((spec) => {
    const sentence = spec.sentence ?? 0;
    const surface = spec.surface ?? spec.key;
    const [from, to] = spans[sentence] as [number, number];
    const found = text.indexOf(surface, from);
    const start = found >= from && found + surface.length <= to ? found : from;
    const mention: PhraseMention = { key: spec.key, surface, start, end: start + surface.length, sentence, kind: spec.kind ?? 'phrase' };
    if (spec.typeHint) mention.typeHint = spec.typeHint;
    return mention;
  });
  return { chunkId, text, extraction: { sentences: spans, mentions } };
}

/** Chunks from lists of keys, ids c1, c2, … */
const chunksOf = (...lists: string[][]): ChunkPhrases[] => lists.map((keys, index) => chunkOf(`c${index + 1}`, keys));

function entity(graph: NounGraph, key: string): EntityRecord {
  const found = graph.entities.find((candidate) => candidate.id === phraseEntityId(key));
  assert.ok(found, `entity "${key}" missing`);
  return found;
}

function relation(graph: NounGraph, a: string, b: string): RelationRecord {
  const ids = [phraseEntityId(a), phraseEntityId(b)].sort();
  const found = graph.relations.find((candidate) => candidate.source === ids[0] && candidate.target === ids[1]);
  assert.ok(found, `relation ${a}–${b} missing`);
  return found;
}

/** Entity keys present, sorted, given the vocabulary that may appear. */
function keysOf(graph: NounGraph, vocabulary: readonly string[]): string[] {
  const ids = new Set(graph.entities.map((candidate) => candidate.id));
  return vocabulary.filter((key) => ids.has(phraseEntityId(key))).sort();
}

/** Relation pairs present as sorted "a-b" strings. */
function pairsOf(graph: NounGraph, vocabulary: readonly string[]): string[] {
  const keyOfId = new Map(vocabulary.map((key) => [phraseEntityId(key), key]));
  return graph.relations.map((edge) => [keyOfId.get(edge.source), keyOfId.get(edge.target)].sort().join('-')).sort();
}

const near = (actual: number, expected: number, message?: string): void => {
  assert.ok(Math.abs(actual - expected) < 1e-12, `${message ?? ''} expected ${expected}, got ${actual}`);
};

/*
 * The running example (same as GraphRAG's co-occurrence graph over four text units):
 *   c1: a b c    c2: a b    c3: a d    c4: b c
 * freq: a 3, b 3, c 2, d 1 (Σ = 9). Pair weights (shared chunks): ab 2, ac 1, bc 2, ad 1 (Σ = 6).
 * PMI = p(x,y)·log2(p(x,y)/(p(x)p(y))):
 *   ab: (2/6)·log2((2/6)/((3/9)(3/9))) = (1/3)·log2(3)     ≈ 0.528321
 *   ac: (1/6)·log2((1/6)/((3/9)(2/9))) = (1/6)·log2(9/4)   ≈ 0.194988
 *   bc: (2/6)·log2((2/6)/((3/9)(2/9))) = (1/3)·log2(9/2)   ≈ 0.723308
 *   ad: (1/6)·log2((1/6)/((3/9)(1/9))) = (1/6)·log2(9/2)   ≈ 0.361654
 */
const example = (): ChunkPhrases[] => chunksOf(['a', 'b', 'c'], ['a', 'b'], ['a', 'd'], ['b', 'c']);
const pmi = { ab: Math.log2(3) / 3, ac: Math.log2(9 / 4) / 6, bc: Math.log2(9 / 2) / 3, ad: Math.log2(9 / 2) / 6 };
const vocabulary = ['a', 'b', 'c', 'd'];

describe('percentile', () => {
  test("equals NumPy's default linear percentile", () => {
    // np.percentile([1,2,3,4], 40): rank 0.4·3 = 1.2 → 2 + 0.2·(3 − 2) = 2.2
    near(percentile([4, 1, 3, 2], 40), 2.2);
    // np.percentile([10,1,5], 50) = 5 (rank 1, the median)
    assert.equal(percentile([10, 1, 5], 50), 5);
    // np.percentile([-1, 0.5, 2, 7], 25): rank 0.75 → −1 + 0.75·1.5 = 0.125
    near(percentile([0.5, -1, 7, 2], 25), 0.125);
    // np.percentile([1,2,3,4,5], 0) = 1, (…, 100) = 5, (…, 90): rank 3.6 → 4.6
    assert.equal(percentile([5, 4, 3, 2, 1], 0), 1);
    assert.equal(percentile([5, 4, 3, 2, 1], 100), 5);
    near(percentile([5, 4, 3, 2, 1], 90), 4.6);
    // One value: every percentile is that value.
    assert.equal(percentile([3], 40), 3);
    // Repeated values: np.percentile([2,2,2,9], 50) = 2
    assert.equal(percentile([2, 9, 2, 2], 50), 2);
  });

  test('does not reorder its input; empty input gives −∞ (no edge is below it)', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    assert.deepEqual(values, [3, 1, 2]);
    assert.equal(percentile([], 40), Number.NEGATIVE_INFINITY);
  });
});

describe('buildNounGraph: nodes, edges and PMI', () => {
  test('frequency counts chunks (not mentions); weights count shared chunks', () => {
    const chunks = example();
    // A second mention of "a" in c1 changes nothing.
    chunks[0]?.extraction.mentions.push({ key: 'a', surface: 'a', start: 0, end: 1, sentence: 0, kind: 'phrase' });
    const graph = buildNounGraph(chunks, noPruning);
    assert.deepEqual(keysOf(graph, vocabulary), ['a', 'b', 'c', 'd']);
    assert.equal(entity(graph, 'a').frequency, 3);
    assert.deepEqual(entity(graph, 'a').chunkIds, ['c1', 'c2', 'c3']);
    assert.equal(entity(graph, 'b').frequency, 3);
    assert.equal(entity(graph, 'c').frequency, 2);
    assert.equal(entity(graph, 'd').frequency, 1);
    assert.deepEqual(relation(graph, 'a', 'b').chunkIds, ['c1', 'c2']);
    assert.deepEqual(relation(graph, 'b', 'c').chunkIds, ['c1', 'c4']);
    assert.deepEqual(relation(graph, 'a', 'c').chunkIds, ['c1']);
    assert.deepEqual(relation(graph, 'a', 'd').chunkIds, ['c3']);
    assert.deepEqual(pairsOf(graph, vocabulary), ['a-b', 'a-c', 'a-d', 'b-c']);
    // Degrees: a–{b,c,d} 3, b–{a,c} 2, c–{a,b} 2, d–{a} 1; combined degree = sum of the two ends.
    assert.deepEqual(['a', 'b', 'c', 'd'].map((key) => entity(graph, key).degree), [3, 2, 2, 1]);
    assert.equal(relation(graph, 'a', 'b').combinedDegree, 5);
    assert.equal(relation(graph, 'a', 'd').combinedDegree, 4);
    assert.deepEqual(graph.stats, { candidates: 10, pairs: 4, prunedNodes: 0, prunedEdges: 0 });
  });

  test('edge weights are the PMI of the hand-computed example', () => {
    const graph = buildNounGraph(example(), noPruning);
    near(relation(graph, 'a', 'b').weight, pmi.ab, 'ab');
    near(relation(graph, 'a', 'c').weight, pmi.ac, 'ac');
    near(relation(graph, 'b', 'c').weight, pmi.bc, 'bc');
    near(relation(graph, 'a', 'd').weight, pmi.ad, 'ad');
  });

  test('PMI is negative when a pair co-occurs less than chance', () => {
    // weight < 0 iff w/Σw < freq(x)·freq(y)/(Σfreq)². Σw grows with the pairs of crowded chunks:
    // c1: a b; c2: c d e f g h i j k l (10 phrases, 45 pairs); a and b alone in 5 more chunks each.
    // freq a 6, b 6, c..l 1 (Σ 22); weights ab 1 + 45 others (Σ 46).
    // ab: (1/46)·log2((1/46)/((6/22)(6/22))) = (1/46)·log2(484/1656) = (1/46)·(−1.774624…) ≈ −0.0385788.
    const alone = (key: string, count: number): string[][] => Array.from({ length: count }, () => [key]);
    const big = ['c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
    const graph = buildNounGraph(chunksOf(['a', 'b'], big, ...alone('a', 5), ...alone('b', 5)), noPruning);
    const expected = (1 / 46) * Math.log2(1 / 46 / ((6 / 22) * (6 / 22)));
    assert.ok(expected < 0);
    near(relation(graph, 'a', 'b').weight, expected);
    assert.ok(Math.abs(expected - -0.0385788) < 1e-7, 'hand value');
  });

  test('an empty input or chunks without pairs give an empty graph', () => {
    assert.deepEqual(buildNounGraph([], { ...noPruning, removeEgoNodes: true }), {
      entities: [],
      relations: [],
      stats: { candidates: 0, pairs: 0, prunedNodes: 0, prunedEdges: 0 },
    });
    const lonely = buildNounGraph(chunksOf(['a'], ['b'], ['a']), { ...noPruning, removeEgoNodes: true, minEdgeWeightPercentile: 40 });
    assert.deepEqual(lonely.entities, []);
    assert.deepEqual(lonely.relations, []);
    assert.deepEqual(lonely.stats, { candidates: 3, pairs: 0, prunedNodes: 2, prunedEdges: 0 });
  });
});

describe('buildNounGraph: pruning (GraphRAG prune_graph order)', () => {
  test('edges below the weight percentile are dropped, then nodes left without edges', () => {
    // Weights sorted: ac 0.19499, ad 0.36165, ab 0.52832, bc 0.72331; the 40th percentile has rank
    // 0.4·3 = 1.2 → 0.36165 + 0.2·(0.52832 − 0.36165) ≈ 0.39499: ab and bc stay, d has no edge left.
    const graph = buildNounGraph(example(), withConfig({ minEdgeWeightPercentile: 40 }));
    assert.deepEqual(pairsOf(graph, vocabulary), ['a-b', 'b-c']);
    assert.deepEqual(keysOf(graph, vocabulary), ['a', 'b', 'c']);
    // Degrees are those of the pruned graph; weights keep their PMI values.
    assert.deepEqual(['a', 'b', 'c'].map((key) => entity(graph, key).degree), [1, 2, 1]);
    near(relation(graph, 'b', 'c').weight, pmi.bc);
    assert.equal(relation(graph, 'a', 'b').combinedDegree, 3);
    assert.deepEqual(graph.stats, { candidates: 9, pairs: 4, prunedNodes: 1, prunedEdges: 2 });
  });

  test('a proper name of one chunk keeps its strongest pair below the percentile; a common phrase does not', () => {
    // As above, with d a proper name mentioned in c3 only: ad is under the threshold and d's only pair.
    const chunks = example();
    const named = chunkOf('c3', ['a', { key: 'd', kind: 'proper' }]);
    const graph = buildNounGraph([chunks[0], chunks[1], named, chunks[3]] as ChunkPhrases[], withConfig({ minEdgeWeightPercentile: 40 }));
    assert.deepEqual(pairsOf(graph, vocabulary), ['a-b', 'a-d', 'b-c']);
    assert.equal(entity(graph, 'd').degree, 1);
    // Of z's three pairs, all under the threshold, only the strongest stays; once z is in two chunks, none.
    const lists = [['a', 'b', 'c'], ['a', 'b'], ['a', 'b', 'c'], ['b', 'c'], ['a', 'c']];
    const proper = (id: string, keys: string[]): ChunkPhrases => chunkOf(id, keys.map((key) => (key === 'z' ? { key, kind: 'proper' as const } : key)));
    const once = buildNounGraph([...chunksOf(...lists), proper('c6', ['a', 'b', 'c', 'z'])], withConfig({ minEdgeWeightPercentile: 90 }));
    const unpruned = buildNounGraph([...chunksOf(...lists), proper('c6', ['a', 'b', 'c', 'z'])], withConfig({}));
    const zPairs = ['a', 'b', 'c'].map((other) => ({ other, weight: relation(unpruned, other, 'z').weight }));
    const strongest = zPairs.reduce((best, pair) => (pair.weight > best.weight || (pair.weight === best.weight && pair.other < best.other) ? pair : best));
    assert.deepEqual(pairsOf(once, [...vocabulary, 'z']).filter((pair) => pair.includes('z')), [[strongest.other, 'z'].sort().join('-')]);
    let fit: NounGraphFit | undefined;
    const twice = buildNounGraph([...chunksOf(...lists), proper('c6', ['a', 'b', 'c', 'z']), proper('c7', ['z', 'a', 'b', 'c'])], withConfig({ minEdgeWeightPercentile: 90 }), (fitted) => (fit = fitted));
    const zIds = new Set([phraseEntityId('z')]);
    for (const edge of twice.relations.filter((candidate) => zIds.has(candidate.source) || zIds.has(candidate.target))) assert.ok(edge.weight >= (fit as NounGraphFit).figures.threshold, 'only pairs over the threshold');
  });

  test('a proper name of one chunk is a leaf: one pair however strong its others, and its pairs do not move the percentile', () => {
    // Four recurring phrases and a chunk of once-seen names: PMI rates every pair of a once-seen name above the
    // recurring phrases' pairs, so a percentile over all pairs would keep all of them and drop the recurring ones.
    const recurring = chunksOf(['a', 'b', 'c'], ['a', 'b'], ['a', 'b', 'c'], ['b', 'c'], ['a', 'c'], ['a', 'b', 'd'], ['c', 'd']);
    const names = chunkOf('n1', ['a', ...['p', 'q', 'r', 's'].map((key) => ({ key, kind: 'proper' as const }))]);
    let fit: NounGraphFit | undefined;
    const graph = buildNounGraph([...recurring, names], withConfig({ minEdgeWeightPercentile: 40 }), (fitted) => (fit = fitted));
    const vocabulary = ['a', 'b', 'c', 'd', 'p', 'q', 'r', 's'];
    // Each name hangs off the recurring phrase it shares its chunk with, not off another name.
    assert.deepEqual(
      pairsOf(graph, vocabulary).filter((pair) => /[pqrs]/.test(pair)),
      ['a-p', 'a-q', 'a-r', 'a-s'],
    );
    const unpruned = buildNounGraph([...recurring, names], withConfig({}));
    const isNamePair = (edge: RelationRecord): boolean => ['p', 'q', 'r', 's'].some((name) => edge.source === phraseEntityId(name) || edge.target === phraseEntityId(name));
    const recurringWeights = unpruned.relations.filter((edge) => !isNamePair(edge)).map((edge) => edge.weight);
    // The threshold is the percentile of the recurring phrases' pairs alone, so it keeps as many of them as without the names.
    near((fit as NounGraphFit).figures.threshold, percentile(Float64Array.from(recurringWeights), 40));
    const keptRecurring = graph.relations.filter((edge) => !isNamePair(edge)).length;
    assert.equal(keptRecurring, recurringWeights.filter((weight) => weight >= (fit as NounGraphFit).figures.threshold).length);
    assert.ok(keptRecurring > 0);
    // A percentile over every pair would have kept fewer of them: pairs of once-seen names rank high.
    const overAll = percentile(Float64Array.from(unpruned.relations, (edge) => edge.weight), 40);
    assert.ok(recurringWeights.filter((weight) => weight >= overAll).length < keptRecurring);
    // Without edge pruning (percentile 0) a name keeps every pair.
    assert.equal(entity(unpruned, 'p').degree, 4);
  });

  test('an edge exactly at the percentile is kept', () => {
    // Percentile 0 is the minimum (but 0 means "off"); percentile 100 is the maximum: only bc stays.
    const graph = buildNounGraph(example(), withConfig({ minEdgeWeightPercentile: 100 }));
    assert.deepEqual(pairsOf(graph, vocabulary), ['b-c']);
  });

  test('the ego node (highest degree) is removed first', () => {
    // Degrees a 3, b 2, c 2, d 1 → ego a; left: bc; d loses its only edge.
    const graph = buildNounGraph(example(), withConfig({ removeEgoNodes: true }));
    assert.deepEqual(keysOf(graph, vocabulary), ['b', 'c']);
    assert.deepEqual(pairsOf(graph, vocabulary), ['b-c']);
    assert.deepEqual(graph.stats, { candidates: 9, pairs: 4, prunedNodes: 2, prunedEdges: 3 });
  });

  test('among equal highest degrees the first-seen phrase is the ego (networkx node order)', () => {
    // p–q and r–s: all degree 1.
    const first = buildNounGraph(chunksOf(['p', 'q'], ['r', 's']), withConfig({ removeEgoNodes: true }));
    assert.deepEqual(keysOf(first, ['p', 'q', 'r', 's']), ['r', 's']);
    const swapped = buildNounGraph(chunksOf(['r', 's'], ['p', 'q']), withConfig({ removeEgoNodes: true }));
    assert.deepEqual(keysOf(swapped, ['p', 'q', 'r', 's']), ['p', 'q']);
  });

  test('the minimum degree uses the ORIGINAL degrees, not the degrees after ego removal', () => {
    // h–m, m–x, h–x, h–y, h–z: degrees h 4, m 2, x 2, y 1, z 1. Ego h goes; with minNodeDegree 2, y and
    // z go (degree 1). m and x keep their original degree 2 although only their m–x edge is left.
    const chunks = chunksOf(['h', 'm'], ['m', 'x'], ['h', 'x'], ['h', 'y'], ['h', 'z']);
    const graph = buildNounGraph(chunks, withConfig({ removeEgoNodes: true, minNodeDegree: 2 }));
    const names = ['h', 'm', 'x', 'y', 'z'];
    assert.deepEqual(keysOf(graph, names), ['m', 'x']);
    assert.deepEqual(pairsOf(graph, names), ['m-x']);
    assert.equal(entity(graph, 'm').degree, 1);
  });

  test('nodes below the minimum degree are dropped even when frequent', () => {
    // d has degree 1 < 2 (and is dropped); a, b, c have degree ≥ 2.
    const graph = buildNounGraph(example(), withConfig({ minNodeDegree: 2 }));
    assert.deepEqual(keysOf(graph, vocabulary), ['a', 'b', 'c']);
    assert.deepEqual(pairsOf(graph, vocabulary), ['a-b', 'a-c', 'b-c']);
  });

  test('nodes below the minimum frequency are dropped; PMI keeps the unpruned totals', () => {
    // d (freq 1) goes with its edge ad; ac keeps (1/6)·log2(9/4), computed with Σw = 6 and Σfreq = 9.
    const graph = buildNounGraph(example(), withConfig({ minNodeFrequency: 2 }));
    assert.deepEqual(keysOf(graph, vocabulary), ['a', 'b', 'c']);
    near(relation(graph, 'a', 'c').weight, pmi.ac);
    near(relation(graph, 'a', 'b').weight, pmi.ab);
  });

  test('the percentile is taken over the edges left after node pruning', () => {
    // With minNodeFrequency 2, d and ad go first; left: ac 0.19499, ab 0.52832, bc 0.72331.
    // 60th percentile of those: rank 0.6·2 = 1.2 → 0.52832 + 0.2·(0.72331 − 0.52832) ≈ 0.56732 → only bc.
    // (Over all four edges it would be rank 1.8 → 0.36165 + 0.8·0.16667 ≈ 0.49499, keeping ab too.)
    const graph = buildNounGraph(example(), withConfig({ minNodeFrequency: 2, minEdgeWeightPercentile: 60 }));
    assert.deepEqual(pairsOf(graph, vocabulary), ['b-c']);
    assert.deepEqual(keysOf(graph, vocabulary), ['b', 'c']);
  });

  test('the GraphRAG fast defaults on the example', () => {
    // freq ≥ 2 drops d; ego a (degree 3) goes; only bc is left, and it is at its own 40th percentile.
    const graph = buildNounGraph(example(), { minNodeFrequency: 2, minProperNameFrequency: 2, minPhraseRepeats: 1, mergeShortNames: false, titleAliases: false, keepApart: [], minNodeDegree: 1, minEdgeWeightPercentile: 40, removeEgoNodes: true, maxPhrasesPerChunk: 64, typing: 'auto' });
    assert.deepEqual(pairsOf(graph, vocabulary), ['b-c']);
    assert.deepEqual(keysOf(graph, vocabulary), ['b', 'c']);
  });

  test('maxPhrasesPerChunk keeps the most frequent phrases of a crowded chunk', () => {
    // c1: p q r s (over the cap of 2); c2: r s; c3: s q; c4: s r. freq p 1, q 2, r 3, s 4.
    // c1 contributes only the pair of its two most frequent phrases, r–s; pairs: rs ×3 (c1, c2, c4), qs ×1.
    const chunks = chunksOf(['p', 'q', 'r', 's'], ['r', 's'], ['s', 'q'], ['s', 'r']);
    const graph = buildNounGraph(chunks, withConfig({ maxPhrasesPerChunk: 2 }));
    const names = ['p', 'q', 'r', 's'];
    assert.deepEqual(pairsOf(graph, names), ['q-s', 'r-s']);
    assert.deepEqual(relation(graph, 'r', 's').chunkIds, ['c1', 'c2', 'c4']);
    assert.equal(graph.stats.pairs, 2);
    // Frequencies still count every chunk; p has no pair left and is dropped.
    assert.equal(entity(graph, 's').frequency, 4);
    assert.deepEqual(entity(graph, 'q').chunkIds, ['c1', 'c3']);
    assert.deepEqual(keysOf(graph, names), ['q', 'r', 's']);
  });

  test('maxPhrasesPerChunk breaks frequency ties by first appearance', () => {
    // All frequency 1; the cap of 2 keeps a and b (seen first).
    const graph = buildNounGraph(chunksOf(['a', 'b', 'c']), withConfig({ maxPhrasesPerChunk: 2 }));
    assert.deepEqual(pairsOf(graph, ['a', 'b', 'c']), ['a-b']);
  });
});

describe('buildNounGraph: ids, determinism and descriptions', () => {
  test('entity ids are stable content hashes of the key', () => {
    const id = phraseEntityId('weir bridge');
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.equal(phraseEntityId('weir bridge'), id);
    assert.notEqual(phraseEntityId('weir  bridge'), id);
    const graph = buildNounGraph(example(), noPruning);
    for (const key of vocabulary) assert.equal(entity(graph, key).id, phraseEntityId(key));
  });

  test('relation ids and endpoints do not depend on pair order', () => {
    const forward = buildNounGraph(chunksOf(['a', 'b'], ['b', 'c'], ['a', 'b']), noPruning);
    const backward = buildNounGraph(chunksOf(['c', 'b'], ['b', 'a'], ['b', 'a']), noPruning);
    const strip = (edge: RelationRecord) => ({ id: edge.id, source: edge.source, target: edge.target, weight: edge.weight });
    assert.deepEqual(forward.relations.map(strip), backward.relations.map(strip));
    for (const edge of forward.relations) assert.ok(edge.source < edge.target);
    const ids = forward.relations.map((edge) => edge.id);
    assert.deepEqual(ids, [...ids].sort(), 'relations are sorted by id');
  });

  test('same input → same output; permuting mentions within chunks → same graph', () => {
    const random = createRandom(7);
    const words = Array.from({ length: 14 }, (_, index) => `w${index}`);
    for (let round = 0; round < 20; round++) {
      const lists = Array.from({ length: 12 }, () => words.filter(() => random() < 0.3));
      const config = withConfig({ minNodeFrequency: 2, minNodeDegree: 1, minEdgeWeightPercentile: 40, maxPhrasesPerChunk: 64 });
      const graph = buildNounGraph(chunksOf(...lists), config);
      assert.deepEqual(buildNounGraph(chunksOf(...lists), config), graph);
      const shuffled = lists.map((list) => {
        const copy = [...list];
        for (let index = copy.length - 1; index > 0; index--) {
          const other = Math.floor(random() * (index + 1));
          [copy[index], copy[other]] = [copy[other] as string, copy[index] as string];
        }
        return copy;
      });
      const permuted = buildNounGraph(chunksOf(...shuffled), config);
      const byId = (left: { id: string }, right: { id: string }) => (left.id < right.id ? -1 : 1);
      // Descriptions quote the chunk's one sentence, which lists the keys in mention order; compare without them.
      const bare = <T extends { description: string }>(record: T) => ({ ...record, description: '' });
      assert.deepEqual([...permuted.entities].sort(byId).map(bare), [...graph.entities].sort(byId).map(bare));
      assert.deepEqual(permuted.relations.map(bare), graph.relations.map(bare));
      assert.deepEqual(permuted.stats, graph.stats);
    }
  });

  test('matches an independent implementation of GraphRAG prune_graph on random corpora', () => {
    const random = createRandom(20240611);
    for (let round = 0; round < 40; round++) {
      const size = 4 + Math.floor(random() * 12);
      const words = Array.from({ length: size }, (_, index) => `k${index}`);
      const lists = Array.from({ length: 3 + Math.floor(random() * 15) }, () => words.filter(() => random() < 0.35));
      const config: NlpExtractConfig = {
        minNodeFrequency: 1 + Math.floor(random() * 3),
        minNodeDegree: Math.floor(random() * 3),
        minEdgeWeightPercentile: [0, 25, 40, 50, 90][Math.floor(random() * 5)] as number,
        removeEgoNodes: random() < 0.5,
        maxPhrasesPerChunk: 2 + Math.floor(random() * 8),
        typing: 'none',
        minProperNameFrequency: 1,
        minPhraseRepeats: 1,
        mergeShortNames: false, titleAliases: false,
        keepApart: [],
      };
      const expected = referenceGraph(lists, config);
      const graph = buildNounGraph(chunksOf(...lists), config);
      const message = JSON.stringify({ round, lists, config });
      assert.deepEqual(keysOf(graph, words), [...expected.degree.keys()].sort(), message);
      assert.deepEqual(pairsOf(graph, words), [...expected.edges.keys()].sort(), message);
      for (const [pair, weight] of expected.edges) {
        const [a, b] = pair.split('-') as [string, string];
        near(relation(graph, a, b).weight, weight, message);
      }
      for (const [key, degree] of expected.degree) assert.equal(entity(graph, key).degree, degree, message);
    }
  });

  test('titles, aliases, types and descriptions quote the sentences', () => {
    const c1 = chunkOf(
      'c1',
      [
        { key: 'weir bridge', surface: 'Weir Bridge', kind: 'proper', typeHint: 'geo' },
        { key: 'mara ellison', surface: 'Mara Ellison', sentence: 1, kind: 'proper', typeHint: 'person' },
        { key: 'weir bridge', surface: 'Weir Bridge', sentence: 1, kind: 'proper', typeHint: 'geo' },
        { key: 'stone arch', sentence: 1 },
      ],
      ['The  Weir Bridge\nwas rebuilt.', 'Mara Ellison crossed the Weir Bridge by the stone arch daily.'],
      '\n\n',
    );
    const c2 = chunkOf(
      'c2',
      [
        { key: 'mara ellison', surface: 'Mara Ellison', kind: 'proper' },
        { key: 'weir bridge', surface: 'Weir-Bridge', kind: 'phrase' },
        { key: 'stone arch', sentence: 1 },
      ],
      ['Mara Ellison painted the Weir-Bridge.', 'Its stone arch was new.'],
    );
    const graph = buildNounGraph([c1, c2], noPruning);
    const bridge = entity(graph, 'weir bridge');
    // Most common surface of a proper noun: "Weir Bridge" (2) over "Weir-Bridge" (1), which becomes an alias.
    assert.equal(bridge.title, 'Weir Bridge');
    assert.deepEqual(bridge.aliases, ['Weir-Bridge']);
    assert.equal(bridge.type, 'geo');
    // First mention sentence of each chunk, whitespace collapsed.
    assert.equal(bridge.description, 'The Weir Bridge was rebuilt. Mara Ellison painted the Weir-Bridge.');
    assert.equal(entity(graph, 'mara ellison').type, 'person');
    // Common phrases are titled by their key and typed "noun phrase".
    const arch = entity(graph, 'stone arch');
    assert.equal(arch.title, 'stone arch');
    assert.equal(arch.type, 'noun phrase');
    assert.equal(arch.description, 'Mara Ellison crossed the Weir Bridge by the stone arch daily. Its stone arch was new.');
    // A relation quotes the first sentence mentioning both ends.
    assert.equal(relation(graph, 'weir bridge', 'mara ellison').description, 'Mara Ellison crossed the Weir Bridge by the stone arch daily.');
    assert.equal(relation(graph, 'weir bridge', 'stone arch').description, 'Mara Ellison crossed the Weir Bridge by the stone arch daily.');
    // In c2 "stone arch" and "Mara Ellison" are in different sentences, but c1 has both in sentence 1.
    assert.equal(relation(graph, 'mara ellison', 'stone arch').description, 'Mara Ellison crossed the Weir Bridge by the stone arch daily.');
  });

  test('a relation whose ends never share a sentence has an empty description; proper nouns without a hint are "proper noun"', () => {
    const chunk = chunkOf(
      'c1',
      [
        { key: 'kestermouth', surface: 'Kestermouth', kind: 'proper' },
        { key: 'river market', sentence: 1 },
      ],
      ['Kestermouth is a town.', 'The river market opens daily.'],
    );
    const graph = buildNounGraph([chunk], noPruning);
    assert.equal(relation(graph, 'kestermouth', 'river market').description, '');
    assert.equal(entity(graph, 'kestermouth').type, 'proper noun');
    assert.equal(entity(graph, 'kestermouth').title, 'Kestermouth');
  });

  test('long sentences are cut to 400 characters in descriptions', () => {
    const sentence = `The weir bridge ${'was very old and '.repeat(40)}stood.`;
    const chunk = chunkOf('c1', ['weir bridge', { key: 'old stone' }], [sentence]);
    const graph = buildNounGraph([chunk], noPruning);
    const description = entity(graph, 'weir bridge').description;
    assert.equal(description.length, 400);
    assert.ok(description.endsWith('…'));
    assert.ok(sentence.startsWith(description.slice(0, 399)));
    assert.equal(relation(graph, 'weir bridge', 'old stone').description, sentence.slice(0, 400));
  });
});

/**
 * A straightforward re-implementation of GraphRAG's build_noun_graph + prune_graph (with kgrag's
 * per-chunk cap and its drop of edgeless nodes), written from microsoft/graphrag `index/operations/build_noun_graph/`.
 */
function referenceGraph(lists: readonly string[][], config: NlpExtractConfig): { edges: Map<string, number>; degree: Map<string, number> } {
  const order: string[] = [];
  const frequency = new Map<string, number>();
  for (const list of lists) {
    for (const key of new Set(list)) {
      if (!frequency.has(key)) order.push(key);
      frequency.set(key, (frequency.get(key) ?? 0) + 1);
    }
  }
  const position = new Map(order.map((key, index) => [key, index]));
  const weight = new Map<string, number>();
  const pair = (a: string, b: string): string => [a, b].sort().join('-');
  for (const list of lists) {
    let members = [...new Set(list)];
    if (members.length > config.maxPhrasesPerChunk) {
      members = members
        .sort((left, right) => (frequency.get(right) as number) - (frequency.get(left) as number) || (position.get(left) as number) - (position.get(right) as number))
        .slice(0, config.maxPhrasesPerChunk);
    }
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) weight.set(pair(members[i] as string, members[j] as string), (weight.get(pair(members[i] as string, members[j] as string)) ?? 0) + 1);
    }
  }
  let totalWeight = 0;
  for (const value of weight.values()) totalWeight += value;
  let totalFrequency = 0;
  for (const value of frequency.values()) totalFrequency += value;
  const pmiOf = new Map<string, number>();
  for (const [key, value] of weight) {
    const [a, b] = key.split('-') as [string, string];
    const joint = value / totalWeight;
    pmiOf.set(key, joint * Math.log2(joint / (((frequency.get(a) as number) / totalFrequency) * ((frequency.get(b) as number) / totalFrequency))));
  }
  const originalDegree = new Map(order.map((key) => [key, 0]));
  for (const key of pmiOf.keys()) for (const end of key.split('-')) originalDegree.set(end, (originalDegree.get(end) as number) + 1);
  const removed = new Set<string>();
  if (config.removeEgoNodes && order.length > 0) {
    let ego = order[0] as string;
    for (const key of order) if ((originalDegree.get(key) as number) > (originalDegree.get(ego) as number)) ego = key;
    removed.add(ego);
  }
  for (const key of order) if ((originalDegree.get(key) as number) < config.minNodeDegree) removed.add(key);
  for (const key of order) if ((frequency.get(key) as number) < config.minNodeFrequency) removed.add(key);
  let edges = [...pmiOf].filter(([key]) => key.split('-').every((end) => !removed.has(end)));
  if (config.minEdgeWeightPercentile > 0 && edges.length > 0) {
    const sorted = edges.map(([, value]) => value).sort((left, right) => left - right);
    const rank = (config.minEdgeWeightPercentile / 100) * (sorted.length - 1);
    const low = sorted[Math.floor(rank)] as number;
    const high = sorted[Math.ceil(rank)] as number;
    const threshold = low + (high - low) * (rank - Math.floor(rank));
    edges = edges.filter(([, value]) => value >= threshold);
  }
  const degree = new Map<string, number>();
  for (const [key] of edges) for (const end of key.split('-')) degree.set(end, (degree.get(end) ?? 0) + 1);
  return { edges: new Map(edges), degree };
}

describe('extractNounPhrases', () => {
  // One extractor for the whole describe: it keeps one wink-nlp instance, as a caller of several texts does.
  const extractor = createNounPhraseExtractor();
  const text = 'Dr. Mara Ellison studied at the University of Paris. She returned to Kestermouth in March 1952.';
  const extraction = extractor.extract(text);
  const byKey = (result: { mentions: PhraseMention[] }, key: string): PhraseMention => {
    const found = result.mentions.find((mention) => mention.key === key);
    assert.ok(found, `no mention "${key}" in ${JSON.stringify(result.mentions.map((mention) => mention.key))}`);
    return found;
  };

  test('finds proper-noun spans, including "X of Y"', () => {
    const university = byKey(extraction, 'university of paris');
    assert.equal(university.surface, 'University of Paris');
    assert.equal(university.kind, 'proper');
    assert.equal(university.typeHint, 'organization');
    assert.equal(byKey(extraction, 'kestermouth').surface, 'Kestermouth');
  });

  test('a leading title is left out of the surface and marks a person', () => {
    const mara = byKey(extraction, 'mara ellison');
    assert.equal(mara.surface, 'Mara Ellison');
    assert.equal(mara.typeHint, 'person');
    assert.equal(mara.start, text.indexOf('Mara'));
    const more = extractor.extract('Captain Jonas Reed sailed. Mr. Holt and Prof. Ada Byrne argued.');
    assert.equal(byKey(more, 'jonas reed').typeHint, 'person');
    assert.equal(byKey(more, 'holt').surface, 'Holt');
    assert.equal(byKey(more, 'ada byrne').typeHint, 'person');
  });

  test('dates, months and weekdays are not phrases', () => {
    const keys = extraction.mentions.map((mention) => mention.key);
    assert.deepEqual(keys, ['mara ellison', 'university of paris', 'kestermouth']);
    const dates = extractor.extract('The Weir Bridge reopened on Monday, 3 June 1952. In September the market moved. On 12 May it rained.');
    for (const mention of dates.mentions) assert.doesNotMatch(mention.key, /monday|june|1952|september|may|12/);
    assert.ok(dates.mentions.some((mention) => mention.key === 'weir bridge'));
  });

  test('a possessive is stripped from the key and the surface', () => {
    const result = extractor.extract("The Weir Bridge's old stones were repaired. Mara Ellison’s boat sank.");
    const bridge = byKey(result, 'weir bridge');
    assert.equal(bridge.surface, 'Weir Bridge');
    assert.equal(bridge.typeHint, 'geo');
    assert.equal(byKey(result, 'mara ellison').surface, 'Mara Ellison');
  });

  test('plural phrase heads are lemmatized in the key only', () => {
    const result = extractor.extract('The harvest festivals drew large crowds. The brass bands played.');
    const festival = byKey(result, 'harvest festival');
    assert.equal(festival.surface, 'harvest festivals');
    assert.equal(festival.kind, 'phrase');
    assert.equal(byKey(result, 'large crowd').surface, 'large crowds');
    assert.equal(byKey(result, 'brass band').sentence, 1);
  });

  test('offsets slice back to the surface and sentence indices are valid', () => {
    const texts = [
      text,
      "The Weir Bridge's old stones were repaired.  Harbour Street\nflooded.\n\nThe   river market sold smoked herring.",
      'Local fishermen met the Kestermouth Brass Band at the harvest festivals. The town council approved new flood defences.',
    ];
    for (const sample of texts) {
      const result = extractor.extract(sample);
      assert.ok(result.mentions.length > 0);
      let previous = -1;
      for (const [start, end] of result.sentences) {
        assert.ok(start >= previous && start < end && end <= sample.length, `sentence span ${start}-${end}`);
        previous = end;
      }
      let lastStart = -1;
      for (const mention of result.mentions) {
        assert.equal(sample.slice(mention.start, mention.end), mention.surface);
        const span = result.sentences[mention.sentence];
        assert.ok(span, `sentence ${mention.sentence} exists`);
        assert.ok(span[0] <= mention.start && mention.end <= span[1], `${mention.key} inside its sentence`);
        assert.ok(mention.start >= lastStart, 'mentions are sorted by start');
        lastStart = mention.start;
        assert.equal(mention.key, mention.key.toLowerCase());
        assert.ok(mention.key.length >= 2);
      }
    }
  });

  test('is deterministic', () => {
    assert.deepEqual(extractNounPhrases(text), extraction, 'a fresh extractor finds what a used one does');
  });

  test(
    'a hyphenated compound noun is a phrase',
    () => {
      const result = extractor.extract('A car-wash opened near Harbour Street.');
      assert.equal(byKey(result, 'car-wash').surface, 'car-wash');
    },
  );

  test(
    'a title followed by "of" does not leave a span starting with "of"',
    () => {
      const result = extractor.extract('Jane Holt met the Mayor of Kestermouth.');
      for (const mention of result.mentions) assert.doesNotMatch(mention.key, /^of /);
      const place = result.mentions.find((mention) => mention.key.endsWith('kestermouth'));
      assert.notEqual(place?.typeHint, 'person');
    },
  );

  test(
    'two proper nouns joined by "in" are two mentions',
    () => {
      const result = extractor.extract('The band played at the Harvest Festival in Weir Park.');
      byKey(result, 'harvest festival');
      byKey(result, 'weir park');
    },
  );
});

describe('phrases found in one chunk only', () => {
  const nlpDefaults = nlpExtractConfigSchema.parse({});
  test('are left out of the pair table, and the graph, degrees and pair counts are those of every pair listed', () => {
    const random = createRandom(35);
    for (const [trial, overrides] of [{}, { minNodeFrequency: 3 }, { minNodeFrequency: 1 }, { maxPhrasesPerChunk: 4 }, { minNodeDegree: 4 }, { minEdgeWeightPercentile: 0, removeEgoNodes: false }].entries()) {
      const config: NlpExtractConfig = { ...nlpDefaults, typing: 'none', ...overrides };
      // A few frequent phrases and many that occur once, and last a chunk of rare phrases only: they have the highest
      // degree, so that the ego node is one that occurs once.
      const vocabulary = Array.from({ length: 12 }, (_, index) => `common${index}`);
      let rare = 0;
      const lists = Array.from({ length: 40 }, () => [
        ...new Set(Array.from({ length: 1 + Math.floor(random() * 12) }, () => (random() < 0.5 ? (vocabulary[Math.floor(random() * vocabulary.length)] as string) : `rare${trial}x${rare++}`))),
      ]);
      lists.push(Array.from({ length: 20 }, () => `rare${trial}x${rare++}`));
      const graph = buildNounGraph(chunksOf(...lists), config);
      const expected = referenceGraph(lists, config);
      const words = [...new Set(lists.flat())];
      const message = JSON.stringify(overrides);
      assert.deepEqual(keysOf(graph, words), [...expected.degree.keys()].sort(), message);
      assert.deepEqual(pairsOf(graph, words), [...expected.edges.keys()].sort(), message);
      for (const [key, degree] of expected.degree) assert.equal(entity(graph, key).degree, degree, message);
      const frequency = (key: string): number => lists.filter((list) => list.includes(key)).length;
      const pairs = new Set(
        lists.flatMap((list) => {
          const capped = list.length <= config.maxPhrasesPerChunk ? list : [...list].sort((a, b) => frequency(b) - frequency(a) || words.indexOf(a) - words.indexOf(b)).slice(0, config.maxPhrasesPerChunk);
          return capped.flatMap((a, index) => capped.slice(index + 1).map((b) => [a, b].sort().join('|')));
        }),
      );
      assert.equal(graph.stats.pairs, pairs.size, `every distinct pair is counted, listed or not: ${message}`);
      assert.equal(graph.stats.prunedEdges, pairs.size - graph.relations.length, message);
    }
  });
});

describe('specific entities in fast mode (issue 40)', () => {
  const rules = (minPhraseRepeats: number, keepApart: string[] = []): GraphMentionRules => ({ minPhraseRepeats, mergeShortNames: true, keepApart });
  const defaults: NlpExtractConfig = { ...noPruning, minNodeFrequency: 2, minProperNameFrequency: 1, minPhraseRepeats: 2 };

  test('a proper name found in one chunk is an entity; a common phrase found in one chunk is not', () => {
    const chunks = [
      chunkOf('c1', [{ key: 'ada lovelace', surface: 'Ada Lovelace', kind: 'proper' }, 'analytical engine', 'punched card']),
      chunkOf('c2', ['analytical engine', 'punched card']),
    ];
    chunks[0]?.extraction.mentions.push({ key: 'same time', surface: 'same time', start: 0, end: 0, sentence: 0, kind: 'phrase' });
    const keys = buildNounGraph(chunks, defaults).entities.map((found) => found.id);
    assert.ok(keys.includes(phraseEntityId('ada lovelace')));
    assert.ok(!keys.includes(phraseEntityId('same time')));
  });

  test('a common phrase counts in a chunk only where the chunk repeats it; proper names always count', () => {
    const chunk = chunkOf('c1', [{ key: 'charles babbage', surface: 'Charles Babbage', kind: 'proper' }, 'difference engine', 'difference engine', 'same time']);
    assert.deepEqual(
      graphMentions(chunk.extraction, rules(2)).mentions.map((found) => found.key),
      ['charles babbage', 'difference engine', 'difference engine'],
    );
    assert.equal(graphMentions(chunk.extraction, rules(1)), chunk.extraction, 'minPhraseRepeats 1 is GraphRAG: every mention');
  });

  test('a one-word proper noun opening a sentence counts only in the first sentence or where the chunk names it inside one', () => {
    const chunk = chunkOf(
      'c1',
      [
        { key: 'zagreb', surface: 'Zagreb', kind: 'proper' },
        { key: 'shortly', surface: 'Shortly', sentence: 1, kind: 'proper' },
        { key: 'mara', surface: 'Mara', sentence: 2, kind: 'proper' },
        { key: 'mara', surface: 'Mara', sentence: 2, kind: 'proper' },
      ],
      ['Zagreb is a city.', 'Shortly after, it grew.', 'Mara left and Mara came back.'],
    );
    const own = chunk.extraction.mentions[3] as PhraseMention;
    own.start = chunk.text.lastIndexOf('Mara');
    assert.deepEqual(
      graphMentions(chunk.extraction, rules(2)).mentions.map((found) => found.key),
      ['zagreb', 'mara', 'mara'],
    );
  });

  test('a description puts the sentence defining the name first, and reads as prose', () => {
    const sentences = ['# Engines\nIn 1834 Babbage began the Analytical Engine.', 'Charles Babbage was an English **mathematician**.'];
    const described = describePhrase(sentences.map((text, position) => ({ position, read: () => text })), 'Charles Babbage');
    assert.equal(described.text, 'Charles Babbage was an English mathematician. In 1834 Babbage began the Analytical Engine.');
    assert.equal(described.through, 0);
    const many = Array.from({ length: descriptionWindow + 2 }, (_, position) => ({ position, read: () => `Sentence ${position} names Babbage.` }));
    assert.equal(describePhrase(many, 'Babbage').through, descriptionWindow, 'the first chunks decide it; later ones cannot change it');
  });

  test('a one-word name after the one longer name of its chunk ending in it is that name, unless kept apart', () => {
    const chunk = chunkOf(
      'c1',
      [
        { key: 'charles babbage', surface: 'Charles Babbage', kind: 'proper' },
        { key: 'babbage', surface: 'Babbage', sentence: 1, kind: 'proper' },
      ],
      ['Charles Babbage designed engines.', 'Later Babbage built a model.'],
    );
    assert.deepEqual(graphMentions(chunk.extraction, rules(2)).mentions.map((found) => [found.key, found.surface]), [['charles babbage', 'Charles Babbage'], ['charles babbage', 'Babbage']]);
    assert.deepEqual(graphMentions(chunk.extraction, rules(2, ['Babbage'])).mentions.map((found) => found.key), ['charles babbage', 'babbage']);
    const ambiguous = chunkOf(
      'c2',
      [
        { key: 'charles babbage', surface: 'Charles Babbage', kind: 'proper' },
        { key: 'georgiana babbage', surface: 'Georgiana Babbage', kind: 'proper' },
        { key: 'babbage', surface: 'Babbage', sentence: 1, kind: 'proper' },
      ],
      ['Charles Babbage married Georgiana Babbage.', 'Later Babbage built a model.'],
    );
    assert.deepEqual(graphMentions(ambiguous.extraction, rules(2)).mentions.map((found) => found.key), ['charles babbage', 'georgiana babbage', 'babbage'], 'two Babbages: no merge');
  });

  test('a merged name keeps its whole spelling as title, however often the short one is used', () => {
    assert.equal(properTitle([['Thorne', 5], ['Walter Thorne', 2]], 'walter thorne'), 'Walter Thorne');
    assert.equal(properTitle([['UNIVAC', 1], ['Univac', 3]], 'univac'), 'Univac');
  });
});

