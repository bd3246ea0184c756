/** A `[subject, predicate, object]` fact as written in a passage (HippoRAG's OpenIE triple). */
export type Triple = [subject: string, predicate: string, object: string];

/**
 * What OpenIE found in one text (HippoRAG's per-passage record): its named entities and its triples.
 * Triple arguments are surface forms; `normalizePhrase` turns them into phrase nodes.
 */
export interface TripleExtraction {
  entities: string[];
  triples: Triple[];
}
