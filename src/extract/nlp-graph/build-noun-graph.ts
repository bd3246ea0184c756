import type { NlpExtractConfig } from '../../core/config/config-schema.js';
import { contentId } from '../../core/ids.js';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import { plainSentence } from '../../text/plain-sentence.js';
import { type MentionKind, normalizePhraseKey, type PhraseExtraction } from './noun-phrase-extractor.js';

/*
 * GraphRAG's fast-mode graph (microsoft/graphrag `index/operations/build_noun_graph/`; graphrag `build_noun_graph`,
 * `calculate_pmi_edge_weights`, `prune_graph`): nodes are noun phrases, edges join phrases that occur
 * in the same text unit, weighted by
 *
 *   pmi(x, y) = p(x, y) · log2(p(x, y) / (p(x) · p(y))),
 *   p(x, y) = w(x, y) / Σ w,   p(x) = freq(x) / Σ freq,
 *
 * then pruned in GraphRAG's order: the single highest-degree ("ego") node, nodes below the minimum
 * degree (original degrees), nodes below the minimum frequency, edges below the weight percentile.
 * One deliberate difference: nodes left without any edge are dropped too, because kgrag clusters every
 * component and a lone node would become a community of one.
 */

/** The extraction of one chunk, in chunk order. */
export interface ChunkPhrases {
  chunkId: string;
  text: string;
  extraction: PhraseExtraction;
}

/** Nodes and edges of the noun graph, plus where each node was mentioned. */
export interface NounGraph {
  entities: EntityRecord[];
  relations: RelationRecord[];
  stats: { candidates: number; pairs: number; prunedNodes: number; prunedEdges: number };
}

/**
 * The corpus-wide figures of a build: the PMI normalizers, the edge-weight threshold and the ego node. An update
 * between refreshes weighs and prunes with these instead of refitting them (see `update-noun-graph.ts`).
 */
export interface NounGraphFigures {
  /** Σ w: co-occurring pairs over all chunks, counted once per chunk. */
  totalWeight: number;
  /** Σ freq: distinct phrases over all chunks. */
  totalFrequency: number;
  /** Edges weighing less are pruned (only with `minEdgeWeightPercentile` > 0); −∞ when no edge survived node pruning. */
  threshold: number;
  /** Key of the removed ego node, if any. */
  egoKey: string | null;
}

/** What a build fitted, beyond its records: what the stored state of the graph is made from. */
export interface NounGraphFit {
  figures: NounGraphFigures;
  /** Node keys in order of first mention. */
  keys: readonly string[];
  /** Each chunk's distinct phrases (node numbers) in order of first mention: `members[memberStart[c] … memberStart[c + 1])`. */
  members: readonly number[];
  memberStart: Int32Array;
  /** The phrases of each chunk that pair up (at most `maxPhrasesPerChunk`). */
  capped: ReadonlyArray<readonly number[]>;
  /** Edges each node kept. */
  finalDegree: Int32Array;
  /** Per entity, the leading chunks its description was taken from when it stopped before its last chunk, else 0. */
  described: Int32Array;
}

/** One pair of a name of one chunk, seen from that name: its weight, and its partner's key and standing. */
export interface LeafPair {
  weight: number;
  partner: string;
  /** Whether the partner is a name of one chunk too. */
  partnerIsLeaf: boolean;
}

/**
 * Whether `pair` is a better one pair for a name of one chunk than `other`: a partner that recurs in the corpus first,
 * so that the name hangs off the graph of recurring phrases rather than off another once-seen name; then the weight;
 * then the partner whose key sorts first.
 */
export function strongerLeafPair(pair: LeafPair, other: LeafPair): boolean {
  if (pair.partnerIsLeaf !== other.partnerIsLeaf) return !pair.partnerIsLeaf;
  return pair.weight > other.weight || (pair.weight === other.weight && pair.partner < other.partner);
}

/** The other end of pair number `key` (`a * nodeCount + b`) from `node`. */
function otherEnd(key: number, node: number, nodeCount: number): number {
  const a = Math.floor(key / nodeCount);
  return a === node ? key % nodeCount : a;
}

