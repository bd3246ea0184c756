import type { NlpExtractConfig } from '../../core/config/config-schema.js';
import { contentId } from '../../core/ids.js';
import type { EntityRecord, RelationRecord } from '../../core/types.js';
import type { MentionKind, PhraseExtraction } from './noun-phrase-extractor.js';

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

/** Entity id of a noun-graph node. */
export function phraseEntityId(key: string): string {
  return contentId('entity', key);
}

interface NodeAccumulator {
  key: string;
  kind: MentionKind;
  surfaces: Map<string, number>;
  typeHints: Map<string, number>;
  chunks: number[];
  /** First mention sentence per chunk, as [chunk index, start, end]. */
  sentences: Array<[number, number, number]>;
}

/** NumPy's default (linear) percentile of unsorted values. */
export function percentile(values: readonly number[], percent: number): number {
  if (values.length === 0) return Number.NEGATIVE_INFINITY;
  const sorted = [...values].sort((left, right) => left - right);
  const rank = (percent / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (rank - low);
}

function mostCommon(counts: Map<string, number>): string | undefined {
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

const maxDescriptionLength = 400;
/** Chunks listed per relation (the first ones in corpus order); its weight still counts them all. */
export const maxRelationChunks = 100;

/** Builds the pruned, PMI-weighted co-occurrence graph from per-chunk noun phrases. */
export function buildNounGraph(chunks: readonly ChunkPhrases[], config: NlpExtractConfig): NounGraph {
  const nodeIndex = new Map<string, number>();
  const nodeList: NodeAccumulator[] = [];
  const chunkNodes: number[][] = [];
  let candidates = 0;

  chunks.forEach((chunk, chunkIndex) => {
    const present = new Set<number>();
    for (const mention of chunk.extraction.mentions) {
      candidates++;
      let index = nodeIndex.get(mention.key);
      if (index === undefined) {
        index = nodeList.length;
        nodeIndex.set(mention.key, index);
        nodeList.push({ key: mention.key, kind: mention.kind, surfaces: new Map(), typeHints: new Map(), chunks: [], sentences: [] });
      }
      const node = nodeList[index] as NodeAccumulator;
      if (mention.kind === 'proper') node.kind = 'proper';
      node.surfaces.set(mention.surface, (node.surfaces.get(mention.surface) ?? 0) + 1);
      if (mention.typeHint) node.typeHints.set(mention.typeHint, (node.typeHints.get(mention.typeHint) ?? 0) + 1);
      if (!present.has(index)) {
        present.add(index);
        node.chunks.push(chunkIndex);
        const sentence = chunk.extraction.sentences[mention.sentence];
        if (sentence) node.sentences.push([chunkIndex, sentence[0], sentence[1]]);
      }
    }
    chunkNodes.push([...present]);
  });

  const frequency = nodeList.map((node) => node.chunks.length);
  const nodeCount = nodeList.length;
  const cappedMembers = chunkNodes.map((members) =>
    members.length <= config.maxPhrasesPerChunk
      ? members
      : [...members].sort((left, right) => (frequency[right] as number) - (frequency[left] as number) || left - right).slice(0, config.maxPhrasesPerChunk),
  );
  // Every co-occurrence as its pair's number (below 2^53 for fewer than 94 million nodes), sorted: each run
  // is a pair and its length the pair's weight. Sorting numbers is several times faster than counting in a
  // map, whose keys exceed the small-integer range on a corpus of 2Wiki's size.
  let occurrenceCount = 0;
  for (const members of cappedMembers) occurrenceCount += (members.length * (members.length - 1)) / 2;
  const occurrences = new Float64Array(occurrenceCount);
  let filled = 0;
  const forEachPair = (members: readonly number[], visit: (key: number) => void): void => {
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const a = members[i] as number;
        const b = members[j] as number;
        visit(a < b ? a * nodeCount + b : b * nodeCount + a);
      }
    }
  };
  for (const members of cappedMembers) forEachPair(members, (key) => (occurrences[filled++] = key));
  occurrences.sort();
  const pairKeys: number[] = [];
  const pairWeights: number[] = [];
  for (let at = 0; at < occurrences.length; ) {
    const key = occurrences[at] as number;
    let end = at + 1;
    while (end < occurrences.length && occurrences[end] === key) end++;
    pairKeys.push(key);
    pairWeights.push(end - at);
    at = end;
  }
  const pairCount = pairKeys.length;

  const totalFrequency = frequency.reduce((sum, value) => sum + value, 0);
  let totalWeight = 0;
  for (const weight of pairWeights) totalWeight += weight;
  const edgeWeight = new Float64Array(pairCount);
  for (let pair = 0; pair < pairCount; pair++) {
    const key = pairKeys[pair] as number;
    const a = Math.floor(key / nodeCount);
    const b = key % nodeCount;
    const joint = (pairWeights[pair] as number) / totalWeight;
    const independent = ((frequency[a] as number) / totalFrequency) * ((frequency[b] as number) / totalFrequency);
    edgeWeight[pair] = joint * Math.log2(joint / independent);
  }

  const degree = new Int32Array(nodeCount);
  const increment = (array: Int32Array, index: number): void => {
    array[index] = (array[index] as number) + 1;
  };
  for (const key of pairKeys) {
    increment(degree, Math.floor(key / nodeCount));
    increment(degree, key % nodeCount);
  }
  const removed = new Uint8Array(nodeCount);
  if (config.removeEgoNodes && nodeCount > 0) {
    let ego = 0;
    for (let index = 1; index < nodeCount; index++) if ((degree[index] as number) > (degree[ego] as number)) ego = index;
    removed[ego] = 1;
  }
  for (let index = 0; index < nodeCount; index++) {
    if ((degree[index] as number) < config.minNodeDegree || (frequency[index] as number) < config.minNodeFrequency) removed[index] = 1;
  }
  const surviving: number[] = [];
  for (let pair = 0; pair < pairCount; pair++) {
    const key = pairKeys[pair] as number;
    if (!removed[Math.floor(key / nodeCount)] && !removed[key % nodeCount]) surviving.push(pair);
  }
  const threshold = percentile(
    surviving.map((pair) => edgeWeight[pair] as number),
    config.minEdgeWeightPercentile,
  );
  const kept = config.minEdgeWeightPercentile > 0 ? surviving.filter((pair) => (edgeWeight[pair] as number) >= threshold) : surviving;
  const finalDegree = new Int32Array(nodeCount);
  for (const pair of kept) {
    const key = pairKeys[pair] as number;
    increment(finalDegree, Math.floor(key / nodeCount));
    increment(finalDegree, key % nodeCount);
  }

  // Chunk lists only for the edges that survived pruning, capped: a pair of hub phrases can share
  // thousands of chunks, and listing them all cost most of the memory on large inputs.
  const pairChunks = new Map<number, number[]>(kept.map((pair) => [pair, []]));
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
  cappedMembers.forEach((members, chunkIndex) =>
    forEachPair(members, (key) => {
      const list = pairChunks.get(pairOf(key));
      if (list && list.length < maxRelationChunks) list.push(chunkIndex);
    }),
  );
  const chunkIdsOf = (indices: readonly number[]): string[] => indices.map((index) => (chunks[index] as ChunkPhrases).chunkId);
  const entities: EntityRecord[] = [];
  const entityIdOfNode = new Map<number, string>();
  nodeList.forEach((node, index) => {
    if ((finalDegree[index] as number) === 0) return;
    const title = node.kind === 'proper' ? (mostCommon(node.surfaces) ?? node.key) : node.key;
    const aliases = [...node.surfaces.keys()].filter((surface) => surface !== title && surface.toLowerCase() !== title.toLowerCase()).slice(0, 10);
    const id = phraseEntityId(node.key);
    entityIdOfNode.set(index, id);
    entities.push({
      id,
      title,
      type: mostCommon(node.typeHints) ?? (node.kind === 'proper' ? 'proper noun' : 'noun phrase'),
      description: describe(node, chunks),
      aliases,
      frequency: node.chunks.length,
      degree: finalDegree[index] as number,
      chunkIds: chunkIdsOf(node.chunks),
    });
  });

  const sentencesOfKey = createSentenceLookup(chunks);
  const relations: RelationRecord[] = kept.map((pair) => {
    const key = pairKeys[pair] as number;
    const a = Math.floor(key / nodeCount);
    const b = key % nodeCount;
    const [source, target] = [entityIdOfNode.get(a) as string, entityIdOfNode.get(b) as string].sort() as [string, string];
    const shared = pairChunks.get(pair) ?? [];
    return {
      id: contentId('relation', source, target),
      source,
      target,
      description: sharedSentence(nodeList[a] as NodeAccumulator, nodeList[b] as NodeAccumulator, shared, chunks, sentencesOfKey),
      keywords: [],
      weight: edgeWeight[pair] as number,
      combinedDegree: (finalDegree[a] as number) + (finalDegree[b] as number),
      chunkIds: chunkIdsOf(shared),
    };
  });
  relations.sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));

  return {
    entities,
    relations,
    stats: {
      candidates,
      pairs: pairCount,
      prunedNodes: nodeCount - entities.length,
      prunedEdges: pairCount - kept.length,
    },
  };
}

