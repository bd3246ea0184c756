import { KgragError } from '../../../core/errors.js';
import { sha256 } from '../../../core/ids.js';
import { decodePassageGraphIndex, encodePassageGraphIndex, type PassageConcepts, type PassageGraphIndex } from './passage-graph-codec.js';
import { updateTermCounts } from './update-term-counts.js';
import { buildPassageGraph, passageEdgeBit, passageEdgeKinds, type PassageEdgeKind, type PassageGraph } from './passage-graph.js';
import type { KnnGraph } from '../../../math/knn-graph.js';
import type { ChunkKnnGraph } from '../../../pipeline/steps/chunk-knn-graph-codec.js';
import { chunkKnnArtifact, readChunkKnn } from '../../../pipeline/steps/chunk-knn-step.js';
import { knnGraphOfRows } from '../../../pipeline/steps/knn-graph-of-rows.js';
import { englishStopwords } from '../../../text/stopwords.js';
import { countTerms, type TermCountMatrix } from '../../../text/term-count-matrix.js';
import { topTfidfTerms } from '../../../text/top-tfidf-terms.js';
import type { PipelineStep, StepName } from '../../../pipeline/pipeline-step.js';
import { nounPhraseExtractor } from '../../../pipeline/steps/nlp-extract-step.js';
import { nounPhraseExtractorVersion, type PhraseExtraction } from '../../../extract/nlp-graph/noun-phrase-extractor.js';
import { phraseEntityId } from '../../../extract/nlp-graph/build-noun-graph.js';
import type { Store } from '../../../store/store.js';
import type { KgpConfig } from '../config.js';
import { positionsOf } from '../../../core/positions-of.js';

/** Store blob holding the passage graphs, term counts and chunk ids (`decodePassageGraphIndex` reads it). */
export const passageGraphBlobKey = 'passage-graph';

/**
 * Meta key naming how the stored blob's term counts were made: an update reuses them only under the same
 * {@link termCountsVersion}, which changes with the tokenizer of `countTerms`.
 */
const termCountsKey = 'passage-graph:term-counts';
const termCountsVersion = 'sklearn-word-tokens:1';

/** How the passage graphs are built: the index settings of `kgp` (see `kgpConfig`), with the kinds it builds. */
export type PassageGraphSettings = Pick<KgpConfig, 'knnK' | 'maxPassagesPerTerm' | 'keywordsPerPassage' | 'maxGroupClique'> & { graphs: readonly PassageEdgeKind[] };

const isNumber = /^\p{N}+$/u;

/**
 * `passage-graph` (KGP, Wang et al. AAAI'24; YuWVandy/KG-LLM-MDQA `Data-Collect/graph_construct.py`): passage graphs over every
 * chunk, of the kinds in `config.graphs` (`builtPassageGraphs`: those a query of the configuration traverses) — kNN on
 * the chunk embeddings (KNN-ST: the first `knnK` of each row of the index's shared chunk kNN graph, `chunk-knn`, which
 * AutoKG reads too), shared entities of the index's graph (the TAGME analogue; `graphStep` is the step that wrote the
 * entities: nlp-extract in fast mode, summarize in standard mode; in fast mode also the concepts of its extractions,
 * {@link conceptPassages}), shared top TF-IDF keywords (the TF-IDF graph) and
 * structure (passages of one document or one title, KGP's title keyword) — merged into one CSR whose entries carry
 * the bits of the kinds that link them. The term counts of every passage are stored too, so queries fit TF-IDF on any
 * candidate set without re-tokenizing. Everything lands in one blob ({@link passageGraphBlobKey}), which names the
 * kinds it holds, so that a query asking for another says so. An update counts the terms of new chunks only, and
 * takes the others' from the stored blob (the same counts as counting all).
 */
