import { createDenseMatrix } from '../../../math/dense-vectors.js';
import { exactKnnGraph } from '../../../math/exact-knn-graph.js';
import { englishStopwords } from '../../../text/stopwords.js';

/*
 * Synonym edges of HippoRAG's phrase graph (Gutiérrez et al., NeurIPS 2024 §2, "synonymy edges"; HippoRAG 2,
 * `HippoRAG.add_synonymy_edges`): every phrase node is linked to the phrase nodes whose embeddings have
 * cosine ≥ `synonymy_edge_sim_threshold` among its nearest neighbours.
 *
 * The edges are a function of the set of (phrase text, vector) pairs, not of the phrases' order in the triple index:
 * the searched rows are the phrases in text order, and ties rank by text. That is what lets an update of the index
 * (issue 38) compute only what its new and removed phrases touch and still get the edges a fresh computation gives
 * (`updateSynonymEdges`).
 */

/** HippoRAG 2 links only phrases with more than 2 letters or digits (`len(re.sub('[^A-Za-z0-9]', '', entity)) > 2`). */
export const synonymyMinAlphanumeric = 3;

/**
 * Words shared by more phrases than this do not form a candidate block: scoring a block costs its size
 * squared (4,096 phrases: 1.7·10¹⁰ multiply-adds at 1024 dimensions), and a word that common
 * ("film", "american" in 2Wiki have 2,128 and 774) says little about synonymy.
 */
export const maxSharedWordBlock = 4096;

/** How candidate pairs are found: every pair (an exact kNN graph), or the pairs of phrases sharing a content word. */
export type SynonymSearch = 'exact' | 'shared-word';

/** Undirected synonym edges between phrase indices, `source < target`, sorted by (source, target). */
export interface SynonymEdges {
  sources: Int32Array;
  targets: Int32Array;
  /** Cosine similarity of the two phrases. */
  weights: Float32Array;
}

/** Options of {@link computeSynonymEdges}. */
export interface SynonymEdgeOptions {
  /** Synonyms kept per phrase at most, best first (HippoRAG 2's neighbour list). */
  topK: number;
  threshold: number;
  search: SynonymSearch;
}

/** One vector as its non-zero coordinates (ascending) and their values. */
export interface SparseVector {
  dimensions: number;
  columns: Int32Array;
  values: Float32Array;
}

/**
 * What an update needs of the computation before it: the searched phrases (in text order), the edges between them
 * (positions in `texts`, `source < target`) and the content words whose blocks were too large to search.
 */
export interface SynonymState {
  texts: string[];
  oversizedWords: string[];
  sources: Int32Array;
  targets: Int32Array;
  weights: Float32Array;
}

/** Synonym edges, and the state an update of them starts from. */
export interface SynonymComputation {
  edges: SynonymEdges;
  state: SynonymState;
}

/**
 * Computes the synonym edges of phrases with unit `vectors` (row i = phrase i, `null` when it has none):
 * phrase i links to each of its `topK` most similar phrases with cosine ≥ `threshold`; both ends need more
 * than two letters or digits. The phrases are distinct after normalization, so no pair of equal phrases
 * occurs. Ties rank by text, so the edges depend only on the texts and vectors, not on the phrases' order.
 */
export async function computeSynonymEdges(texts: readonly string[], vectors: ReadonlyArray<Float32Array | SparseVector | null>, options: SynonymEdgeOptions): Promise<SynonymEdges> {
  return (await synonymComputation(texts, vectors, options)).edges;
}

