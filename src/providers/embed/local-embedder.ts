import { createHash } from 'node:crypto';
import { englishStopwords } from '../../text/stopwords.js';
import { wordTokens } from '../../text/word-tokens.js';
import type { CorpusFittedEmbedder, SparseVector, EmbedOptions } from './embedder.js';

/*
 * The default embedder: no model weights, no network, deterministic.
 *
 * Each text becomes sparse TF-IDF features — word unigrams, adjacent word bigrams and character 3/4-grams
 * of words (which catch inflections and misspellings: "flooded" ~ "floods") — projected into a dense vector
 * with the signed hashing trick (Weinberger et al., "Feature Hashing for Large Scale Multitask Learning",
 * ICML 2009): each feature adds ±weight to one coordinate chosen by a hash, so inner products are
 * preserved in expectation. Document frequencies are counted per feature hash in 2^20 buckets (far more
 * than the output dimension, so IDF is nearly exact) and stored in the workspace by the pipeline.
 */

/** Defaults of the local embedder. */
export const localEmbedderDefaults = {
  /** Output dimension. */
  dimensions: 1024,
  /** Share of the squared norm given to word features; the rest goes to character n-grams. */
  wordWeight: 0.6,
  /** log2 of the number of document-frequency buckets. */
  frequencyBits: 20,
} as const;

export interface LocalEmbedderOptions {
  dimensions?: number;
  wordWeight?: number;
}

const stateMagic = 0x6b656d62; // "kemb"
const stateVersion = 1;
const wordSeed = 0x9e3779b1;
const bigramSeed = 0x85ebca77;
const charSeed = 0xc2b2ae3d;

