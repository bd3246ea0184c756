import type { KnnGraph } from '../../../math/knn-graph.js';

/**
 * The edge kinds of KGP's passage graphs (Wang et al., AAAI'24; YuWVandy/KG-LLM-MDQA `Data-Collect/graph_construct.py`), as built
 * over a whole index rather than per question:
 *
 * - `knn`: KNN-ST, each passage → its k most similar passages by embedding cosine (directed, as KGP's
 *   `nx.DiGraph`, so a passage's neighbours are its own k nearest);
 * - `entity`: the TAGME graph's analogue, passages that mention a common entity of the index's graph;
 * - `keyword`: KGP's TF-IDF graph, passages that share one of their top TF-IDF terms;
 * - `structural`: passages of the same document, and of documents with the same title (KGP adds the
 *   title as a keyword of every passage, so all passages of one document are linked).
 */
export const passageEdgeKinds = ['knn', 'entity', 'keyword', 'structural'] as const;

export type PassageEdgeKind = (typeof passageEdgeKinds)[number];

/** The bit of each kind in {@link PassageGraph.kinds}. */
export const passageEdgeBit: Readonly<Record<PassageEdgeKind, number>> = { knn: 1, entity: 2, keyword: 4, structural: 8 };

/**
 * A passage graph of every kind at once: row `p` lists the passages `neighbours[rowPointers[p] ..
 * rowPointers[p + 1])` (ascending) that `p` links to, and `kinds` holds, per entry, the bits of the kinds
 * that link them ({@link passageEdgeBit}). `shared` counts, per entry, the entities and keywords the two
 * passages share (0 for kNN or structural links only). Every kind but `knn` is symmetric.
 */
export interface PassageGraph {
  readonly passages: number;
  readonly rowPointers: Int32Array;
  readonly neighbours: Int32Array;
  readonly kinds: Uint8Array;
  readonly shared: Uint16Array;
}

/** Limits of {@link buildPassageGraph}. */
export interface PassageGraphLimits {
  /**
   * An entity or keyword found in more passages than this links none of them: "United States" or "film"
   * would otherwise join a large share of the corpus into one clique (its pairs grow with the square of
   * its passages) while telling nothing about which ones belong together.
   */
  maxPassagesPerTerm: number;
  /**
   * A structural group (one document, or documents with one title) of at most this many passages is a
   * clique, as with KGP's title keyword; a larger one links each passage to the `maxGroupClique / 2`
   * passages before and after it in reading order, so a long book does not make a quadratic clique.
   */
  maxGroupClique: number;
}

/** What a passage graph is built from; passages are numbered 0 … passages − 1. */
export interface PassageGraphInputs {
  passages: number;
  /** The kNN graph of the passage embeddings (`-1` padding is skipped). */
  knn?: KnnGraph;
  /** For each entity, the passages that mention it. */
  entityPassages?: ReadonlyArray<ArrayLike<number>>;
  /** For each keyword, the passages that have it among their top terms. */
  keywordPassages?: ReadonlyArray<ArrayLike<number>>;
  /** Structural groups: the passages of each document (or title), in reading order. */
  groups?: ReadonlyArray<ArrayLike<number>>;
}

/** Growable arrays of directed entries (source, target, kind bit). */
class EntryList {
  sources = new Int32Array(1024);
  targets = new Int32Array(1024);
  bits = new Uint8Array(1024);
  length = 0;

  add(source: number, target: number, bit: number): void {
    if (this.length === this.sources.length) {
      const grow = <T extends Int32Array | Uint8Array>(array: T): T => {
        const larger = new (array.constructor as new (length: number) => T)(array.length * 2);
        larger.set(array);
        return larger;
      };
      this.sources = grow(this.sources);
      this.targets = grow(this.targets);
      this.bits = grow(this.bits);
    }
    this.sources[this.length] = source;
    this.targets[this.length] = target;
    this.bits[this.length] = bit;
    this.length++;
  }
}

/** Adds both directions of every pair of distinct passages in `members`. */
function addClique(entries: EntryList, members: ArrayLike<number>, bit: number): void {
  for (let first = 0; first < members.length; first++) {
    for (let second = first + 1; second < members.length; second++) {
      const left = members[first] as number;
      const right = members[second] as number;
      if (left === right) continue;
      entries.add(left, right, bit);
      entries.add(right, left, bit);
    }
  }
}

/**
 * Builds the union of the passage graphs of every kind given in `inputs`, merging the links two passages
 * have into one entry with all their kind bits. Entities and keywords above `maxPassagesPerTerm` are
 * skipped (see {@link PassageGraphLimits}); a passage never links to itself.
 */
