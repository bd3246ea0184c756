import { contentId, sha256 } from '../../../core/ids.js';
import { KgragError } from '../../../core/errors.js';
import type { Store } from '../../../store/store.js';
import type { PprConfig } from '../config.js';
import type { PipelineStep } from '../../../pipeline/pipeline-step.js';
import { rowsOf } from '../../../store/row-map.js';
import { loadTripleIndex, loadTripleIndexRemovalMaps, loadTripleVectorRows, type TripleIndexAppend, type TripleIndexRemovalRecord } from '../../../pipeline/stored-triple-index.js';
import { appendToPprGraph, assemblePprGraph, decodePprGraph, encodeAssembledPprGraph, removeFromPprGraph, type PprGraph } from './ppr-graph.js';
import type { TripleIndex } from '../../../extract/triples/triple-index.js';
import { allTripleIndexStrings, tripleIndexPhraseOrder } from '../../../extract/triples/triple-index-codec.js';
import {
  decodeSynonymState,
  encodeSynonymState,
  maxSharedWordBlock,
  synonymComputation,
  synonymyMinAlphanumeric,
  updateSynonymEdges,
  type SparseVector,
  type SynonymEdges,
  type SynonymSearch,
} from './synonym-edges.js';

/*
 * Synonym edges of HippoRAG's phrase graph (Gutiérrez et al., NeurIPS 2024 §2, "synonymy edges"; HippoRAG 2,
 * `HippoRAG.add_synonymy_edges`): every phrase node is linked to the phrase nodes whose embeddings have
 * cosine ≥ `synonymy_edge_sim_threshold` among its nearest neighbours. The relation and context edges are
 * cheap to rebuild from the triples at query time; these need an all-pairs search, so they are computed
 * once here and stored as typed arrays for the `ppr` method. Their effect is small with the local embedder,
 * as in HippoRAG's ablation (−1.7 R@5 on MuSiQue); ours is in docs/BENCHMARKS.md.
 */

/**
 * Store keys of the synonym edges (blob), the whole `ppr` graph (blob), their description (meta), the state an
 * update of the synonym edges starts from (blob, `SynonymState`) and the graph's passage ids (blob, one per line: a
 * delete finds the passages it removed in them).
 */
export const pprGraphKeys = {
  synonyms: 'ppr-graph:synonyms',
  graph: 'ppr-graph:graph',
  meta: 'ppr-graph:meta',
  synonymState: 'ppr-graph:synonym-state',
  passages: 'ppr-graph:passages',
} as const;

/** What {@link pprGraphKeys}.meta holds. */
export interface PprGraphMeta {
  /** Phrase nodes the edges index into (the triple index's phrase order). */
  phrases: number;
  /** Hash of the phrase ids in order, so a reader can tell the edges belong to its triple index. */
  phraseDigest: string;
  edges: number;
  synonymyEdgeTopk: number;
  synonymyEdgeSimThreshold: number;
  search: SynonymSearch;
  /** The embedder of the phrase vectors the edges were computed from (`VectorSpaceInfo.embedderId`). */
  embedderId?: string;
  /** {@link maxSharedWordBlock} of the computation. */
  maxSharedWordBlock?: number;
  /** The stored triple index ({@link loadTripleIndex}) the graph blob was built from. */
  tripleIndexVersion?: string;
  /** {@link passageDigest} of the chunk ids the graph blob's passage nodes are. */
  passageDigest?: string;
}

/** A digest of the chunk ids in chunks-table order. */
export function passageDigest(passageIds: readonly string[]): string {
  return sha256(passageIds.join('\n'));
}

/** The chunk ids in chunks-table order: the passage nodes of the `ppr` graph. */
async function passageIdsOf(store: Store): Promise<string[]> {
  return (await store.table('chunks').pick(['id'])).map((chunk) => chunk.id);
}

/** Builds the `ppr` graph from the triple index, the chunks and the stored synonym edges. */
export async function buildPprGraph(store: Store, triples: TripleIndex): Promise<PprGraph> {
  return assemblePprGraph(triples, await passageIdsOf(store), await loadSynonymEdges(store, triples.phraseIds));
}

/**
 * The `ppr` graph as the `ppr-graph` step stored it for the triple index of `tripleIndexVersion` and the
 * current chunks, or built from its parts when the stored one does not fit (a workspace indexed before the
 * graph was stored).
 */