export function createPassageGraphStep(graphStep: StepName, config: PassageGraphSettings): PipelineStep {
  const graphs = passageEdgeKinds.filter((kind) => config.graphs.includes(kind));
  const withKnn = graphs.includes('knn');
  const withKeywords = graphs.includes('keyword');
  // A setting of a kind not built does not change the output, so it stays out of the fingerprint.
  const settings = {
    graphs,
    ...(withKnn ? { knnK: config.knnK } : {}),
    maxPassagesPerTerm: config.maxPassagesPerTerm,
    ...(withKeywords ? { keywordsPerPassage: config.keywordsPerPassage } : {}),
    maxGroupClique: config.maxGroupClique,
  };
  return {
    name: 'passage-graph',
    // 2: only the kinds `graphs` names; kNN links from the shared chunk-knn graph. 3: concepts of fast mode's extractions link too.
    version: 3,
    // The chunks always; the entity graph and the kNN graph only for the kinds built from them.
    reads: ['chunk', ...(graphs.includes('entity') ? [graphStep] : []), ...(withKnn ? (['chunk-knn'] as const) : [])],
    ...(withKnn ? { consumes: [{ artifact: chunkKnnArtifact, params: { k: config.knnK } }] } : {}),
    settings: () => settings,

    async run(context) {
      const { store } = context;
      const [chunks, documents, entities, shared, stored, storedTermCounts] = await Promise.all([
        // Texts only of the chunks whose terms are counted (termCountsOf), not of every chunk.
        store.table('chunks').pick(['id', 'documentId', 'ordinal']),
        store.table('documents').pick(['id', 'title']),
        graphs.includes('entity') ? store.table('entities').pick(['id', 'chunkIds']) : [],
        withKnn ? readChunkKnn(store) : undefined,
        store.getBlob(passageGraphBlobKey),
        store.getMeta<string>(termCountsKey),
      ]);
      const passages = chunks.length;
      const indexOf = new Map(chunks.map((chunk, index) => [chunk.id, index]));
      const knn = shared ? knnOfPassages(shared, chunks.map((chunk) => chunk.id), config.knnK) : undefined;
      context.progress(1, 4, 'graphs');

      const previous = readStored(stored);
      const conceptsRead = graphs.includes('entity') && graphStep === 'nlp-extract' ? await conceptsOf(store, chunks, previous) : undefined;
      const concepts = conceptsRead?.concepts;
      const entityIds = new Set(entities.map((entity) => entity.id));
      const entityPassages = entities.map((entity) => entity.chunkIds.flatMap((chunkId) => indexOf.get(chunkId) ?? [])).concat(concepts ? conceptPassages(concepts, entityIds) : []);
      const { terms, countedPassages } = await termCountsOf(chunks, storedTermCounts === termCountsVersion ? previous : undefined, async (ids) => {
        const rows = ids.length === chunks.length ? await store.table('chunks').pick(['id', 'text']) : await store.table('chunks').pick(['id', 'text'], { column: 'id', values: ids });
        return new Map(rows.map((chunk) => [chunk.id, chunk.text]));
      });
      const keywordsOf = withKeywords ? topTfidfTerms(terms, config.keywordsPerPassage, (term) => englishStopwords.has(term) || isNumber.test(term)) : [];
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
      if (graphs.includes('structural')) chunks.forEach((chunk, index) => {
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
        { maxPassagesPerTerm: config.maxPassagesPerTerm, maxGroupClique: config.maxGroupClique },
      );
      context.progress(3, 4, 'graphs');
      const bytes = encodePassageGraphIndex({ chunkIds: chunks.map((chunk) => chunk.id), graph, terms, kinds: graphs, ...(concepts ? { concepts } : {}) });
      context.progress(4, 4, 'graphs');
      const cappedEntities = entityPassages.filter((members) => new Set(members).size > config.maxPassagesPerTerm).length;
      return {
        counts: {
          passages,
          links: graph.neighbours.length,
          ...linksByKind(graph),
          hubEntitiesSkipped: cappedEntities,
          terms: terms.vocabulary.length,
          countedPassages,
          ...(conceptsRead ? { concepts: conceptsRead.concepts.vocabulary.length, conceptPassagesRead: conceptsRead.read } : {}),
          approximateKnn: shared?.exact === false ? 1 : 0,
        },
        outputVersion: sha256(bytes).slice(0, 32),
        async write(tx) {
          await tx.setBlob(passageGraphBlobKey, bytes);
          await tx.setMeta(termCountsKey, termCountsVersion);
        },
      };
    },
  };
}

/**
 * The term counts of every chunk's text: those of the stored passage graph for the chunks it holds (a chunk id names
 * its text), counted only for the others (`updateTermCounts`, the same counts as counting all). A stored graph that
 * cannot be read is counted afresh.
 */
async function termCountsOf(
  chunks: ReadonlyArray<{ id: string }>,
  previous: PassageGraphIndex | undefined,
  textsOf: (ids: readonly string[]) => Promise<Map<string, string>>,
): Promise<{ terms: TermCountMatrix; countedPassages: number }> {
  if (previous === undefined) {
    const texts = await textsOf(chunks.map((chunk) => chunk.id));
    return { terms: countTerms(chunks.map((chunk) => texts.get(chunk.id) ?? '')), countedPassages: chunks.length };
  }
  const rowOf = positionsOf(previous.chunkIds);
  const previousRowOf = Int32Array.from(chunks, (chunk) => rowOf.get(chunk.id) ?? -1);
  const texts = await textsOf(chunks.flatMap((chunk, row) => (previousRowOf[row] === -1 ? [chunk.id] : [])));
  return { terms: updateTermCounts(previous.terms, previousRowOf, (row) => texts.get((chunks[row] as { id: string }).id) ?? ''), countedPassages: previousRowOf.filter((row) => row < 0).length };
}

/**
 * The kNN links of the passages (chunks in table order) from the shared chunk kNN graph: the first `k` of each row,
 * which on the exact graph is the exact k-NN graph (ties by chunk order, as the shared graph ranks them).
 */
function knnOfPassages(shared: ChunkKnnGraph, chunkIds: readonly string[], k: number): KnnGraph | undefined {
  if (shared.graph.k === 0) return undefined;
  const rowOf = positionsOf(shared.chunkIds);
  const rows = Int32Array.from(chunkIds, (id) => rowOf.get(id) ?? -1);
  if (rows.some((row) => row < 0) || rows.length !== shared.chunkIds.length) {
    throw new KgragError('the shared chunk kNN graph holds other chunks than the index', { code: 'PIPELINE_UNKNOWN_STEP', category: 'internal', hint: 'run kgrag index again' });
  }
  return knnGraphOfRows(shared.graph, rows, k)?.graph;
}

/** Directed links of each kind (`knnLinks`, `entityLinks`, …), for the run record. */
function linksByKind(graph: PassageGraph): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of passageEdgeKinds) {
    const bit = passageEdgeBit[kind];
    let links = 0;
    for (let entry = 0; entry < graph.kinds.length; entry++) if (((graph.kinds[entry] as number) & bit) !== 0) links++;
    counts[`${kind}Links`] = links;
  }
  return counts;
}