/** FNV-1a over a string's UTF-16 code units, continuing from `seed`. */
function fnv1a(text: string, seed: number, from = 0, to = text.length): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = from; index < to; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Final avalanche of murmur3, so that bucket, coordinate and sign use independent-looking bits. */
function mix(value: number): number {
  let hash = value >>> 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * Counts of 32-bit feature hashes in first-seen order, like a `Map<number, number>` but in typed arrays that
 * are reused from text to text: hashes above 2^30 are not small integers, and a Map keyed by them allocated
 * a number per feature.
 */
class FeatureCounter {
  private slots = new Int32Array(0);
  private slotKeys = new Uint32Array(0);
  /** Features in first-seen order, and their counts. */
  keys = new Uint32Array(64);
  counts = new Int32Array(64);
  /** The slot of each entry, to empty them all in `clear`. */
  private usedSlots = new Int32Array(64);
  size = 0;

  clear(): void {
    for (let index = 0; index < this.size; index++) this.slots[this.usedSlots[index] as number] = 0;
    this.size = 0;
  }

  add(key: number): void {
    if (this.size * 2 >= this.slots.length) this.grow();
    const slot = this.slotOf(key);
    const entry = this.slots[slot] as number;
    if (entry !== 0) {
      this.counts[entry - 1] = (this.counts[entry - 1] as number) + 1;
      return;
    }
    if (this.size === this.keys.length) {
      const keys = new Uint32Array(this.keys.length * 2);
      keys.set(this.keys);
      this.keys = keys;
      const counts = new Int32Array(this.counts.length * 2);
      counts.set(this.counts);
      this.counts = counts;
      const usedSlots = new Int32Array(this.usedSlots.length * 2);
      usedSlots.set(this.usedSlots);
      this.usedSlots = usedSlots;
    }
    this.keys[this.size] = key;
    this.counts[this.size] = 1;
    this.size++;
    this.slots[slot] = this.size;
    this.slotKeys[slot] = key;
    this.usedSlots[this.size - 1] = slot;
  }

  /** The slot holding `key`, or the empty slot where it would go (linear probing). */
  private slotOf(key: number): number {
    const mask = this.slots.length - 1;
    let slot = Math.imul(key, 0x9e3779b1) >>> 0 & mask;
    while (this.slots[slot] !== 0 && this.slotKeys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    this.slots = new Int32Array(Math.max(256, this.slots.length * 2));
    this.slotKeys = new Uint32Array(this.slots.length);
    for (let index = 0; index < this.size; index++) {
      const slot = this.slotOf(this.keys[index] as number);
      this.slots[slot] = index + 1;
      this.slotKeys[slot] = this.keys[index] as number;
      this.usedSlots[index] = slot;
    }
  }
}

const numberToken = /^\p{N}+$/u;

/** Counts the word (unigram, bigram) and character 3/4-gram features of `text` into the two counters. */
function countFeatures(text: string, words: FeatureCounter, chars: FeatureCounter): void {
  words.clear();
  chars.clear();
  let previous: number | undefined;
  for (const token of wordTokens(text)) {
    if (englishStopwords.has(token)) {
      previous = undefined;
      continue;
    }
    const unigram = fnv1a(token, wordSeed);
    words.add(unigram);
    if (previous !== undefined) words.add(mix(Math.imul(previous, 0x27d4eb2d) ^ unigram ^ bigramSeed));
    previous = unigram;
    if (numberToken.test(token)) continue;
    const padded = `^${token}$`;
    for (let size = 3; size <= 4; size++) {
      for (let start = 0; start + size <= padded.length; start++) chars.add(fnv1a(padded, charSeed + size, start, start + size));
    }
  }
}

class LocalEmbedder implements CorpusFittedEmbedder {
  readonly corpusFitted = true;
  readonly maxBatchSize = 4096;
  readonly dimensions: number;
  private readonly wordWeight: number;
  private readonly bucketMask = (1 << localEmbedderDefaults.frequencyBits) - 1;
  private documentFrequency: Uint32Array = new Uint32Array(0);
  private documentCount = 0;
  private fingerprint = 'unfitted';

  constructor(options: LocalEmbedderOptions) {
    this.dimensions = options.dimensions ?? localEmbedderDefaults.dimensions;
    this.wordWeight = options.wordWeight ?? localEmbedderDefaults.wordWeight;
  }

  get id(): string {
    return `local:v1:${this.dimensions}:${this.wordWeight}:${this.fingerprint}`;
  }

  fit(corpus: Iterable<string>): void {
    const frequency = new Uint32Array(this.bucketMask + 1);
    let count = 0;
    const seen = new Set<number>();
    const { words, chars } = this.counters;
    for (const text of corpus) {
      count++;
      countFeatures(text, words, chars);
      seen.clear();
      for (let index = 0; index < words.size; index++) seen.add(mix(words.keys[index] as number) & this.bucketMask);
      for (let index = 0; index < chars.size; index++) seen.add(mix(chars.keys[index] as number) & this.bucketMask);
      for (const bucket of seen) frequency[bucket] = (frequency[bucket] as number) + 1;
    }
    this.setState(frequency, count);
  }

  exportState(): Uint8Array {
    const header = this.stateHeader();
    const bytes = new Uint8Array(header.byteLength + this.documentFrequency.byteLength);
    bytes.set(new Uint8Array(header.buffer), 0);
    bytes.set(new Uint8Array(this.documentFrequency.buffer, this.documentFrequency.byteOffset, this.documentFrequency.byteLength), header.byteLength);
    return bytes;
  }

  importState(state: Uint8Array): void {
    const copy = state.slice();
    const header = new Uint32Array(copy.buffer, 0, 4);
    if (header[0] !== stateMagic || header[1] !== stateVersion || header[3] !== this.bucketMask + 1) {
      throw new Error('local embedder state is from an incompatible version; re-run `kgrag index` to refit it');
    }
    this.setState(new Uint32Array(copy.buffer, 16, header[3]), header[2] as number);
  }

  async embed(texts: readonly string[], _options?: EmbedOptions): Promise<Float32Array[]> {
    // One buffer per call, a view per text: allocating each 4 KB vector on its own cost more than embedding it.
    const vectors = new Float32Array(texts.length * this.dimensions);
    return texts.map((text, index) => this.embedOne(text, vectors.subarray(index * this.dimensions, (index + 1) * this.dimensions)));
  }

  async embedSparse(texts: readonly string[]): Promise<SparseVector[]> {
    // The dense vectors of a batch are made in one reused buffer and only their non-zeros kept: the same values.
    const buffer = new Float32Array(this.dimensions);
    return texts.map((text) => {
      const vector = this.embedOne(text, buffer);
      // Touched coordinates whose terms cancelled out hold 0: a sparse vector lists only the non-zeros.
      const coordinates = this.lastCoordinates.filter((coordinate) => vector[coordinate] !== 0);
      const values = Float32Array.from(coordinates, (coordinate) => vector[coordinate] as number);
      for (const coordinate of this.lastCoordinates) buffer[coordinate] = 0;
      return { dimensions: this.dimensions, columns: coordinates, values };
    });
  }

  private setState(frequency: Uint32Array, count: number): void {
    this.documentFrequency = frequency;
    this.documentCount = count;
    // The hash of `exportState()`'s bytes, without copying 4 MB of counters into them first.
    const hash = createHash('sha256').update(new Uint8Array(this.stateHeader().buffer));
    this.fingerprint = hash.update(new Uint8Array(frequency.buffer, frequency.byteOffset, frequency.byteLength)).digest('hex').slice(0, 12);
  }

  private stateHeader(): Uint32Array {
    return new Uint32Array([stateMagic, stateVersion, this.documentCount, this.documentFrequency.length]);
  }

  private idf(feature: number): number {
    if (this.documentCount === 0) return 1;
    const frequency = this.documentFrequency[mix(feature) & this.bucketMask] ?? 0;
    return Math.log((this.documentCount + 1) / (frequency + 1)) + 1;
  }

  /** Adds the weighted features to `target`, listing each coordinate it touches first in `touched.list`. */
  private project(counts: FeatureCounter, target: Float64Array, touched: { flags: Uint8Array; list: Int32Array; size: number }): void {
    for (let index = 0; index < counts.size; index++) {
      const feature = counts.keys[index] as number;
      const count = counts.counts[index] as number;
      const weight = (1 + Math.log(count)) * this.idf(feature);
      const hashed = mix(feature ^ 0x5bd1e995);
      const coordinate = hashed % this.dimensions;
      target[coordinate] = (target[coordinate] as number) + (hashed & 0x80000000 ? -weight : weight);
      if (touched.flags[coordinate] === 0) {
        touched.flags[coordinate] = 1;
        touched.list[touched.size++] = coordinate;
      }
    }
  }

  /*
   * A short text (a phrase, a fact) touches a few dozen of the coordinates, and the index embeds about 130,000
   * of them: the work runs over the touched coordinates only, in ascending order so that every sum adds the
   * same non-zero terms in the same order as a pass over all coordinates would (the zeros add nothing), with
   * scratch arrays that are zeroed again after each text.
   */
  private readonly counters = { words: new FeatureCounter(), chars: new FeatureCounter() };
  /** The coordinates `embedOne` touched last, ascending (a view on scratch, valid until the next call). */
  private lastCoordinates: Int32Array = new Int32Array(0);
  private scratch: { word: Float64Array; char: Float64Array; touched: { flags: Uint8Array; list: Int32Array; size: number } } | undefined;

  /** Writes the vector of `text` into `vector` (zeros on entry) and returns it. */
  private embedOne(text: string, vector: Float32Array): Float32Array {
    const { words, chars } = this.counters;
    countFeatures(text, words, chars);
    this.scratch ??= {
      word: new Float64Array(this.dimensions),
      char: new Float64Array(this.dimensions),
      touched: { flags: new Uint8Array(this.dimensions), list: new Int32Array(this.dimensions), size: 0 },
    };
    const { word: wordPart, char: charPart, touched } = this.scratch;
    touched.size = 0;
    this.project(words, wordPart, touched);
    this.project(chars, charPart, touched);
    const coordinates = touched.list.subarray(0, touched.size).sort();
    this.lastCoordinates = coordinates;
    let wordSquares = 0;
    let charSquares = 0;
    for (const coordinate of coordinates) {
      wordSquares += (wordPart[coordinate] as number) ** 2;
      charSquares += (charPart[coordinate] as number) ** 2;
    }
    const wordNorm = Math.sqrt(wordSquares);
    const charNorm = Math.sqrt(charSquares);
    const wordScale = wordNorm > 0 ? Math.sqrt(this.wordWeight) / wordNorm : 0;
    const charScale = charNorm > 0 ? Math.sqrt(1 - this.wordWeight) / charNorm : 0;
    let squares = 0;
    for (const coordinate of coordinates) {
      const value = Math.fround((wordPart[coordinate] as number) * wordScale + (charPart[coordinate] as number) * charScale);
      vector[coordinate] = value;
      squares += value ** 2;
      wordPart[coordinate] = 0;
      charPart[coordinate] = 0;
      touched.flags[coordinate] = 0;
    }
    const total = Math.sqrt(squares);
    if (total > 0) for (const coordinate of coordinates) vector[coordinate] = (vector[coordinate] as number) / total;
    return vector;
  }
}

/**
 * Creates the weight-free local embedder. Call `fit` on the corpus (the pipeline does, and stores the
 * state) so that rare words weigh more than common ones.
 */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): CorpusFittedEmbedder {
  return new LocalEmbedder(options);
}
