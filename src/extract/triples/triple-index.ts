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

/** The sentence a fact is embedded and shown as: its three parts joined by spaces (Milvus `" ".join(triplet)`). */
export function factSentence(subject: string, predicate: string, object: string): string {
  return `${subject} ${predicate} ${object}`.replace(/\s+/g, ' ').trim();
}

/** Builds {@link TripleIndex} from triples rows (exported for tests and the index step). */
export function buildTripleIndex(
  triples: ReadonlyArray<{ id: string; subject: string; predicate: string; object: string; chunkId: string }>,
): TripleIndex {
  const phraseTexts: string[] = [];
  const phraseIds: string[] = [];
  const phraseLabels: string[] = [];
  const phraseIndex = new Map<string, number>();
  const phraseChunkSets: Array<Set<number>> = [];
  const chunkIds: string[] = [];
  const chunkIndex = new Map<string, number>();
  const factIds: string[] = [];
  const factTexts: string[] = [];
  const subjects: number[] = [];
  const objects: number[] = [];
  const factPredicate: string[] = [];
  const factKey = new Map<string, number>();
  const factChunkSets: Array<Set<number>> = [];

  const phrase = (surface: string): number | undefined => {
    const normalized = normalizePhrase(surface);
    if (normalized.length === 0) return undefined;
    let index = phraseIndex.get(normalized);
    if (index === undefined) {
      index = phraseTexts.length;
      phraseIndex.set(normalized, index);
      phraseTexts.push(normalized);
      phraseIds.push(phraseId(normalized));
      phraseLabels.push(surface.trim());
      phraseChunkSets.push(new Set());
    }
    return index;
  };

  for (const triple of triples) {
    const subject = phrase(triple.subject);
    const object = phrase(triple.object);
    if (subject === undefined || object === undefined) continue;
    let chunk = chunkIndex.get(triple.chunkId);
    if (chunk === undefined) {
      chunk = chunkIds.length;
      chunkIndex.set(triple.chunkId, chunk);
      chunkIds.push(triple.chunkId);
    }
    phraseChunkSets[subject]?.add(chunk);
    phraseChunkSets[object]?.add(chunk);
    const predicate = triple.predicate.trim().toLowerCase().replace(/\s+/g, ' ');
    const key = `${subject}\u0000${predicate}\u0000${object}`;
    let fact = factKey.get(key);
    if (fact === undefined) {
      fact = factIds.length;
      factKey.set(key, fact);
      factIds.push(triple.id);
      factTexts.push(factSentence(triple.subject, triple.predicate, triple.object));
      subjects.push(subject);
      objects.push(object);
      factPredicate.push(predicate);
      factChunkSets.push(new Set());
    }
    factChunkSets[fact]?.add(chunk);
  }

  return {
    phraseTexts,
    phraseIds,
    phraseLabels,
    phraseIndex,
    factIds,
    factTexts,
    factSubject: Int32Array.from(subjects),
    factObject: Int32Array.from(objects),
    factPredicate,
    factChunks: factChunkSets.map((set) => [...set]),
    chunkIds,
    phraseChunks: phraseChunkSets.map((set) => [...set]),
  };
}