/** The stored passage graph, or undefined when there is none or it cannot be read (everything is then built afresh). */
function readStored(stored: Uint8Array | undefined): PassageGraphIndex | undefined {
  try {
    return stored === undefined ? undefined : decodePassageGraphIndex(stored);
  } catch {
    return undefined;
  }
}

/** Which extractions the stored concepts were read from: another extractor version reads them all again. */
const conceptsVersion = `noun-phrases:${nounPhraseExtractorVersion}`;

/**
 * The concepts each chunk mentions: the keys of the common noun phrases of its stored extraction (nlp-extract's, in
 * fast mode). A chunk the stored graph holds keeps its row (a chunk id names its text, and so its extraction); only
 * the others' extractions are read, so an update reads its new chunks', not the corpus's.
 */
async function conceptsOf(store: Store, chunks: ReadonlyArray<{ id: string }>, previous: PassageGraphIndex | undefined): Promise<{ concepts: PassageConcepts; read: number }> {
  const stored = previous?.concepts?.version === conceptsVersion ? previous.concepts : undefined;
  const rowOf = new Map(stored ? (previous as PassageGraphIndex).chunkIds.map((id, row) => [id, row]) : []);
  const readIds = chunks.filter((chunk) => !rowOf.has(chunk.id)).map((chunk) => chunk.id);
  const version = String(nounPhraseExtractorVersion);
  const read = new Map<string, string[]>();
  if (readIds.length > 0) {
    for (const record of await store.table('extractions').where('chunkId', readIds)) {
      if (record.extractor !== nounPhraseExtractor || record.promptHash !== version) continue;
      const keys = (record.parsed as PhraseExtraction).mentions.filter((mention) => mention.kind === 'phrase').map((mention) => mention.key);
      read.set(record.chunkId, [...new Set(keys)]);
    }
  }
  const vocabulary: string[] = [];
  const idOf = new Map<string, number>();
  const rowPointers = new Int32Array(chunks.length + 1);
  const ids: number[] = [];
  chunks.forEach((chunk, passage) => {
    const row = rowOf.get(chunk.id);
    const keys = row === undefined || stored === undefined ? (read.get(chunk.id) ?? []) : Array.from(stored.ids.subarray(stored.rowPointers[row], stored.rowPointers[row + 1]), (id) => stored.vocabulary[id] as string);
    for (const key of keys) {
      let id = idOf.get(key);
      if (id === undefined) {
        id = vocabulary.length;
        idOf.set(key, id);
        vocabulary.push(key);
      }
      ids.push(id);
    }
    rowPointers[passage + 1] = ids.length;
  });
  return { concepts: { version: conceptsVersion, vocabulary, rowPointers, ids: Int32Array.from(ids) }, read: readIds.length };
}

/**
 * The passages of each concept (a common noun phrase: "alternative rock band", "film director") found in more than
 * one passage, besides the graph's entities (`entityIds`: a phrase the graph kept links through its entity already).
 * TAGME annotates such concepts as Wikipedia entities, and
 * KGP's passages share them across a comparison question's two subjects; the fast entity graph keeps a common phrase
 * only where a passage repeats it (`extract.nlp.minPhraseRepeats`), which is right for what a person browses but would
 * cut these links. Hubs are left to `maxPassagesPerTerm`.
 */
function conceptPassages(concepts: PassageConcepts, entityIds: ReadonlySet<string>): number[][] {
  const members: number[][] = concepts.vocabulary.map(() => []);
  for (let passage = 0; passage + 1 < concepts.rowPointers.length; passage++) {
    for (let entry = concepts.rowPointers[passage] as number; entry < (concepts.rowPointers[passage + 1] as number); entry++) {
      (members[concepts.ids[entry] as number] as number[]).push(passage);
    }
  }
  return members.filter((passages, id) => passages.length > 1 && !entityIds.has(phraseEntityId(concepts.vocabulary[id] as string)));
}