export async function loadPprGraph(store: Store, triples: TripleIndex, tripleIndexVersion: string | undefined): Promise<PprGraph> {
  const passageIds = await passageIdsOf(store);
  const meta = await store.getMeta<PprGraphMeta>(pprGraphKeys.meta);
  if (tripleIndexVersion !== undefined && meta?.tripleIndexVersion === tripleIndexVersion && meta.passageDigest === passageDigest(passageIds)) {
    const blob = await store.getBlob(pprGraphKeys.graph);
    const stored = blob && decodePprGraph(blob, triples, passageIds);
    if (stored) return stored;
  }
  return assemblePprGraph(triples, passageIds, await loadSynonymEdges(store, triples.phraseIds));
}

/** The digest of a phrase-id list stored in {@link PprGraphMeta.phraseDigest}. */
export function phraseDigest(phraseIds: readonly string[]): string {
  return contentId('ppr-phrases', phraseIds.length, phraseIds);
}

/** Packs edges as one little-endian blob: count (u32), then sources, targets (i32) and weights (f32). */
function encodeSynonymEdges(edges: SynonymEdges): Uint8Array {
  const count = edges.sources.length;
  const buffer = new ArrayBuffer(4 + 12 * count);
  new Uint32Array(buffer, 0, 1)[0] = count;
  new Int32Array(buffer, 4, count).set(edges.sources);
  new Int32Array(buffer, 4 + 4 * count, count).set(edges.targets);
  new Float32Array(buffer, 4 + 8 * count, count).set(edges.weights);
  return new Uint8Array(buffer);
}

/**
 * Loads the synonym edges the `ppr-graph` step stored for the phrases `phraseIds` (the triple index's
 * order). Throws `PPR_GRAPH_STALE` when they were built for other phrases (the triples changed and the
 * step has not run since).
 */
export async function loadSynonymEdges(store: Store, phraseIds: readonly string[]): Promise<SynonymEdges> {
  const meta = await store.getMeta<PprGraphMeta>(pprGraphKeys.meta);
  const blob = await store.getBlob(pprGraphKeys.synonyms);
  if (meta === undefined || blob === undefined || meta.phrases !== phraseIds.length || meta.phraseDigest !== phraseDigest(phraseIds)) {
    throw new KgragError('the synonym edges of the ppr graph do not match the triples of the index', {
      code: 'PPR_GRAPH_STALE',
      category: 'input',
      hint: 'run `kgrag index` again so that the ppr-graph step rebuilds them',
    });
  }
  return decodeSynonymEdges(blob);
}

/** The edges of a blob written by {@link encodeSynonymEdges}. */
function decodeSynonymEdges(blob: Uint8Array): SynonymEdges {
  // Copy into an aligned buffer: a blob read from the store may start at any byte offset.
  const bytes = Uint8Array.from(blob);
  const count = new Uint32Array(bytes.buffer, 0, 1)[0] as number;
  return {
    sources: new Int32Array(bytes.buffer, 4, count),
    targets: new Int32Array(bytes.buffer, 4 + 4 * count, count),
    weights: new Float32Array(bytes.buffer, 4 + 8 * count, count),
  };
}

/**
 * Phrases up to which a neural embedder's synonyms are searched exactly. The exact kNN graph scores all n²/2
 * pairs, which past this size costs more than the rest of the step (timings: docs/BENCHMARKS.md), so larger
 * phrase sets are searched by shared word.
 */
export const exactSynonymSearchLimit = 20_000;

/**
 * The candidate search for an embedder: the weight-free `local` embedder's vectors are hashed word and
 * character n-gram features, so two phrases without a common word (stop words have no features) reach a
 * cosine of 0.8 only through hash collisions — of the 4,633 pairs at ≥ 0.8 among 2Wiki's LLM-free phrases,
 * the 381 without a common word are all such accidents ("497" / "1994", "1580" / "times") — and searching the
 * pairs that share a content word finds the other 4,252 in a fraction of the time. Other embedders place rewordings ("U.S." /
 * "United States") close without a shared word, so they are searched exactly up to
 * {@link exactSynonymSearchLimit} phrases.
 */
export function synonymSearchFor(provider: string, phrases: number): SynonymSearch {
  return provider === 'local' || phrases > exactSynonymSearchLimit ? 'shared-word' : 'exact';
}