/** {@link computeSynonymEdges} with the state that {@link updateSynonymEdges} starts from. */
export async function synonymComputation(texts: readonly string[], vectors: ReadonlyArray<Float32Array | SparseVector | null>, options: SynonymEdgeOptions): Promise<SynonymComputation> {
  const space = searchSpace(texts, vectors);
  const { phrases, rowTexts } = space;
  const neighbours: Array<Array<[number, number]>> = phrases.map(() => []);
  let oversizedWords: string[] = [];
  if (options.search === 'exact') {
    const first = phrases.length === 0 ? undefined : vectors[phrases[0] as number];
    const dimensions = first === undefined || first === null ? 0 : first instanceof Float32Array ? first.length : first.dimensions;
    const matrix = createDenseMatrix(phrases.length, dimensions);
    phrases.forEach((phrase, row) => {
      const vector = vectors[phrase] as Float32Array | SparseVector;
      if (vector instanceof Float32Array) matrix.data.set(vector, row * dimensions);
      else vector.columns.forEach((coordinate, entry) => (matrix.data[row * dimensions + coordinate] = vector.values[entry] as number));
    });
    const k = Math.min(options.topK, Math.max(0, phrases.length - 1));
    const graph = await exactKnnGraph(matrix, k);
    for (let row = 0; row < phrases.length; row++) {
      for (let slot = row * k; slot < row * k + k; slot++) {
        const similarity = graph.similarities[slot] as number;
        const neighbour = graph.indices[slot] as number;
        // Lists are sorted best first: the first neighbour below the threshold ends the row, as in HippoRAG 2.
        if (neighbour < 0 || !(similarity >= options.threshold)) break;
        (neighbours[row] as Array<[number, number]>).push([neighbour, similarity]);
      }
    }
  } else if (phrases.length > 1) {
    const blocks = wordBlocks(rowTexts);
    oversizedWords = oversizedWordsOf(blocks);
    const vectorsOfRows = space.sparse();
    const scratch = new Float32Array(vectorsOfRows.dimensions);
    const found = new Set<number>();
    for (const block of blocks.values()) {
      if (block.length < 2 || block.length > maxSharedWordBlock) continue;
      for (let position = 0; position < block.length; position++) {
        const row = block[position] as number;
        spread(vectorsOfRows, row, scratch);
        // Rows are ascending within a block: the pairs after this row are the unscored half of the square.
        for (let later = position + 1; later < block.length; later++) {
          const other = block[later] as number;
          const similarity = dotWithScratch(vectorsOfRows, other, scratch);
          if (!(similarity >= options.threshold)) continue;
          const key = row * phrases.length + other;
          if (found.has(key)) continue;
          found.add(key);
          (neighbours[row] as Array<[number, number]>).push([other, similarity]);
          (neighbours[other] as Array<[number, number]>).push([row, similarity]);
        }
        clear(vectorsOfRows, row, scratch);
      }
    }
  }
  return finish(space, neighbours, options.topK, oversizedWords);
}

/**
 * The synonym edges of `texts` and `vectors` computed from `previous`, the state of a computation with the same
 * options over the same vectors for the phrases both share (the vectors of a phrase do not change between refreshes
 * of the corpus statistics): the new phrases are searched against all, each phrase whose neighbour list a new phrase
 * enters takes it in, and a phrase that lost one of its `topK` kept neighbours to a removed phrase is searched again
 * (the one that follows was not kept). The result equals {@link synonymComputation}'s. It costs the phrases that came,
 * went or are linked, and one pass over the texts for the blocks of their words; nothing is sorted but those. Undefined
 * when the update cannot be exact that way: an exact (all-pairs) search, or a content word whose block crossed
 * {@link maxSharedWordBlock} (its pairs come or go all at once). `textOrder`, the phrase indices by ascending text when
 * the caller has them (a stored triple index holds them), spares a map of every text.
 */
