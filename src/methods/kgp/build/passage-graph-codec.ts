import { z } from 'zod';
import type { TermCountMatrix } from '../../../text/term-count-matrix.js';
import { passageEdgeKinds, type PassageEdgeKind, type PassageGraph } from './passage-graph.js';
import { packTypedArrays, unpackTypedArrays } from '../../../graph/typed-array-bundle.js';

/**
 * What KGP's queries need from the index in one piece: the passage graph of every kind, the term counts
 * of every passage (so TF-IDF can be fitted on any candidate set without re-tokenizing), and the chunk id
 * of each passage number.
 */
export interface PassageGraphIndex {
  /** Chunk id of passage `p` (the chunks in table order). */
  chunkIds: readonly string[];
  graph: PassageGraph;
  /** Term counts of each passage's text, rows aligned with `chunkIds`. */
  terms: TermCountMatrix;
  /** The kinds of links the graph was built with; an index written before they were chosen holds every kind. */
  kinds: readonly PassageEdgeKind[];
  /** The concepts each passage mentions (fast mode), so that an update reads the extractions of new chunks only. */
  concepts?: PassageConcepts;
}

/** The concepts of each passage: `vocabulary[ids[rowPointers[p] … rowPointers[p + 1])]`, made under `version`. */
export interface PassageConcepts {
  version: string;
  vocabulary: readonly string[];
  rowPointers: Int32Array;
  ids: Int32Array;
}

/** Format version of the bundle; a reader refuses others. */
const formatVersion = 1;

const headerSchema = z.object({
  format: z.literal('kgrag-passage-graph'),
  version: z.literal(formatVersion),
  chunkIds: z.array(z.string()),
  vocabulary: z.array(z.string()),
  kinds: z.array(z.enum(passageEdgeKinds)).optional(),
  concepts: z.object({ version: z.string(), vocabulary: z.array(z.string()) }).optional(),
});

/** Packs a {@link PassageGraphIndex} into bytes (typed arrays plus a JSON header with ids and vocabulary). */
export function encodePassageGraphIndex(index: PassageGraphIndex): Uint8Array {
  const { graph, terms, concepts } = index;
  return packTypedArrays({
    json: {
      format: 'kgrag-passage-graph',
      version: formatVersion,
      chunkIds: index.chunkIds,
      vocabulary: terms.vocabulary,
      kinds: index.kinds,
      ...(concepts ? { concepts: { version: concepts.version, vocabulary: concepts.vocabulary } } : {}),
    },
    arrays: {
      rowPointers: graph.rowPointers,
      neighbours: graph.neighbours,
      kinds: graph.kinds,
      shared: graph.shared,
      termRowPointers: terms.rowPointers,
      termIds: terms.termIds,
      termCounts: terms.counts,
      ...(concepts ? { conceptRowPointers: concepts.rowPointers, conceptIds: concepts.ids } : {}),
    },
  });
}

/** Reads what {@link encodePassageGraphIndex} wrote; throws a RangeError on anything else. */
export function decodePassageGraphIndex(bytes: Uint8Array): PassageGraphIndex {
  const { json, arrays } = unpackTypedArrays(bytes);
  const header = headerSchema.safeParse(json);
  if (!header.success) throw new RangeError(`not a version ${formatVersion} passage graph: ${header.error.issues[0]?.message ?? 'bad header'}`);
  const take = <T>(name: string, type: new (...args: never[]) => T): T => {
    const array = arrays[name];
    if (!(array instanceof type)) throw new RangeError(`passage graph: array ${name} is missing or has the wrong type`);
    return array;
  };
  const passages = header.data.chunkIds.length;
  const rowPointers = take('rowPointers', Int32Array);
  const termRowPointers = take('termRowPointers', Int32Array);
  if (rowPointers.length !== passages + 1 || termRowPointers.length !== passages + 1) throw new RangeError('passage graph: row count differs from the chunk count');
  const concepts = header.data.concepts;
  const conceptRowPointers = concepts ? take('conceptRowPointers', Int32Array) : undefined;
  if (conceptRowPointers && conceptRowPointers.length !== passages + 1) throw new RangeError('passage graph: concept rows differ from the chunk count');
  return {
    chunkIds: header.data.chunkIds,
    graph: { passages, rowPointers, neighbours: take('neighbours', Int32Array), kinds: take('kinds', Uint8Array), shared: take('shared', Uint16Array) },
    terms: { vocabulary: header.data.vocabulary, rowPointers: termRowPointers, termIds: take('termIds', Int32Array), counts: take('termCounts', Int32Array) },
    kinds: header.data.kinds ?? passageEdgeKinds,
    ...(concepts && conceptRowPointers ? { concepts: { version: concepts.version, vocabulary: concepts.vocabulary, rowPointers: conceptRowPointers, ids: take('conceptIds', Int32Array) } } : {}),
  };
}
