import { normalizeText } from '../../text/normalize-text.js';
import type { Triple, TripleExtraction } from './extracted-triples.js';
import type { OpenieDoc } from './parse-openie-file.js';

/** The fields of a workspace document that imported passages are matched on. */
export interface OpenieTargetDocument {
  id: string;
  title: string;
  text: string;
}

/** The fields of a chunk that imported triples are placed by. */
export interface OpenieTargetChunk {
  id: string;
  documentId: string;
  ordinal: number;
  text: string;
}

/** Where the docs of an OpenIE file land in a workspace. */
export interface OpenieAssignment {
  /** Chunk id → the imported entities and triples of that chunk, for every chunk of a matched document. */
  byChunk: Map<string, TripleExtraction>;
  /** Docs matched to a document that has chunks. */
  matched: number;
  /** Docs that match no document (or only one without chunks yet), in file order. */
  unmatched: OpenieDoc[];
  /** Triples and entities of the matched docs. */
  triples: number;
  entities: number;
}

/**
 * The key a passage is matched on: its text as kgrag normalizes documents, with every run of whitespace
 * as one space (HippoRAG's files and the corpus loaders differ in line breaks and trailing spaces).
 */
function passageKey(text: string): string {
  return normalizeText(text).replace(/\s+/g, ' ');
}

/**
 * Matches the docs of a HippoRAG OpenIE file to the documents of a workspace and places their triples on
 * chunks. A doc matches the document whose `title + "\n" + text` — or, for documents indexed with the title
 * already in their text (as `kgrag eval` does), whose text — equals the doc's passage, compared by
 * {@link passageKey}. A document in one chunk gets all of it; in several chunks, each triple goes to the
 * first chunk that contains both its arguments (case-insensitive), else to the document's first chunk, and
 * each entity to the first chunk that contains it, else the first.
 */
export function assignOpenieDocs(
  docs: readonly OpenieDoc[],
  documents: readonly OpenieTargetDocument[],
  chunks: readonly OpenieTargetChunk[],
): OpenieAssignment {
  const documentByKey = new Map<string, string>();
  for (const document of documents) {
    for (const key of [passageKey(`${document.title}\n${document.text}`), passageKey(document.text)]) {
      if (!documentByKey.has(key)) documentByKey.set(key, document.id);
    }
  }
  const chunksByDocument = new Map<string, OpenieTargetChunk[]>();
  for (const chunk of chunks) {
    let list = chunksByDocument.get(chunk.documentId);
    if (!list) chunksByDocument.set(chunk.documentId, (list = []));
    list.push(chunk);
  }
  for (const list of chunksByDocument.values()) list.sort((left, right) => left.ordinal - right.ordinal);
  const lowerText = new Map<string, string>();
  const lowered = (chunk: OpenieTargetChunk): string => {
    let text = lowerText.get(chunk.id);
    if (text === undefined) lowerText.set(chunk.id, (text = chunk.text.toLowerCase()));
    return text;
  };

  const assignment: OpenieAssignment = { byChunk: new Map(), matched: 0, unmatched: [], triples: 0, entities: 0 };
  const seenTriples = new Map<string, Set<string>>();
  const extractionOf = (chunkId: string): TripleExtraction => {
    let extraction = assignment.byChunk.get(chunkId);
    if (!extraction) {
      assignment.byChunk.set(chunkId, (extraction = { entities: [], triples: [] }));
      seenTriples.set(chunkId, new Set());
    }
    return extraction;
  };

  for (const doc of docs) {
    const candidates = [doc.passage];
    if (doc.title !== undefined && doc.text !== undefined) candidates.push(`${doc.title}\n${doc.text}`);
    if (doc.text !== undefined) candidates.push(doc.text);
    let documentId: string | undefined;
    for (const candidate of candidates) {
      documentId = documentByKey.get(passageKey(candidate));
      if (documentId !== undefined) break;
    }
    const own = documentId === undefined ? undefined : chunksByDocument.get(documentId);
    const first = own?.[0];
    if (!own || !first) {
      assignment.unmatched.push(doc);
      continue;
    }
    assignment.matched++;
    // Every chunk of a matched document is covered, with or without triples of its own: none is extracted.
    for (const chunk of own) extractionOf(chunk.id);
    const containing = (...parts: string[]): OpenieTargetChunk =>
      own.length === 1 ? first : (own.find((chunk) => parts.every((part) => lowered(chunk).includes(part.toLowerCase()))) ?? first);
    for (const entity of doc.entities) {
      const extraction = extractionOf(containing(entity).id);
      if (!extraction.entities.includes(entity)) extraction.entities.push(entity);
      assignment.entities++;
    }
    for (const triple of doc.triples) {
      const chunk = containing(triple[0], triple[2]);
      const extraction = extractionOf(chunk.id);
      const key = triple.join('\u0000');
      const seen = seenTriples.get(chunk.id) as Set<string>;
      if (!seen.has(key)) {
        seen.add(key);
        extraction.triples.push([...triple] as Triple);
      }
      assignment.triples++;
    }
  }
  return assignment;
}