export function updateSynonymEdges(
  texts: readonly string[],
  vectors: ReadonlyArray<Float32Array | SparseVector | null>,
  options: SynonymEdgeOptions,
  previous: SynonymState,
  textOrder?: Int32Array,
): (SynonymComputation & { searched: number }) | undefined {
  if (options.search !== 'shared-word') return undefined;
  const eligible = (phrase: number): boolean => vectors[phrase] !== null && vectors[phrase] !== undefined;
  // Old positions → phrases (−1: removed); the phrases that take part and are not old are new.
  const oldPhrases = (textOrder && oldPhrasesInOrder(texts, textOrder, previous.texts)) ?? oldPhrasesByText(texts, previous.texts);
  for (let position = 0; position < oldPhrases.length; position++) {
    const phrase = oldPhrases[position] as number;
    if (phrase >= 0 && !eligible(phrase)) oldPhrases[position] = -1;
  }
  // 1: an old phrase still searched, 2: a new one.
  const role = new Uint8Array(texts.length);
  for (const phrase of oldPhrases) if (phrase >= 0) role[phrase] = 1;
  const added: number[] = [];
  texts.forEach((text, phrase) => {
    if (role[phrase] === 0 && eligible(phrase) && alphanumericLength(text) >= synonymyMinAlphanumeric) {
      role[phrase] = 2;
      added.push(phrase);
    }
  });
  const byText = (left: number, right: number): number => {
    const a = texts[left] as string;
    const b = texts[right] as string;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  added.sort(byText);
  const best = (left: [number, number], right: [number, number]): number => right[1] - left[1] || byText(left[0], right[0]);

  // Each old phrase's previous list: its edges, of which the best `topK` (ties by text) are the neighbours it kept.
  const kept = new Map<number, Array<[number, number]>>();
  const keep = (position: number, other: number, weight: number): void => {
    let list = kept.get(position);
    if (!list) kept.set(position, (list = []));
    list.push([other, weight]);
  };
  for (let edge = 0; edge < previous.sources.length; edge++) {
    keep(previous.sources[edge] as number, previous.targets[edge] as number, previous.weights[edge] as number);
    keep(previous.targets[edge] as number, previous.sources[edge] as number, previous.weights[edge] as number);
  }
  const neighbours = new Map<number, Array<[number, number]>>();
  const listOf = (phrase: number): Array<[number, number]> => {
    let list = neighbours.get(phrase);
    if (!list) neighbours.set(phrase, (list = []));
    return list;
  };
  const again: number[] = [];
  for (const [position, list] of kept) {
    const phrase = oldPhrases[position] as number;
    if (phrase < 0) continue;
    // Positions are in text order, so ties rank by position as they rank by text.
    list.sort((left, right) => right[1] - left[1] || left[0] - right[0]);
    const lostKept = list.slice(0, options.topK).some(([other]) => (oldPhrases[other] as number) < 0);
    if (lostKept && list.length >= options.topK) {
      again.push(phrase);
      continue;
    }
    const current = listOf(phrase);
    for (const [other, similarity] of list) {
      const otherPhrase = oldPhrases[other] as number;
      if (otherPhrase >= 0) current.push([otherPhrase, similarity]);
    }
  }

  // The blocks of the words of the phrases searched, and whether a block of a word that came or went crossed the limit.
  const searchedPhrases = [...again, ...added];
  const touchedWords = new Set<string>();
  for (const phrase of searchedPhrases) for (const word of contentWords(texts[phrase] as string)) touchedWords.add(word);
  const removedWords = new Set<string>();
  previous.texts.forEach((text, position) => {
    if ((oldPhrases[position] as number) < 0) for (const word of contentWords(text)) removedWords.add(word);
  });
  const blocks = new Map<string, number[]>();
  const sizes = new Map<string, number>();
  // The last phrase counted for each word, so that a word twice in one phrase counts once.
  const counting = new Map<string, number>();
  texts.forEach((text, phrase) => {
    if (role[phrase] === 0) return;
    for (const word of text.split(' ')) {
      if (touchedWords.has(word)) {
        let block = blocks.get(word);
        if (!block) blocks.set(word, (block = []));
        // A word twice in one phrase ("new new york") puts it in the block once.
        if (block[block.length - 1] !== phrase) block.push(phrase);
      }
      if (removedWords.has(word)) {
        const counted = counting.get(word);
        if (counted !== phrase) {
          counting.set(word, phrase);
          sizes.set(word, (sizes.get(word) ?? 0) + 1);
        }
      }
    }
  });
  const wasOversized = new Set(previous.oversizedWords);
  for (const [word, block] of blocks) if (block.length > maxSharedWordBlock !== wasOversized.has(word)) return undefined;
  for (const word of removedWords) if ((sizes.get(word) ?? 0) > maxSharedWordBlock !== wasOversized.has(word)) return undefined;

  const dimensions = searchedPhrases.length === 0 ? 0 : dimensionsOf(vectors[searchedPhrases[0] as number] as Float32Array | SparseVector);
  const scratch = new Float32Array(dimensions);
  const searchedAgain = new Set(again);
  // Which search last scored a phrase (searches are numbered from 1): a phrase in two of a phrase's blocks is scored once.
  const scoredBy = new Int32Array(texts.length);
  let searches = 0;
  const search = (phrase: number, visit: (other: number, similarity: number) => void): void => {
    const stamp = ++searches;
    scoredBy[phrase] = stamp;
    const vector = sparseVectorOfAny(vectors[phrase] as Float32Array | SparseVector);
    vector.columns.forEach((coordinate, entry) => (scratch[coordinate] = vector.values[entry] as number));
    for (const word of contentWords(texts[phrase] as string)) {
      const block = blocks.get(word) as number[];
      if (block.length < 2 || block.length > maxSharedWordBlock) continue;
      for (let position = 0; position < block.length; position++) {
        const other = block[position] as number;
        if (scoredBy[other] === stamp) continue;
        scoredBy[other] = stamp;
        const otherVector = vectors[other] as Float32Array | SparseVector;
        const similarity =
          otherVector instanceof Float32Array ? dotSparseWithScratch(sparseVectorOf(otherVector), scratch) : laneDot(otherVector.columns, otherVector.values, 0, otherVector.columns.length, scratch);
        if (similarity >= options.threshold) visit(other, similarity);
      }
    }
    for (const coordinate of vector.columns) scratch[coordinate] = 0;
  };
  for (const phrase of again) search(phrase, (other, similarity) => listOf(phrase).push([other, similarity]));
  for (const phrase of added) {
    search(phrase, (other, similarity) => {
      listOf(phrase).push([other, similarity]);
      // A new phrase enters an old phrase's list (one searched again found it itself; a new one finds it in its own search).
      if (role[other] === 1 && !searchedAgain.has(other)) listOf(other).push([phrase, similarity]);
    });
  }

  // Each phrase's best `topK`, as undirected pairs of phrases.
  const pairs = new Map<string, [number, number, number]>();
  for (const [phrase, list] of neighbours) {
    list.sort(best);
    for (const [other, similarity] of list.slice(0, options.topK)) {
      const a = Math.min(phrase, other);
      const b = Math.max(phrase, other);
      const key = `${a} ${b}`;
      if (!pairs.has(key)) pairs.set(key, [a, b, similarity]);
    }
  }
  const edges = [...pairs.values()].sort((left, right) => left[0] - right[0] || left[1] - right[1]);

  // The state in positions of the new text order: the kept old texts merged with the new ones.
  const rowTexts: string[] = [];
  const rowOf = new Int32Array(texts.length);
  let next = 0;
  previous.texts.forEach((text, position) => {
    const phrase = oldPhrases[position] as number;
    if (phrase < 0) return;
    while (next < added.length && (texts[added[next] as number] as string) < text) {
      rowOf[added[next] as number] = rowTexts.length;
      rowTexts.push(texts[added[next++] as number] as string);
    }
    rowOf[phrase] = rowTexts.length;
    rowTexts.push(text);
  });
  for (; next < added.length; next++) {
    rowOf[added[next] as number] = rowTexts.length;
    rowTexts.push(texts[added[next] as number] as string);
  }
  return { ...computationOf(edges, relabeled(edges, rowOf), rowTexts, [...previous.oversizedWords]), searched: searchedPhrases.length };
}

/** The phrase of each of `previousTexts`, −1 for a text that is none of `texts`, by a map of every text. */
function oldPhrasesByText(texts: readonly string[], previousTexts: readonly string[]): Int32Array {
  const phraseOf = new Map<string, number>();
  texts.forEach((text, phrase) => phraseOf.set(text, phrase));
  return Int32Array.from(previousTexts, (text) => phraseOf.get(text) ?? -1);
}

/**
 * {@link oldPhrasesByText} by one walk along `textOrder` (the phrases by ascending text), `previousTexts` being ascending
 * too, as a state's texts are: no map of 50,000 texts. Undefined when they are not, or the order is not of `texts`.
 */
function oldPhrasesInOrder(texts: readonly string[], textOrder: Int32Array, previousTexts: readonly string[]): Int32Array | undefined {
  if (textOrder.length !== texts.length) return undefined;
  const phrases = new Int32Array(previousTexts.length);
  let cursor = 0;
  let last: string | undefined;
  for (let position = 0; position < previousTexts.length; position++) {
    const text = previousTexts[position] as string;
    if (last !== undefined && !(last < text)) return undefined;
    last = text;
    while (cursor < textOrder.length && (texts[textOrder[cursor] as number] as string) < text) cursor++;
    const phrase = cursor < textOrder.length ? (textOrder[cursor] as number) : -1;
    phrases[position] = phrase >= 0 && texts[phrase] === text ? phrase : -1;
  }
  return phrases;
}

function dimensionsOf(vector: Float32Array | SparseVector): number {
  return vector instanceof Float32Array ? vector.length : vector.dimensions;
}

function sparseVectorOfAny(vector: Float32Array | SparseVector): SparseVector {
  return vector instanceof Float32Array ? sparseVectorOf(vector) : vector;
}

/** Best first; ties by lower row, which is text order. */
function byBest(left: [number, number], right: [number, number]): number {
  return right[1] - left[1] || left[0] - right[0];
}

/** The phrases that take part (a vector and more than two letters or digits), in text order: the search's rows. */
interface SearchSpace {
  /** Row → phrase index. */
  phrases: number[];
  /** Row → phrase text. */
  rowTexts: string[];
  /** The rows' vectors as sparse rows. */
  sparse(): SparseVectors;
}

function searchSpace(texts: readonly string[], vectors: ReadonlyArray<Float32Array | SparseVector | null>): SearchSpace {
  const phrases: number[] = [];
  for (let phrase = 0; phrase < texts.length; phrase++) {
    if (vectors[phrase] && alphanumericLength(texts[phrase] as string) >= synonymyMinAlphanumeric) phrases.push(phrase);
  }
  phrases.sort((left, right) => {
    const a = texts[left] as string;
    const b = texts[right] as string;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  return {
    phrases,
    rowTexts: phrases.map((phrase) => texts[phrase] as string),
    sparse: () => sparseRowsOf(phrases.map((phrase) => vectors[phrase] as Float32Array | SparseVector)),
  };
}

/** Each row's `topK` best neighbours as undirected edges between phrase indices, and the state in rows. */
function finish(space: SearchSpace, neighbours: Array<Array<[number, number]>>, topK: number, oversizedWords: string[]): SynonymComputation {
  const { phrases, rowTexts } = space;
  const pairs = new Set<number>();
  const rowEdges: Array<[number, number, number]> = [];
  neighbours.forEach((list, row) => {
    list.sort(byBest);
    for (const [neighbour, similarity] of list.slice(0, topK)) {
      const a = Math.min(row, neighbour);
      const b = Math.max(row, neighbour);
      const key = a * phrases.length + b;
      if (pairs.has(key)) continue;
      pairs.add(key);
      rowEdges.push([a, b, similarity]);
    }
  });
  rowEdges.sort((left, right) => left[0] - right[0] || left[1] - right[1]);
  return computationOf(relabeled(rowEdges, phrases), rowEdges, rowTexts, oversizedWords);
}

/** Edges with both ends mapped through `map`, each as (lower, higher), sorted by (source, target). */
function relabeled(edges: ReadonlyArray<[number, number, number]>, map: ArrayLike<number>): Array<[number, number, number]> {
  return edges
    .map(([a, b, similarity]): [number, number, number] => {
      const first = map[a] as number;
      const second = map[b] as number;
      return [Math.min(first, second), Math.max(first, second), similarity];
    })
    .sort((left, right) => left[0] - right[0] || left[1] - right[1]);
}

/** The edges between phrases and the state: the same edges between the searched rows (`texts`, in text order). */
function computationOf(edges: ReadonlyArray<[number, number, number]>, rowEdges: ReadonlyArray<[number, number, number]>, texts: string[], oversizedWords: string[]): SynonymComputation {
  return {
    edges: {
      sources: Int32Array.from(edges, (edge) => edge[0]),
      targets: Int32Array.from(edges, (edge) => edge[1]),
      weights: Float32Array.from(edges, (edge) => edge[2]),
    },
    state: {
      texts,
      oversizedWords,
      sources: Int32Array.from(rowEdges, (edge) => edge[0]),
      targets: Int32Array.from(rowEdges, (edge) => edge[1]),
      weights: Float32Array.from(rowEdges, (edge) => edge[2]),
    },
  };
}

/** Letters and digits of a normalized phrase (HippoRAG counts ASCII ones; Unicode-aware here, as normalizePhrase). */
function alphanumericLength(text: string): number {
  return text.replace(/[^\p{L}\p{N}]/gu, '').length;
}

/** The distinct words of a phrase that form candidate blocks (stop words have no features in the local embedder). */
function contentWords(text: string): string[] {
  return [...new Set(text.split(' '))].filter((word) => word.length > 0 && !englishStopwords.has(word));
}

/** Content word → the rows whose text has it, ascending. */
function wordBlocks(rowTexts: readonly string[]): Map<string, number[]> {
  const blocks = new Map<string, number[]>();
  rowTexts.forEach((text, row) => {
    for (const word of contentWords(text)) {
      let block = blocks.get(word);
      if (!block) blocks.set(word, (block = []));
      block.push(row);
    }
  });
  return blocks;
}

function oversizedWordsOf(blocks: ReadonlyMap<string, readonly number[]>): string[] {
  return [...blocks].filter(([, block]) => block.length > maxSharedWordBlock).map(([word]) => word).sort();
}

/** Vectors as compressed sparse rows: row i's non-zero coordinates (ascending) and values at `pointers[i]…`. */
interface SparseVectors {
  dimensions: number;
  pointers: Int32Array;
  columns: Int32Array;
  values: Float32Array;
}

function sparseRowsOf(vectors: ReadonlyArray<Float32Array | SparseVector>): SparseVectors {
  const sparse = vectors.map((vector) => (vector instanceof Float32Array ? sparseVectorOf(vector) : vector));
  const pointers = new Int32Array(sparse.length + 1);
  sparse.forEach((vector, row) => (pointers[row + 1] = (pointers[row] as number) + vector.columns.length));
  const columns = new Int32Array(pointers[sparse.length] as number);
  const values = new Float32Array(columns.length);
  sparse.forEach((vector, row) => {
    columns.set(vector.columns, pointers[row] as number);
    values.set(vector.values, pointers[row] as number);
  });
  return { dimensions: sparse[0]?.dimensions ?? 0, pointers, columns, values };
}

function sparseVectorOf(vector: Float32Array): SparseVector {
  const columns: number[] = [];
  const values: number[] = [];
  vector.forEach((value, coordinate) => {
    if (value === 0) return;
    columns.push(coordinate);
    values.push(value);
  });
  return { dimensions: vector.length, columns: Int32Array.from(columns), values: Float32Array.from(values) };
}

function spread(vectors: SparseVectors, row: number, scratch: Float32Array): void {
  for (let entry = vectors.pointers[row] as number; entry < (vectors.pointers[row + 1] as number); entry++) scratch[vectors.columns[entry] as number] = vectors.values[entry] as number;
}

function clear(vectors: SparseVectors, row: number, scratch: Float32Array): void {
  for (let entry = vectors.pointers[row] as number; entry < (vectors.pointers[row + 1] as number); entry++) scratch[vectors.columns[entry] as number] = 0;
}

/**
 * The dot product of row `other` with the row spread into `scratch`, with the arithmetic of the SIMD kernel
 * (`dot-kernel-module.ts`): float32 products summed in float32 into four lanes by coordinate modulo 4, in ascending
 * coordinate order, then (l0 + l1) + (l2 + l3). A coordinate where either row is zero adds a zero product, which
 * leaves a lane unchanged, so the similarity is bit-identical to the dense kernel's whichever row is spread — without
 * copying the 52,000 × 1024 phrase matrix into it (200 MB, most of the step's time).
 */
function dotWithScratch(vectors: SparseVectors, other: number, scratch: Float32Array): number {
  return laneDot(vectors.columns, vectors.values, vectors.pointers[other] as number, vectors.pointers[other + 1] as number, scratch);
}

/** {@link dotWithScratch} of one sparse vector. */
function dotSparseWithScratch(vector: SparseVector, scratch: Float32Array): number {
  return laneDot(vector.columns, vector.values, 0, vector.columns.length, scratch);
}

/** The lane arithmetic of {@link dotWithScratch} over entries `start…end` of `columns` and `values`. */
function laneDot(columns: Int32Array, values: Float32Array, start: number, end: number, scratch: Float32Array): number {
  let lane0 = 0;
  let lane1 = 0;
  let lane2 = 0;
  let lane3 = 0;
  for (let entry = start; entry < end; entry++) {
    const coordinate = columns[entry] as number;
    const product = Math.fround((scratch[coordinate] as number) * (values[entry] as number));
    switch (coordinate & 3) {
      case 0:
        lane0 = Math.fround(lane0 + product);
        break;
      case 1:
        lane1 = Math.fround(lane1 + product);
        break;
      case 2:
        lane2 = Math.fround(lane2 + product);
        break;
      default:
        lane3 = Math.fround(lane3 + product);
    }
  }
  return Math.fround(Math.fround(lane0 + lane1) + Math.fround(lane2 + lane3));
}

const stateMagic = 0x6b737973; // "ksys"
const stateVersion = 1;

/**
 * Packs a {@link SynonymState} as one little-endian blob: magic, version, JSON byte length (u32), the JSON of the texts
 * and oversized words (padded to 4), the edge count (u32), then sources, targets (i32) and weights (f32).
 */
export function encodeSynonymState(state: SynonymState): Uint8Array {
  const json = Buffer.from(JSON.stringify({ texts: state.texts, oversizedWords: state.oversizedWords }), 'utf8');
  const jsonBytes = json.byteLength + ((4 - (json.byteLength % 4)) % 4);
  const count = state.sources.length;
  const buffer = new ArrayBuffer(12 + jsonBytes + 4 + 12 * count);
  new Uint32Array(buffer, 0, 3).set([stateMagic, stateVersion, json.byteLength]);
  new Uint8Array(buffer, 12, json.byteLength).set(json);
  let offset = 12 + jsonBytes;
  new Uint32Array(buffer, offset, 1)[0] = count;
  offset += 4;
  new Int32Array(buffer, offset, count).set(state.sources);
  new Int32Array(buffer, offset + 4 * count, count).set(state.targets);
  new Float32Array(buffer, offset + 8 * count, count).set(state.weights);
  return new Uint8Array(buffer);
}

/** The state of a blob written by {@link encodeSynonymState}, or undefined for another format or a damaged blob. */
export function decodeSynonymState(blob: Uint8Array): SynonymState | undefined {
  // An aligned copy: a blob read from the store may start at any byte offset.
  const bytes = Uint8Array.from(blob);
  if (bytes.byteLength < 16) return undefined;
  const [magic, version, jsonLength] = Array.from(new Uint32Array(bytes.buffer, 0, 3)) as [number, number, number];
  if (magic !== stateMagic || version !== stateVersion) return undefined;
  const jsonBytes = jsonLength + ((4 - (jsonLength % 4)) % 4);
  if (12 + jsonBytes + 4 > bytes.byteLength) return undefined;
  let offset = 12 + jsonBytes;
  const count = new Uint32Array(bytes.buffer, offset, 1)[0] as number;
  offset += 4;
  if (offset + 12 * count !== bytes.byteLength) return undefined;
  const parsed = JSON.parse(Buffer.from(bytes.buffer, 12, jsonLength).toString('utf8')) as { texts: string[]; oversizedWords: string[] };
  return {
    texts: parsed.texts,
    oversizedWords: parsed.oversizedWords,
    sources: new Int32Array(bytes.buffer, offset, count),
    targets: new Int32Array(bytes.buffer, offset + 4 * count, count),
    weights: new Float32Array(bytes.buffer, offset + 8 * count, count),
  };
}
