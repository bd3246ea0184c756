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
  const pairKey = (a: number, b: number): number => (a < b ? a * nodeList.length + b : b * nodeList.length + a);
  const pairWeight = new Map<number, number>();
  const cappedMembers = chunkNodes.map((members) =>
    members.length <= config.maxPhrasesPerChunk
      ? members
      : [...members].sort((left, right) => (frequency[right] as number) - (frequency[left] as number) || left - right).slice(0, config.maxPhrasesPerChunk),
  );
  for (const members of cappedMembers) {
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const key = pairKey(members[i] as number, members[j] as number);
        pairWeight.set(key, (pairWeight.get(key) ?? 0) + 1);
      }
    }
  }

  const totalFrequency = frequency.reduce((sum, value) => sum + value, 0);
  let totalWeight = 0;
  for (const weight of pairWeight.values()) totalWeight += weight;
  const edgeWeight = new Map<number, number>();
  for (const [key, weight] of pairWeight) {
    const a = Math.floor(key / nodeList.length);
    const b = key % nodeList.length;
    const joint = weight / totalWeight;
    const independent = ((frequency[a] as number) / totalFrequency) * ((frequency[b] as number) / totalFrequency);
    edgeWeight.set(key, joint * Math.log2(joint / independent));
  }

  const degree = new Int32Array(nodeList.length);
  const increment = (array: Int32Array, index: number): void => {
    array[index] = (array[index] as number) + 1;
  };
  for (const key of edgeWeight.keys()) {
    increment(degree, Math.floor(key / nodeList.length));
    increment(degree, key % nodeList.length);
  }
  const removed = new Uint8Array(nodeList.length);
  if (config.removeEgoNodes && nodeList.length > 0) {
    let ego = 0;
    for (let index = 1; index < nodeList.length; index++) if ((degree[index] as number) > (degree[ego] as number)) ego = index;
    removed[ego] = 1;
  }
  for (let index = 0; index < nodeList.length; index++) {
    if ((degree[index] as number) < config.minNodeDegree || (frequency[index] as number) < config.minNodeFrequency) removed[index] = 1;
  }
  const surviving = [...edgeWeight].filter(([key]) => !removed[Math.floor(key / nodeList.length)] && !removed[key % nodeList.length]);
  const threshold = percentile(
    surviving.map(([, weight]) => weight),
    config.minEdgeWeightPercentile,
  );
  const kept = config.minEdgeWeightPercentile > 0 ? surviving.filter(([, weight]) => weight >= threshold) : surviving;
  const finalDegree = new Int32Array(nodeList.length);
  for (const [key] of kept) {
    increment(finalDegree, Math.floor(key / nodeList.length));
    increment(finalDegree, key % nodeList.length);
  }

  // Chunk lists only for the edges that survived pruning, capped: a pair of hub phrases can share
  // thousands of chunks, and listing them all cost most of the memory on large inputs.
  const pairChunks = new Map<number, number[]>(kept.map(([key]) => [key, []]));
  cappedMembers.forEach((members, chunkIndex) => {
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const list = pairChunks.get(pairKey(members[i] as number, members[j] as number));
        if (list && list.length < maxRelationChunks) list.push(chunkIndex);
      }
    }
  });
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

  const relations: RelationRecord[] = kept.map(([key, weight]) => {
    const a = Math.floor(key / nodeList.length);
    const b = key % nodeList.length;
    const [source, target] = [entityIdOfNode.get(a) as string, entityIdOfNode.get(b) as string].sort() as [string, string];
    const shared = pairChunks.get(key) ?? [];
    return {
      id: contentId('relation', source, target),
      source,
      target,
      description: sharedSentence(nodeList[a] as NodeAccumulator, nodeList[b] as NodeAccumulator, shared, chunks),
      keywords: [],
      weight,
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
      pairs: pairWeight.size,
      prunedNodes: nodeList.length - entities.length,
      prunedEdges: pairWeight.size - kept.length,
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

/** The first sentence mentioning both phrases, if any: an extractive relation description. */
function sharedSentence(a: NodeAccumulator, b: NodeAccumulator, shared: readonly number[], chunks: readonly ChunkPhrases[]): string {
  for (const chunkIndex of shared) {
    const chunk = chunks[chunkIndex] as ChunkPhrases;
    const sentencesOf = (key: string): Set<number> =>
      new Set(chunk.extraction.mentions.filter((mention) => mention.key === key).map((mention) => mention.sentence));
    const left = sentencesOf(a.key);
    for (const sentence of sentencesOf(b.key)) {
      if (!left.has(sentence)) continue;
      const span = chunk.extraction.sentences[sentence];
      if (span) return chunk.text.slice(span[0], span[1]).replace(/\s+/g, ' ').trim().slice(0, maxDescriptionLength);
    }
  }
  return '';
}