/** PMI of a pair seen together in `pairWeight` chunks: p(x, y) · log2(p(x, y) / (p(x) · p(y))). */
export function pmiWeight(pairWeight: number, frequencyA: number, frequencyB: number, totalWeight: number, totalFrequency: number): number {
  const joint = pairWeight / totalWeight;
  const independent = (frequencyA / totalFrequency) * (frequencyB / totalFrequency);
  return joint * Math.log2(joint / independent);
}

/** Entity id of a noun-graph node. */
export function phraseEntityId(key: string): string {
  return contentId('entity', key);
}

/** What a node that can survive pruning collects from its mentions. */
interface NodeAccumulator {
  key: string;
  kind: MentionKind;
  surfaces: Map<string, number>;
  typeHints: Map<string, number>;
  chunks: number[];
  /** First mention sentence per chunk, as [chunk index, start, end, position in `chunks`]. */
  sentences: Array<[number, number, number, number]>;
}

/** NumPy's default (linear) percentile of unsorted values. */
export function percentile(values: ArrayLike<number>, percent: number): number {
  if (values.length === 0) return Number.NEGATIVE_INFINITY;
  const sorted = Float64Array.from(values).sort();
  const rank = (percent / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (rank - low);
}

/** The value counted most often; the first seen among equals. */
export function mostCommon(counts: Iterable<readonly [string, number]>): string | undefined {
  let best: string | undefined;
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

/**
 * The title of a proper name: its most common spelling among those that spell the whole name, so that "Walter Thorne"
 * stays the title when the short "Thorne" merged into it is used more often; the most common spelling otherwise.
 */
export function properTitle(surfaces: Iterable<readonly [string, number]>, key: string): string {
  const all = [...surfaces];
  return mostCommon(all.filter(([surface]) => normalizePhraseKey(surface.split(/\s+/)) === key)) ?? mostCommon(all) ?? key;
}

const maxDescriptionLength = 400;
/** The phrases of a chunk that pair up: all, or the most frequent (then first seen) when there are more than `limit`. */
export function pairedPhrases(own: number[], frequency: ArrayLike<number>, limit: number): number[] {
  return own.length <= limit ? own : own.sort((left, right) => (frequency[right] as number) - (frequency[left] as number) || left - right).slice(0, limit);
}
/** Chunks listed per relation (the first ones in corpus order); its weight still counts them all. */
export const maxRelationChunks = 100;

/**
 * Builds the pruned, PMI-weighted co-occurrence graph from per-chunk noun phrases.
 *
 * Memory grows with the pairs that can survive, not with every co-occurrence. With `minNodeFrequency` ≥ 2 a phrase
 * found in one chunk only (most phrases of a corpus, and every piece of random text) is pruned whatever its edges, so
 * it never enters the pair table: it is a distinct neighbour of each phrase of its chunk exactly once, so its share of
 * their degrees, of the total weight and of the pair count is counted per chunk instead. The graph is the same as
 * with every pair listed. Pairs, weights and relation chunk lists are typed arrays.
 */
export function buildNounGraph(chunks: readonly ChunkPhrases[], config: NlpExtractConfig, receiveFit?: (fit: NounGraphFit) => void): NounGraph {
  const nodeIndex = new Map<string, number>();
  const keys: string[] = [];
  const proper: number[] = [];
  const frequency: number[] = [];
  const lastChunk: number[] = [];
  /** Each chunk's distinct phrases in order of first mention: `members[memberStart[c] … memberStart[c + 1])`. */
  const members: number[] = [];
  const memberStart = new Int32Array(chunks.length + 1);
  let candidates = 0;
  chunks.forEach((chunk, chunkIndex) => {
    for (const mention of chunk.extraction.mentions) {
      candidates++;
      let index = nodeIndex.get(mention.key);
      if (index === undefined) {
        index = keys.length;
        nodeIndex.set(mention.key, index);
        keys.push(mention.key);
        proper.push(0);
        frequency.push(0);
        lastChunk.push(-1);
      }
      if (mention.kind === 'proper') proper[index] = 1;
      if (lastChunk[index] !== chunkIndex) {
        lastChunk[index] = chunkIndex;
        frequency[index] = (frequency[index] as number) + 1;
        members.push(index);
      }
    }
    memberStart[chunkIndex + 1] = members.length;
  });
  nodeIndex.clear();
  const nodeCount = keys.length;
  const minFrequency = (index: number): number => (proper[index] === 1 ? config.minProperNameFrequency : config.minNodeFrequency);
  const light = (index: number): boolean => minFrequency(index) >= 2 && frequency[index] === 1;

  // The phrases of each chunk that pair up: all, or the most frequent when there are more than maxPhrasesPerChunk.
  const capped: number[][] = [];
  for (let chunk = 0; chunk < chunks.length; chunk++) {
    const own = members.slice(memberStart[chunk], memberStart[chunk + 1]);
    capped.push(pairedPhrases(own, frequency, config.maxPhrasesPerChunk));
  }
  if (!receiveFit) members.length = 0;

  const degree = new Int32Array(nodeCount);
  let totalWeight = 0;
  let lightPairs = 0;
  let heavyOccurrences = 0;
  const heavyOf: number[][] = capped.map((phrases) => {
    const heavy = phrases.filter((index) => !light(index));
    const lights = phrases.length - heavy.length;
    totalWeight += (phrases.length * (phrases.length - 1)) / 2;
    lightPairs += lights * heavy.length + (lights * (lights - 1)) / 2;
    heavyOccurrences += (heavy.length * (heavy.length - 1)) / 2;
    // Each light phrase is one distinct neighbour of every other phrase of its chunk, and has no other neighbour.
    for (const index of phrases) degree[index] = (degree[index] as number) + (light(index) ? phrases.length - 1 : lights);
    return heavy;
  });
  if (!receiveFit) capped.length = 0;

  // Every co-occurrence of two heavy phrases as its pair's number (below 2^53 for fewer than 94 million nodes),
  // sorted: each run is a pair and its length the pair's weight.
  const occurrences = new Float64Array(heavyOccurrences);
  let filled = 0;
  const forEachPair = (phrases: readonly number[], visit: (key: number) => void): void => {
    for (let i = 0; i < phrases.length; i++) {
      for (let j = i + 1; j < phrases.length; j++) {
        const a = phrases[i] as number;
        const b = phrases[j] as number;
        visit(a < b ? a * nodeCount + b : b * nodeCount + a);
      }
    }
  };
  for (const heavy of heavyOf) forEachPair(heavy, (key) => (occurrences[filled++] = key));
  occurrences.sort();
  let pairCount = 0;
  for (let at = 0; at < occurrences.length; at++) if (at === 0 || occurrences[at] !== occurrences[at - 1]) pairCount++;
  const pairKeys = new Float64Array(pairCount);
  const pairWeights = new Int32Array(pairCount);
  for (let at = 0, pair = -1; at < occurrences.length; at++) {
    if (at === 0 || occurrences[at] !== occurrences[at - 1]) pairKeys[++pair] = occurrences[at] as number;
    pairWeights[pair] = (pairWeights[pair] as number) + 1;
  }

  const totalFrequency = frequency.reduce((sum, value) => sum + value, 0);
  const edgeWeight = new Float64Array(pairCount);
  for (let pair = 0; pair < pairCount; pair++) {
    const key = pairKeys[pair] as number;
    const a = Math.floor(key / nodeCount);
    const b = key % nodeCount;
    edgeWeight[pair] = pmiWeight(pairWeights[pair] as number, frequency[a] as number, frequency[b] as number, totalWeight, totalFrequency);
    degree[a] = (degree[a] as number) + 1;
    degree[b] = (degree[b] as number) + 1;
  }

  const removed = new Uint8Array(nodeCount);
  let egoKey: string | null = null;
  if (config.removeEgoNodes && nodeCount > 0) {
    let ego = 0;
    for (let index = 1; index < nodeCount; index++) if ((degree[index] as number) > (degree[ego] as number)) ego = index;
    removed[ego] = 1;
    egoKey = keys[ego] as string;
  }
  for (let index = 0; index < nodeCount; index++) {
    if ((degree[index] as number) < config.minNodeDegree || (frequency[index] as number) < minFrequency(index)) removed[index] = 1;
  }
  const alive = (pair: number): boolean => {
    const key = pairKeys[pair] as number;
    return !removed[Math.floor(key / nodeCount)] && !removed[key % nodeCount];
  };
  // Edge pruning makes a proper name of one chunk a leaf: it keeps its strongest pair and no other, and its pairs take
  // no part in the percentile. PMI ranks a pair of a once-seen phrase above the other pairs seen once (its p(x) is the
  // smallest there is), so such a name would keep every pair of its chunk and, the names of one chunk being most
  // names, crowd the pairs between recurring phrases out of the percentile: on 2Wiki, 298,000 of 323,000 edges, with the edges between
  // names of two or more chunks down from 105,000 to 25,000. One pair is what makes it searchable and explorable
  // ("Gabriele Palme" of one 2Wiki passage); the others say no more than that its chunk mentions them.
  const oneChunkName = (node: number): boolean => proper[node] === 1 && frequency[node] === 1;
  const leafPair = (pair: number): boolean => {
    const key = pairKeys[pair] as number;
    return oneChunkName(Math.floor(key / nodeCount)) || oneChunkName(key % nodeCount);
  };
  let survivingCount = 0;
  for (let pair = 0; pair < pairCount; pair++) if (alive(pair) && !leafPair(pair)) survivingCount++;
  const survivingWeights = new Float64Array(survivingCount);
  for (let pair = 0, at = 0; pair < pairCount; pair++) if (alive(pair) && !leafPair(pair)) survivingWeights[at++] = edgeWeight[pair] as number;
  const threshold = percentile(survivingWeights, config.minEdgeWeightPercentile);
  // Each name's one pair, as in updates (`strongerLeafPair`).
  const strongest = new Map<number, number>();
  for (let pair = 0; pair < pairCount; pair++) {
    if (!alive(pair)) continue;
    const key = pairKeys[pair] as number;
    const low = Math.floor(key / nodeCount);
    const high = key % nodeCount;
    for (let side = 0; side < 2; side++) {
      const node = side === 0 ? low : high;
      if (!oneChunkName(node)) continue;
      const current = strongest.get(node);
      const partner = side === 0 ? high : low;
      const currentPartner = current === undefined ? -1 : otherEnd(pairKeys[current] as number, node, nodeCount);
      if (
        current === undefined ||
        strongerLeafPair(
          { weight: edgeWeight[pair] as number, partner: keys[partner] as string, partnerIsLeaf: oneChunkName(partner) },
          { weight: edgeWeight[current] as number, partner: keys[currentPartner] as string, partnerIsLeaf: oneChunkName(currentPartner) },
        )
      ) {
        strongest.set(node, pair);
      }
    }
  }
  const leafKeeps = new Uint8Array(pairCount);
  for (const pair of strongest.values()) leafKeeps[pair] = 1;
  const kept: number[] = [];
  for (let pair = 0; pair < pairCount; pair++) {
    if (!alive(pair)) continue;
    if (config.minEdgeWeightPercentile <= 0 || (leafPair(pair) ? leafKeeps[pair] === 1 : (edgeWeight[pair] as number) >= threshold)) kept.push(pair);
  }
  const finalDegree = new Int32Array(nodeCount);
  for (const pair of kept) {
    const key = pairKeys[pair] as number;
    finalDegree[Math.floor(key / nodeCount)] = (finalDegree[Math.floor(key / nodeCount)] as number) + 1;
    finalDegree[key % nodeCount] = (finalDegree[key % nodeCount] as number) + 1;
  }

  // Chunk lists only for the edges that survived pruning, capped: a pair of hub phrases can share thousands of
  // chunks. Stored flat: kept pair k lists `pairChunks[chunkStart[k] … chunkStart[k] + chunkCount[k])`.
  const keptOf = new Int32Array(pairCount).fill(-1);
  const chunkStart = new Int32Array(kept.length + 1);
  kept.forEach((pair, k) => {
    keptOf[pair] = k;
    chunkStart[k + 1] = (chunkStart[k] as number) + Math.min(pairWeights[pair] as number, maxRelationChunks);
  });
  const pairChunks = new Int32Array(chunkStart[kept.length] as number);
  const chunkCount = new Int32Array(kept.length);
  const pairOf = (key: number): number => {
    let low = 0;
    let high = pairCount - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((pairKeys[middle] as number) < key) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  heavyOf.forEach((heavy, chunkIndex) =>
    forEachPair(heavy, (key) => {
      const k = keptOf[pairOf(key)] as number;
      if (k < 0 || (chunkCount[k] as number) >= maxRelationChunks) return;
      pairChunks[(chunkStart[k] as number) + (chunkCount[k] as number)] = chunkIndex;
      chunkCount[k] = (chunkCount[k] as number) + 1;
    }),
  );
  heavyOf.length = 0;

  // Surfaces, types and sentences, for the phrases that became entities only.
  const accumulators = new Map<number, NodeAccumulator>();
  for (let index = 0; index < nodeCount; index++) {
    if ((finalDegree[index] as number) > 0) accumulators.set(index, { key: keys[index] as string, kind: proper[index] === 1 ? 'proper' : 'phrase', surfaces: new Map(), typeHints: new Map(), chunks: [], sentences: [] });
  }
  const accumulatorOfKey = new Map([...accumulators.values()].map((node) => [node.key, node]));
  chunks.forEach((chunk, chunkIndex) => {
    for (const mention of chunk.extraction.mentions) {
      const node = accumulatorOfKey.get(mention.key);
      if (node === undefined) continue;
      node.surfaces.set(mention.surface, (node.surfaces.get(mention.surface) ?? 0) + 1);
      if (mention.typeHint) node.typeHints.set(mention.typeHint, (node.typeHints.get(mention.typeHint) ?? 0) + 1);
      if (node.chunks.at(-1) !== chunkIndex) {
        node.chunks.push(chunkIndex);
        const sentence = chunk.extraction.sentences[mention.sentence];
        if (sentence) node.sentences.push([chunkIndex, sentence[0], sentence[1], node.chunks.length - 1]);
      }
    }
  });

  const chunkIdsOf = (indices: ArrayLike<number>): string[] => Array.from(indices, (index) => (chunks[index] as ChunkPhrases).chunkId);
  const entities: EntityRecord[] = [];
  const entityIdOfNode = new Map<number, string>();
  const described = new Int32Array(nodeCount);
  for (const [index, node] of accumulators) {
    const title = node.kind === 'proper' ? properTitle(node.surfaces, node.key) : node.key;
    const aliases = [...node.surfaces.keys()].filter((surface) => surface !== title && surface.toLowerCase() !== title.toLowerCase()).slice(0, 10);
    const id = phraseEntityId(node.key);
    entityIdOfNode.set(index, id);
    const description = describePhrase(
      node.sentences.map(([chunkIndex, start, end, position]) => ({ position, read: () => (chunks[chunkIndex] as ChunkPhrases).text.slice(start, end) })),
      title,
    );
    described[index] = description.through;
    entities.push({
      id,
      title,
      type: mostCommon(node.typeHints) ?? (node.kind === 'proper' ? 'proper noun' : 'noun phrase'),
      description: description.text,
      aliases,
      frequency: node.chunks.length,
      degree: finalDegree[index] as number,
      chunkIds: chunkIdsOf(node.chunks),
    });
  }

  const sentencesOfKey = createSentenceLookup();
  const relations: RelationRecord[] = kept.map((pair, k) => {
    const key = pairKeys[pair] as number;
    const a = Math.floor(key / nodeCount);
    const b = key % nodeCount;
    const [source, target] = [entityIdOfNode.get(a) as string, entityIdOfNode.get(b) as string].sort() as [string, string];
    const shared = pairChunks.subarray(chunkStart[k], (chunkStart[k] as number) + (chunkCount[k] as number));
    return {
      id: contentId('relation', source, target),
      source,
      target,
      description: sharedSentence(keys[a] as string, keys[b] as string, Array.from(shared, (index) => chunks[index] as ChunkPhrases), sentencesOfKey),
      keywords: [],
      weight: edgeWeight[pair] as number,
      combinedDegree: (finalDegree[a] as number) + (finalDegree[b] as number),
      chunkIds: chunkIdsOf(shared),
    };
  });
  relations.sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));
  receiveFit?.({ figures: { totalWeight, totalFrequency, threshold, egoKey }, keys, members, memberStart, capped, finalDegree, described });

  return {
    entities,
    relations,
    stats: {
      candidates,
      pairs: pairCount + lightPairs,
      prunedNodes: nodeCount - entities.length,
      prunedEdges: pairCount + lightPairs - kept.length,
    },
  };
}

/** One chunk's first sentence mentioning a node: the chunk's position among the node's chunks, and the text, read on demand. */
export interface MentionSentence {
  position: number;
  read(): string;
}

/** Sentences a description chooses from: the first mention sentence of each of a node's first chunks. */
export const descriptionWindow = 6;

/**
 * Up to two distinct sentences mentioning a node, chosen among the first mention sentences of its first
 * {@link descriptionWindow} chunks (in corpus order, read lazily), cleaned of markdown: sentences that define the
 * name ("Charles Babbage was an English mathematician …") first, then the others in order — an extractive
 * description. `through` is how many of the node's leading chunks decided it when the node has more (0 when it read
 * them all): chunks added after those cannot change it.
 */
export function describePhrase(sentences: Iterable<MentionSentence>, name: string): { text: string; through: number } {
  const candidates: Array<{ text: string; defining: boolean }> = [];
  let through = 0;
  let lastPosition = -1;
  for (const { position, read } of sentences) {
    if (candidates.length === descriptionWindow) {
      through = lastPosition + 1;
      break;
    }
    lastPosition = position;
    const text = plainSentence(read());
    if (text.length > 0 && !candidates.some((candidate) => candidate.text === text)) candidates.push({ text, defining: definesName(text, name) });
  }
  const ordered = [...candidates.filter((candidate) => candidate.defining), ...candidates.filter((candidate) => !candidate.defining)];
  const parts: string[] = [];
  let length = 0;
  for (const { text } of ordered) {
    if (parts.length > 0 && length + text.length > maxDescriptionLength) break;
    parts.push(text.length > maxDescriptionLength ? `${text.slice(0, maxDescriptionLength - 1)}…` : text);
    length += text.length;
    if (parts.length === 2) break;
  }
  return { text: parts.join(' '), through };
}

/** Whether a sentence defines the name: the name near its start, then "is a", "was the", "are" … */
export function definesName(sentence: string, name: string): boolean {
  const at = sentence.toLowerCase().indexOf(name.toLowerCase());
  if (at < 0 || at > 60) return false;
  return /^[^.;:]{0,80}?\b(?:is|was|are|were|has been|had been)\s+(?:also\s+)?(?:a|an|the|one)\b/i.test(sentence.slice(at + name.length));
}


/** The sentences mentioning a phrase key in a chunk, distinct, in mention order. */
export type SentenceLookup = (chunk: ChunkPhrases, key: string) => readonly number[];

/** A {@link SentenceLookup} that indexes each chunk once, on first use. */
export function createSentenceLookup(): SentenceLookup {
  const byChunk = new Map<ChunkPhrases, Map<string, number[]>>();
  return (chunk, key) => {
    let byKey = byChunk.get(chunk);
    if (!byKey) {
      byKey = new Map();
      for (const mention of chunk.extraction.mentions) {
        const sentences = byKey.get(mention.key);
        if (!sentences) byKey.set(mention.key, [mention.sentence]);
        else if (!sentences.includes(mention.sentence)) sentences.push(mention.sentence);
      }
      byChunk.set(chunk, byKey);
    }
    return byKey.get(key) ?? [];
  };
}

/** The first sentence mentioning both phrases in the chunks they share, if any: an extractive relation description. */
export function sharedSentence(keyA: string, keyB: string, shared: Iterable<ChunkPhrases>, sentencesOf: SentenceLookup): string {
  for (const chunk of shared) {
    const left = sentencesOf(chunk, keyA);
    for (const sentence of sentencesOf(chunk, keyB)) {
      if (!left.includes(sentence)) continue;
      const span = chunk.extraction.sentences[sentence];
      if (span) return plainSentence(chunk.text.slice(span[0], span[1])).slice(0, maxDescriptionLength);
    }
  }
  return '';
}