/** Up to two distinct sentences mentioning the node, from its first chunks: an extractive description. */
function describe(node: NodeAccumulator, chunks: readonly ChunkPhrases[]): string {
  const parts: string[] = [];
  let length = 0;
  for (const [chunkIndex, start, end] of node.sentences) {
    const sentence = (chunks[chunkIndex] as ChunkPhrases).text.slice(start, end).replace(/\s+/g, ' ').trim();
    if (parts.includes(sentence) || sentence.length === 0) continue;
    if (parts.length > 0 && length + sentence.length > maxDescriptionLength) break;
    parts.push(sentence.length > maxDescriptionLength ? `${sentence.slice(0, maxDescriptionLength - 1)}…` : sentence);
    length += sentence.length;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** The sentences mentioning each phrase key in a chunk, distinct, in mention order; built once per chunk on first use. */
function createSentenceLookup(chunks: readonly ChunkPhrases[]): (chunkIndex: number, key: string) => readonly number[] {
  const byChunk = new Map<number, Map<string, number[]>>();
  return (chunkIndex, key) => {
    let byKey = byChunk.get(chunkIndex);
    if (!byKey) {
      byKey = new Map();
      for (const mention of (chunks[chunkIndex] as ChunkPhrases).extraction.mentions) {
        const sentences = byKey.get(mention.key);
        if (!sentences) byKey.set(mention.key, [mention.sentence]);
        else if (!sentences.includes(mention.sentence)) sentences.push(mention.sentence);
      }
      byChunk.set(chunkIndex, byKey);
    }
    return byKey.get(key) ?? [];
  };
}

/** The first sentence mentioning both phrases, if any: an extractive relation description. */
function sharedSentence(
  a: NodeAccumulator,
  b: NodeAccumulator,
  shared: readonly number[],
  chunks: readonly ChunkPhrases[],
  sentencesOf: (chunkIndex: number, key: string) => readonly number[],
): string {
  for (const chunkIndex of shared) {
    const chunk = chunks[chunkIndex] as ChunkPhrases;
    const left = sentencesOf(chunkIndex, a.key);
    for (const sentence of sentencesOf(chunkIndex, b.key)) {
      if (!left.includes(sentence)) continue;
      const span = chunk.extraction.sentences[sentence];
      if (span) return chunk.text.slice(span[0], span[1]).replace(/\s+/g, ' ').trim().slice(0, maxDescriptionLength);
    }
  }
  return '';
}
