import { sha256 } from '../../../core/ids.js';
import { encodePassageGraphIndex } from './passage-graph-codec.js';
import { buildPassageGraph, passageEdgeBit, passageEdgeKinds, type PassageGraph } from './passage-graph.js';
import { knnGraphBySize } from '../../../math/knn-graph-by-size.js';
import { englishStopwords } from '../../../text/stopwords.js';
import { countTerms } from '../../../text/term-count-matrix.js';
import { topTfidfTerms } from '../../../text/top-tfidf-terms.js';
import type { PipelineStep, StepName } from '../../../pipeline/pipeline-step.js';
import type { KgpConfig } from '../config.js';
import { matrixInRowOrder } from '../../../store/matrix-in-row-order.js';

/** Store blob holding the passage graphs, term counts and chunk ids (`decodePassageGraphIndex` reads it). */
export const passageGraphBlobKey = 'passage-graph';

/** How the passage graphs are built: the index settings of `kgp` (see `kgpConfig`). */
export type PassageGraphSettings = Pick<KgpConfig, 'knnK' | 'maxPassagesPerTerm' | 'keywordsPerPassage' | 'maxGroupClique'>;

const isNumber = /^\p{N}+$/u;

/**
 * `passage-graph` (KGP, Wang et al. AAAI'24; YuWVandy/KG-LLM-MDQA `Data-Collect/graph_construct.py`): passage graphs over every
 * chunk — kNN on the chunk embeddings (KNN-ST; exact up to `index.knn.exactUpTo` chunks, 50,000 by default, NN-descent above), shared entities of the index's graph (the TAGME analogue;
 * `graphStep` is the step that wrote the entities: nlp-extract in fast mode, summarize in standard mode),
 * shared top TF-IDF keywords (the TF-IDF graph) and structure (passages of one document or one title,
 * KGP's title keyword) — merged into one CSR whose entries carry the bits of the kinds that link them. The
 * term counts of every passage are stored too, so queries fit TF-IDF on any candidate set without
 * re-tokenizing. Everything lands in one blob ({@link passageGraphBlobKey}).
 */
export function createPassageGraphStep(graphStep: StepName, config: PassageGraphSettings, knnGraphOptions: { exactUpTo?: number | undefined } = {}): PipelineStep {
  const passageGraphSettings: PassageGraphSettings = {
    knnK: config.knnK,
    maxPassagesPerTerm: config.maxPassagesPerTerm,
    keywordsPerPassage: config.keywordsPerPassage,
    maxGroupClique: config.maxGroupClique,
  };
  // Only when set, so that an index built with the default keeps its settings and is not rebuilt.
  const { exactUpTo } = knnGraphOptions;
  const settings = exactUpTo === undefined ? passageGraphSettings : { ...passageGraphSettings, knnExactUpTo: exactUpTo };
  return {
    name: 'passage-graph',
    version: 1,
    reads: ['embed-chunks', graphStep],
    settings: () => settings,

    async run(context) {
      const { store } = context;
      const [chunks, documents, entities, loaded] = await Promise.all([
        store.table('chunks').pick(['id', 'documentId', 'ordinal', 'text']),
        store.table('documents').pick(['id', 'title']),
        store.table('entities').pick(['chunkIds']),
        store.vectors('chunks').load(),
      ]);
      const passages = chunks.length;
      const indexOf = new Map(chunks.map((chunk, index) => [chunk.id, index]));

      // Vectors in chunk order; a chunk without a vector (none after embed-chunks) has a zero row and no kNN links worth keeping.
      const dimensions = loaded.dimensions;
      const vectors = matrixInRowOrder(loaded, chunks.map((chunk) => chunk.id));
      const knn = passages > 1 && dimensions > 0 ? await knnGraphBySize({ rows: passages, cols: dimensions, data: vectors }, Math.min(passageGraphSettings.knnK, passages - 1), { exactUpTo, signal: context.signal }) : undefined;
      context.progress(1, 4, 'graphs');

      const entityPassages = entities.map((entity) => entity.chunkIds.flatMap((chunkId) => indexOf.get(chunkId) ?? []));
      const terms = countTerms(chunks.map((chunk) => chunk.text));
      const keywordsOf = topTfidfTerms(terms, passageGraphSettings.keywordsPerPassage, (term) => englishStopwords.has(term) || isNumber.test(term));
      const keywordPassages = new Map<number, number[]>();
      keywordsOf.forEach((keywords, passage) => {
        for (const keyword of keywords) {
          const members = keywordPassages.get(keyword);
          if (members) members.push(passage);
          else keywordPassages.set(keyword, [passage]);
        }
      });
      context.progress(2, 4, 'graphs');

      // One structural group per document title (KGP's title keyword), untitled documents on their own;
      // members in reading order: documents as they were chunked, chunks by ordinal.
      const titleOf = new Map(documents.map((document) => [document.id, document.title.trim().toLowerCase()]));
      const documentOrder = new Map<string, number>();
      const groups = new Map<string, number[]>();
      chunks.forEach((chunk, index) => {
        if (!documentOrder.has(chunk.documentId)) documentOrder.set(chunk.documentId, documentOrder.size);
        const title = titleOf.get(chunk.documentId) ?? '';
        const key = title === '' ? `document:${chunk.documentId}` : `title:${title}`;
        const members = groups.get(key);
        if (members) members.push(index);
        else groups.set(key, [index]);
      });
      const readingOrder = (left: number, right: number): number => {
        const a = chunks[left] as (typeof chunks)[number];
        const b = chunks[right] as (typeof chunks)[number];
        return (documentOrder.get(a.documentId) as number) - (documentOrder.get(b.documentId) as number) || a.ordinal - b.ordinal || left - right;
      };
      const structuralGroups = [...groups.values()].filter((members) => members.length > 1).map((members) => members.sort(readingOrder));

      const graph = buildPassageGraph(
        { passages, ...(knn ? { knn } : {}), entityPassages, keywordPassages: [...keywordPassages.values()], groups: structuralGroups },
        { maxPassagesPerTerm: passageGraphSettings.maxPassagesPerTerm, maxGroupClique: passageGraphSettings.maxGroupClique },
      );
      context.progress(3, 4, 'graphs');
      const bytes = encodePassageGraphIndex({ chunkIds: chunks.map((chunk) => chunk.id), graph, terms });
      context.progress(4, 4, 'graphs');
      const cappedEntities = entityPassages.filter((members) => new Set(members).size > passageGraphSettings.maxPassagesPerTerm).length;
      return {
        counts: { passages, links: graph.neighbours.length, ...linksByKind(graph), hubEntitiesSkipped: cappedEntities, terms: terms.vocabulary.length, approximateKnn: knn?.exact === false ? 1 : 0 },
        outputVersion: sha256(bytes).slice(0, 32),
        async write(tx) {
          await tx.setBlob(passageGraphBlobKey, bytes);
        },
      };
    },
  };
}

/** Directed links of each kind (`knnLinks`, `entityLinks`, …), for the run record. */
function linksByKind(graph: PassageGraph): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of passageEdgeKinds) {
    const bit = passageEdgeBit[kind];
    let links = 0;
    for (const kinds of graph.kinds) if ((kinds & bit) !== 0) links++;
    counts[`${kind}Links`] = links;
  }
  return counts;
}
