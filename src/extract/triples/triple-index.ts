import { normalizePhrase, phraseId } from '../../text/normalize-phrase.js';

/** Finds a phrase by its normalized text (a map, or a search over a stored index). */
export type PhraseLookup = Pick<ReadonlyMap<string, number>, 'get'>;

/** A list of indices (an array, or a typed-array view of a stored index). */
export type IndexList = ArrayLike<number> & Iterable<number>;

/**
 * The triples of the index in arrays (the phrase/fact graph of HippoRAG and of Graph RAG with Milvus),
 * loaded once per index. Phrases are the distinct normalized triple arguments, in first-seen order over the
 * triples table; facts are the distinct (subject, predicate, object) triples after normalization, each with
 * every chunk it was extracted from.
 */
export interface TripleIndex {
  /** Phrase index → normalized text; its id in the `phrases` vector space is `phraseIds[i]`. */
  phraseTexts: readonly string[];
  phraseIds: readonly string[];
  /** Phrase index → its first surface form (for display). */
  phraseLabels: readonly string[];
  /** Normalized text → phrase index. */
  phraseIndex: PhraseLookup;
  /** Fact index → triples-table id of its first occurrence (its id in the `facts` vector space). */
  factIds: readonly string[];
  /** Fact index → "subject predicate object" as first extracted. */
  factTexts: readonly string[];
  factSubject: Int32Array;
  factObject: Int32Array;
  factPredicate: readonly string[];
  /** Fact index → chunk indices it was extracted from, in triples-table order, distinct. */
  factChunks: ReadonlyArray<IndexList>;
  /** Chunk index → chunk id, for the chunks that have at least one triple, in first-seen order. */
  chunkIds: readonly string[];
  /** Phrase index → distinct chunk indices whose triples mention it (HippoRAG's phrase→passage matrix). */
  phraseChunks: ReadonlyArray<IndexList>;
}

/** Lists of indices one after another: list `i` is `values[pointers[i] … pointers[i + 1])`. */
export interface FlatIndexLists {
  pointers: Int32Array;
  values: Int32Array;
}

/**
 * What removing chunks does to a {@link TripleIndex} (`planTripleChunkRemoval`), in terms of the index before: which
 * phrases, facts and chunks stay and in what order, their lists, and the strings that change (a phrase or fact whose
 * first occurrence was removed now takes its label, id and text from the row that names it first). Applied to the
 * index (`removeTripleChunks`) or to its encoding (`encodeTripleIndexRemoval`), which copies the kept strings' bytes.
 */
export interface TripleIndexRemoval {
  /** Old phrase index → new (−1: gone), and the old indices in new order. */
  newPhrase: Int32Array;
  phraseOrder: Int32Array;
  newFact: Int32Array;
  factOrder: Int32Array;
  /** Old chunk indices kept, in order, and their ids. */
  chunkOrder: readonly number[];
  chunkIds: readonly string[];
  /** Per new phrase and fact, its new chunk indices. */
  phraseChunks: FlatIndexLists;
  factChunks: FlatIndexLists;
  /** New strings by old index: labels of phrases, ids and texts of facts, first seen in another row now. */
  phraseLabels: ReadonlyMap<number, string>;
  factIds: ReadonlyMap<number, string>;
  factTexts: ReadonlyMap<number, string>;
}

/** The sentence a fact is embedded and shown as: its three parts joined by spaces (Milvus `" ".join(triplet)`). */
export function factSentence(subject: string, predicate: string, object: string): string {
  return `${subject} ${predicate} ${object}`.replace(/\s+/g, ' ').trim();
}

/** A triples-table row, as the index reads it. */
export type TripleRow = { id: string; subject: string; predicate: string; object: string; chunkId: string };

/** Builds {@link TripleIndex} from triples rows (exported for tests and the index step). */
export function buildTripleIndex(triples: ReadonlyArray<TripleRow>): TripleIndex {
  const phraseIndex = new Map<string, number>();
  const addition = tripleIndexAddition(
    { phrases: 0, facts: 0, chunks: 0, phraseIndex: { get: () => undefined }, factOf: () => undefined, chunkOf: () => undefined },
    triples,
    phraseIndex,
  );
  const listsOf = (count: number, lists: ReadonlyMap<number, ReadonlySet<number>>): number[][] => Array.from({ length: count }, (_, index) => [...(lists.get(index) ?? [])]);
  return {
    phraseTexts: addition.phraseTexts,
    phraseIds: addition.phraseIds,
    phraseLabels: addition.phraseLabels,
    phraseIndex,
    factIds: addition.factIds,
    factTexts: addition.factTexts,
    factSubject: Int32Array.from(addition.factSubject),
    factObject: Int32Array.from(addition.factObject),
    factPredicate: addition.factPredicate,
    factChunks: listsOf(addition.factIds.length, addition.factChunks),
    chunkIds: addition.chunkIds,
    phraseChunks: listsOf(addition.phraseTexts.length, addition.phraseChunks),
  };
}