export function buildPassageGraph(inputs: PassageGraphInputs, limits: PassageGraphLimits): PassageGraph {
  const { passages } = inputs;
  const entries = new EntryList();
  if (inputs.knn) {
    const { n, k, indices } = inputs.knn;
    for (let row = 0; row < n; row++) {
      for (let slot = 0; slot < k; slot++) {
        const target = indices[row * k + slot] as number;
        if (target >= 0 && target !== row) entries.add(row, target, passageEdgeBit.knn);
      }
    }
  }
  const termLists: Array<[ReadonlyArray<ArrayLike<number>> | undefined, number]> = [
    [inputs.entityPassages, passageEdgeBit.entity],
    [inputs.keywordPassages, passageEdgeBit.keyword],
  ];
  for (const [lists, bit] of termLists) {
    for (const members of lists ?? []) {
      const distinct = [...new Set(Array.from(members))].sort((left, right) => left - right);
      if (distinct.length >= 2 && distinct.length <= limits.maxPassagesPerTerm) addClique(entries, distinct, bit);
    }
  }
  for (const members of inputs.groups ?? []) {
    if (members.length <= limits.maxGroupClique) {
      addClique(entries, members, passageEdgeBit.structural);
      continue;
    }
    const reach = Math.max(1, Math.floor(limits.maxGroupClique / 2));
    for (let first = 0; first < members.length; first++) {
      for (let second = first + 1; second <= Math.min(members.length - 1, first + reach); second++) {
        const left = members[first] as number;
        const right = members[second] as number;
        if (left === right) continue;
        entries.add(left, right, passageEdgeBit.structural);
        entries.add(right, left, passageEdgeBit.structural);
      }
    }
  }
  return mergeEntries(passages, entries);
}

/** Counting sort by source, then per row by target, merging duplicates (kind bits OR-ed, shared terms counted). */
function mergeEntries(passages: number, entries: EntryList): PassageGraph {
  const { length, sources, targets, bits } = entries;
  for (let entry = 0; entry < length; entry++) {
    const source = sources[entry] as number;
    const target = targets[entry] as number;
    if (source < 0 || source >= passages || target < 0 || target >= passages) {
      throw new RangeError(`buildPassageGraph: link ${source} → ${target} outside ${passages} passages`);
    }
  }
  const starts = new Int32Array(passages + 1);
  for (let entry = 0; entry < length; entry++) starts[(sources[entry] as number) + 1] = (starts[(sources[entry] as number) + 1] as number) + 1;
  for (let row = 0; row < passages; row++) starts[row + 1] = (starts[row + 1] as number) + (starts[row] as number);
  const order = new Int32Array(length);
  const cursor = starts.slice(0, passages);
  for (let entry = 0; entry < length; entry++) {
    const source = sources[entry] as number;
    order[cursor[source] as number] = entry;
    cursor[source] = (cursor[source] as number) + 1;
  }
  const rowPointers = new Int32Array(passages + 1);
  const neighbours = new Int32Array(length);
  const kinds = new Uint8Array(length);
  const shared = new Uint16Array(length);
  const termBits = passageEdgeBit.entity | passageEdgeBit.keyword;
  let written = 0;
  // A row's entries by (target, entry), as one number each sorted natively: target · length + entry, exact while
  // passages · entries < 2^53 (a million passages with a billion entries).
  const keys = new Float64Array(length);
  for (let row = 0; row < passages; row++) {
    const rowStart = starts[row] as number;
    const rowEnd = starts[row + 1] as number;
    for (let at = rowStart; at < rowEnd; at++) {
      const entry = order[at] as number;
      keys[at] = (targets[entry] as number) * length + entry;
    }
    const rowKeys = keys.subarray(rowStart, rowEnd).sort();
    let previous = -1;
    for (let at = 0; at < rowKeys.length; at++) {
      const entry = (rowKeys[at] as number) % length;
      const target = targets[entry] as number;
      const bit = bits[entry] as number;
      if (target !== previous) {
        neighbours[written] = target;
        kinds[written] = 0;
        shared[written] = 0;
        written++;
        previous = target;
      }
      kinds[written - 1] = (kinds[written - 1] as number) | bit;
      if ((bit & termBits) !== 0) shared[written - 1] = Math.min(0xffff, (shared[written - 1] as number) + 1);
    }
    rowPointers[row + 1] = written;
  }
  return { passages, rowPointers, neighbours: neighbours.slice(0, written), kinds: kinds.slice(0, written), shared: shared.slice(0, written) };
}