/**
 * `ppr-graph`: the synonym edges of HippoRAG's phrase graph, from the phrase vectors of `embed-triples`, and
 * the whole `ppr` graph built with them. Written as two blobs of typed arrays (the synonym edges, and the graph
 * the `ppr` method loads instead of building it) plus a meta record naming the phrases and passages they index.
 */
export function createPprGraphStep(config: Pick<PprConfig, 'synonymyEdgeTopk' | 'synonymyEdgeSimThreshold'>): PipelineStep {
  const { synonymyEdgeTopk, synonymyEdgeSimThreshold } = config;
  return {
    name: 'ppr-graph',
    // 3: ties rank by phrase text, and the state an update starts from is stored.
    version: 3,
    reads: ['chunk', 'triples', 'embed-triples'],
    settings: (config) => ({
      synonymyEdgeTopk,
      synonymyEdgeSimThreshold,
      synonymyMinAlphanumeric,
      // The search depends on the phrase count too, which the fingerprint covers through the steps it reads.
      search: config.embeddings.provider === 'local' ? 'shared-word' : { exactUpTo: exactSynonymSearchLimit },
      maxSharedWordBlock,
    }),

    async run(context) {
      const { store } = context;
      const { index, version, appendedTo, removedFrom } = await loadTripleIndex(store);
      // Every id and text is read: decoded at once, not one by one through the stored index's lazy lists.
      const phraseIds = allTripleIndexStrings(index, 'phraseIds');
      const phraseTexts = allTripleIndexStrings(index, 'phraseTexts');
      const info = await store.vectors('phrases').info();
      const storedRows = await loadTripleVectorRows(store, version);
      // The whole space, not `load(ids)`: selecting tens of thousands of ids costs seconds, and the space holds the phrases only.
      const loaded = await store.vectors('phrases').loadSparse();
      // The row map `embed-triples` stored, when it is of the space as loaded: matching every id costs more than the rest of the loop.
      const phraseOfRow =
        storedRows !== undefined && info !== undefined && storedRows.phrases.revision === info.revision && storedRows.phrases.rows.length === loaded.ids.length
          ? storedRows.phrases.rows
          : rowsOf(loaded.ids, phraseIds);
      const vectors: Array<SparseVector | null> = phraseIds.map(() => null);
      let withVector = 0;
      phraseOfRow.forEach((phrase, row) => {
        if (phrase < 0) return;
        const start = loaded.rowPointers[row] as number;
        const end = loaded.rowPointers[row + 1] as number;
        vectors[phrase] = { dimensions: loaded.dimensions, columns: loaded.columnIndices.subarray(start, end), values: loaded.values.subarray(start, end) };
        withVector++;
      });
      context.progress(0, 1, 'synonym search');
      const search = synonymSearchFor(context.config.embeddings.provider, withVector);
      const options = { topK: synonymyEdgeTopk, threshold: synonymyEdgeSimThreshold, search };
      const embedderId = info?.embedderId;
      const previous = await previousSynonymState(store, { ...options, embedderId });
      const updated = previous && updateSynonymEdges(phraseTexts, vectors, options, previous, tripleIndexPhraseOrder(index));
      const { edges, state } = updated ?? (await synonymComputation(phraseTexts, vectors, options));
      context.progress(1, 1, 'synonym search');
      const passageIds = await passageIdsOf(store);
      const appended = appendedTo && (await appendedGraph(store, appendedTo, index, passageIds, edges));
      const removedGraph = !appended && removedFrom ? await graphRemovedFrom(store, removedFrom, index, passageIds, edges) : undefined;
      const graph = appended ?? removedGraph ?? encodeAssembledPprGraph(index, passageIds, edges);
      const meta: PprGraphMeta = {
        phrases: phraseIds.length,
        phraseDigest: phraseDigest(phraseIds),
        edges: edges.sources.length,
        synonymyEdgeTopk,
        synonymyEdgeSimThreshold,
        search,
        ...(embedderId === undefined ? {} : { embedderId }),
        maxSharedWordBlock,
        ...(version === undefined ? {} : { tripleIndexVersion: version }),
        passageDigest: passageDigest(passageIds),
      };
      const blob = encodeSynonymEdges(edges);
      const stateBlob = encodeSynonymState(state);
      return {
        counts: {
          phrases: meta.phrases,
          synonymEdges: meta.edges,
          withoutVector: phraseIds.length - withVector,
          exactSearch: search === 'exact' ? 1 : 0,
          updated: updated ? 1 : 0,
          searchedPhrases: updated ? updated.searched : state.texts.length,
          graphAppended: appended ? 1 : 0,
          graphRemovedFrom: removedGraph ? 1 : 0,
        },
        outputVersion: contentId('ppr-graph', meta.phraseDigest, sha256(blob)),
        async write(tx) {
          await tx.setBlob(pprGraphKeys.synonyms, blob);
          await tx.setBlob(pprGraphKeys.graph, graph);
          await tx.setBlob(pprGraphKeys.synonymState, stateBlob);
          await tx.setBlob(pprGraphKeys.passages, Buffer.from(passageIds.join('\n'), 'utf8'));
          await tx.setMeta(pprGraphKeys.meta, meta);
        },
      };
    },
  };
}