/** What an index holds, as far as reading more rows into it needs (an empty one for a fresh build). */
export interface TripleIndexBase {
  phrases: number;
  facts: number;
  chunks: number;
  phraseIndex: PhraseLookup;
  /** The fact of these normalized parts, if the index has it. */
  factOf(subject: number, predicate: string, object: number): number | undefined;
  chunkOf(chunkId: string): number | undefined;
}

/**
 * What reading `triples` after the rows of `base` adds to it: the new phrases, facts and chunks (numbered after the
 * base's), and for each phrase and fact, old or new, the chunks its list gains, in the order a build over all the
 * rows would list them. Shared by a fresh build (an empty base) and an update of a stored index
 * (`appendTripleRows`), so that the two cannot disagree.
 */
export interface TripleIndexAddition {
  phraseTexts: string[];
  phraseIds: string[];
  phraseLabels: string[];
  factIds: string[];
  factTexts: string[];
  factSubject: number[];
  factObject: number[];
  factPredicate: string[];
  chunkIds: string[];
  /** Fact index → chunk indices it gains that its list does not hold yet, in first-seen order. */
  factChunks: Map<number, Set<number>>;
  /** Phrase index → chunk indices it gains that its list does not hold yet, in first-seen order. */
  phraseChunks: Map<number, Set<number>>;
}

/**
 * Reads `triples` into {@link TripleIndexAddition} after `base` (see there). A chunk of `base` that the rows name
 * again gains nothing in lists that already hold it only if `base` reports those lists: callers that update a stored
 * index pass rows of new chunks only.
 */
export function tripleIndexAddition(base: TripleIndexBase, triples: ReadonlyArray<TripleRow>, newPhraseIndex = new Map<string, number>()): TripleIndexAddition {
  const addition: TripleIndexAddition = {
    phraseTexts: [],
    phraseIds: [],
    phraseLabels: [],
    factIds: [],
    factTexts: [],
    factSubject: [],
    factObject: [],
    factPredicate: [],
    chunkIds: [],
    factChunks: new Map(),
    phraseChunks: new Map(),
  };
  const chunkIndex = new Map<string, number>();
  const factKey = new Map<string, number>();
  const gain = (lists: Map<number, Set<number>>, key: number, chunk: number): void => {
    let list = lists.get(key);
    if (!list) lists.set(key, (list = new Set()));
    list.add(chunk);
  };

  const phrase = (surface: string): number | undefined => {
    const normalized = normalizePhrase(surface);
    if (normalized.length === 0) return undefined;
    let index = base.phraseIndex.get(normalized) ?? newPhraseIndex.get(normalized);
    if (index === undefined) {
      index = base.phrases + addition.phraseTexts.length;
      newPhraseIndex.set(normalized, index);
      addition.phraseTexts.push(normalized);
      addition.phraseIds.push(phraseId(normalized));
      addition.phraseLabels.push(surface.trim());
    }
    return index;
  };

  for (const triple of triples) {
    const subject = phrase(triple.subject);
    const object = phrase(triple.object);
    if (subject === undefined || object === undefined) continue;
    let chunk = base.chunkOf(triple.chunkId) ?? chunkIndex.get(triple.chunkId);
    if (chunk === undefined) {
      chunk = base.chunks + addition.chunkIds.length;
      chunkIndex.set(triple.chunkId, chunk);
      addition.chunkIds.push(triple.chunkId);
    }
    gain(addition.phraseChunks, subject, chunk);
    gain(addition.phraseChunks, object, chunk);
    const predicate = triple.predicate.trim().toLowerCase().replace(/\s+/g, ' ');
    const key = `${subject}\u0000${predicate}\u0000${object}`;
    let fact = factKey.get(key) ?? base.factOf(subject, predicate, object);
    if (fact === undefined) {
      fact = base.facts + addition.factIds.length;
      addition.factIds.push(triple.id);
      addition.factTexts.push(factSentence(triple.subject, triple.predicate, triple.object));
      addition.factSubject.push(subject);
      addition.factObject.push(object);
      addition.factPredicate.push(predicate);
    }
    factKey.set(key, fact);
    gain(addition.factChunks, fact, chunk);
  }
  return addition;
}