/**
 * The graph of an index appended to (`appendedTo`) made from the stored graph of the index before, when that is what
 * is stored (see `appendToPprGraph`); undefined otherwise.
 */
async function appendedGraph(store: Store, appendedTo: TripleIndexAppend, index: TripleIndex, passageIds: readonly string[], synonyms: SynonymEdges): Promise<Uint8Array | undefined> {
  const meta = await store.getMeta<PprGraphMeta>(pprGraphKeys.meta);
  if (meta?.tripleIndexVersion !== appendedTo.version || meta.phrases !== appendedTo.phrases || meta.passageDigest === undefined || typeof appendedTo.chunks !== 'number') return undefined;
  const [graph, stored] = await Promise.all([store.getBlob(pprGraphKeys.graph), store.getBlob(pprGraphKeys.synonyms)]);
  if (graph === undefined || stored === undefined) return undefined;
  const before = {
    facts: appendedTo.facts,
    chunks: appendedTo.chunks,
    synonyms: decodeSynonymEdges(stored),
    passagesFit: (count: number) => passageDigest(passageIds.slice(0, count)) === meta.passageDigest,
  };
  return appendToPprGraph(graph, index, passageIds, before, synonyms);
}

/**
 * The graph of an index that a delete removed chunks from (`removedFrom`) made from the stored graph of the index
 * before, when that is what is stored (see `removeFromPprGraph`); undefined otherwise.
 */
async function graphRemovedFrom(store: Store, removedFrom: TripleIndexRemovalRecord, index: TripleIndex, passageIds: readonly string[], synonyms: SynonymEdges): Promise<Uint8Array | undefined> {
  const meta = await store.getMeta<PprGraphMeta>(pprGraphKeys.meta);
  if (meta?.tripleIndexVersion !== removedFrom.version || meta.phrases !== removedFrom.phrases || meta.passageDigest === undefined) return undefined;
  const [graph, stored, passagesBlob, maps] = await Promise.all([
    store.getBlob(pprGraphKeys.graph),
    store.getBlob(pprGraphKeys.synonyms),
    store.getBlob(pprGraphKeys.passages),
    loadTripleIndexRemovalMaps(store, removedFrom),
  ]);
  if (graph === undefined || stored === undefined || passagesBlob === undefined || maps === undefined) return undefined;
  const text = Buffer.from(passagesBlob.buffer, passagesBlob.byteOffset, passagesBlob.byteLength).toString('utf8');
  const oldPassageIds = text.length === 0 ? [] : text.split('\n');
  if (passageDigest(oldPassageIds) !== meta.passageDigest) return undefined;
  return removeFromPprGraph(graph, index, passageIds, { phrases: maps.phrases, passageIds: oldPassageIds, synonyms: decodeSynonymEdges(stored) }, synonyms);
}

/**
 * The stored state of the last synonym computation, when it was made with these options from vectors of the same
 * embedder (a refit of the local embedder names a new one, and every vector is new): an update may start from it.
 */
async function previousSynonymState(store: Store, current: { topK: number; threshold: number; search: SynonymSearch; embedderId: string | undefined }) {
  const meta = await store.getMeta<PprGraphMeta>(pprGraphKeys.meta);
  if (
    meta === undefined ||
    current.embedderId === undefined ||
    meta.embedderId !== current.embedderId ||
    meta.search !== current.search ||
    meta.synonymyEdgeTopk !== current.topK ||
    meta.synonymyEdgeSimThreshold !== current.threshold ||
    meta.maxSharedWordBlock !== maxSharedWordBlock
  ) {
    return undefined;
  }
  const blob = await store.getBlob(pprGraphKeys.synonymState);
  return blob === undefined ? undefined : decodeSynonymState(blob);
}
