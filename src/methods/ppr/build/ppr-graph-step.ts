import { contentId, sha256 } from '../../../core/ids.js';
import { KgragError } from '../../../core/errors.js';
import { createDenseMatrix } from '../../../math/dense-vectors.js';
import { exactKnnGraph } from '../../../math/exact-knn-graph.js';
import type { Store } from '../../../store/store.js';
import { englishStopwords } from '../../../text/stopwords.js';
import type { PprConfig } from '../config.js';
import type { PipelineStep } from '../../../pipeline/pipeline-step.js';
import { rowsOf } from '../../../store/row-map.js';
import { loadTripleIndex } from '../../../pipeline/stored-triple-index.js';
import { assemblePprGraph, decodePprGraph, encodePprGraph, type PprGraph } from './ppr-graph.js';
import type { TripleIndex } from '../../../extract/triples/triple-index.js';

/*
 * Synonym edges of HippoRAG's phrase graph (Gutiérrez et al., NeurIPS 2024 §2, "synonymy edges"; HippoRAG 2,
 * `HippoRAG.add_synonymy_edges`): every phrase node is linked to the phrase nodes whose embeddings have
 * cosine ≥ `synonymy_edge_sim_threshold` among its nearest neighbours. The relation and context edges are
 * cheap to rebuild from the triples at query time; these need an all-pairs search, so they are computed
 * once here and stored as typed arrays for the `ppr` method. Their effect is small with the local embedder,
 * as in HippoRAG's ablation (−1.7 R@5 on MuSiQue); ours is in docs/BENCHMARKS.md.
 */

/** HippoRAG 2 links only phrases with more than 2 letters or digits (`len(re.sub('[^A-Za-z0-9]', '', entity)) > 2`). */
export const synonymyMinAlphanumeric = 3;

/** Store keys of the synonym edges (blob), the whole `ppr` graph (blob) and their description (meta). */
export const pprGraphKeys = { synonyms: 'ppr-graph:synonyms', graph: 'ppr-graph:graph', meta: 'ppr-graph:meta' } as const;

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

/** Undirected synonym edges between phrase indices, `source < target`, sorted by (source, target). */
export interface SynonymEdges {
  sources: Int32Array;
  targets: Int32Array;
  /** Cosine similarity of the two phrases. */
  weights: Float32Array;
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
  // Copy into an aligned buffer: a blob read from the store may start at any byte offset.
  const bytes = Uint8Array.from(blob);
  const count = new Uint32Array(bytes.buffer, 0, 1)[0] as number;
  return {
    sources: new Int32Array(bytes.buffer, 4, count),
    targets: new Int32Array(bytes.buffer, 4 + 4 * count, count),
    weights: new Float32Array(bytes.buffer, 4 + 8 * count, count),
  };
}

/** Letters and digits of a normalized phrase (HippoRAG counts ASCII ones; Unicode-aware here, as normalizePhrase). */
function alphanumericLength(text: string): number {
  return text.replace(/[^\p{L}\p{N}]/gu, '').length;
}

/** How candidate pairs are found: every pair (an exact kNN graph), or the pairs of phrases sharing a content word. */
export type SynonymSearch = 'exact' | 'shared-word';

/**
 * Phrases up to which a neural embedder's synonyms are searched exactly. The exact kNN graph scores all n²/2
 * pairs, which past this size costs more than the rest of the step (timings: docs/BENCHMARKS.md), so larger
 * phrase sets are searched by shared word.
 */
export const exactSynonymSearchLimit = 20_000;

/**
 * Words shared by more phrases than this do not form a candidate block: scoring a block costs its size
 * squared (4,096 phrases: 1.7·10¹⁰ multiply-adds at 1024 dimensions), and a word that common
 * ("film", "american" in 2Wiki have 2,128 and 774) says little about synonymy.
 */
export const maxSharedWordBlock = 4096;

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

/** Options of {@link computeSynonymEdges}. */
export interface SynonymEdgeOptions {
  /** Synonyms kept per phrase at most, best first (HippoRAG 2's neighbour list). */
  topK: number;
  threshold: number;
  search: SynonymSearch;
}

/**
 * Computes the synonym edges of phrases with unit `vectors` (row i = phrase i, `null` when it has none):
 * phrase i links to each of its `topK` most similar phrases with cosine ≥ `threshold`; both ends need more
 * than two letters or digits. The phrases are distinct after normalization, so no pair of equal phrases
 * occurs. Ties rank by lower phrase index, so the edges depend only on the vectors.
 */
export async function computeSynonymEdges(texts: readonly string[], vectors: ReadonlyArray<Float32Array | SparseVector | null>, options: SynonymEdgeOptions): Promise<SynonymEdges> {
  const rows: number[] = [];
  for (let phrase = 0; phrase < texts.length; phrase++) {
    if (vectors[phrase] && alphanumericLength(texts[phrase] as string) >= synonymyMinAlphanumeric) rows.push(phrase);
  }
  const first = rows.length === 0 ? undefined : vectors[rows[0] as number];
  const dimensions = first === undefined || first === null ? 0 : first instanceof Float32Array ? first.length : first.dimensions;
  // Each row's neighbours at or above the threshold, as (row, similarity) pairs.
  const neighbours: Array<Array<[number, number]>> = rows.map(() => []);
  if (options.search === 'exact') {
    const matrix = createDenseMatrix(rows.length, dimensions);
    rows.forEach((phrase, row) => {
      const vector = vectors[phrase] as Float32Array | SparseVector;
      if (vector instanceof Float32Array) matrix.data.set(vector, row * dimensions);
      else vector.columns.forEach((coordinate, entry) => (matrix.data[row * dimensions + coordinate] = vector.values[entry] as number));
    });
    const k = Math.min(options.topK, Math.max(0, rows.length - 1));
    const graph = await exactKnnGraph(matrix, k);
    for (let row = 0; row < rows.length; row++) {
      for (let slot = row * k; slot < row * k + k; slot++) {
        const similarity = graph.similarities[slot] as number;
        const neighbour = graph.indices[slot] as number;
        // Lists are sorted best first: the first neighbour below the threshold ends the row, as in HippoRAG 2.
        if (neighbour < 0 || !(similarity >= options.threshold)) break;
        (neighbours[row] as Array<[number, number]>).push([neighbour, similarity]);
      }
    }
  } else if (rows.length > 1) {
    sharedWordNeighbours(
      rows.map((phrase) => texts[phrase] as string),
      sparseRowsOf(rows.map((phrase) => vectors[phrase] as Float32Array | SparseVector), dimensions),
      options.threshold,
      neighbours,
    );
  }
  const pairs = new Set<number>();
  const edges: Array<[number, number, number]> = [];
  neighbours.forEach((list, row) => {
    list.sort((left, right) => right[1] - left[1] || left[0] - right[0]);
    for (const [neighbour, similarity] of list.slice(0, options.topK)) {
      const a = rows[Math.min(row, neighbour)] as number;
      const b = rows[Math.max(row, neighbour)] as number;
      const key = a * texts.length + b;
      if (pairs.has(key)) continue;
      pairs.add(key);
      edges.push([a, b, similarity]);
    }
  });
  edges.sort((left, right) => left[0] - right[0] || left[1] - right[1]);
  return {
    sources: Int32Array.from(edges, (edge) => edge[0]),
    targets: Int32Array.from(edges, (edge) => edge[1]),
    weights: Float32Array.from(edges, (edge) => edge[2]),
  };
}

/** One vector as its non-zero coordinates (ascending) and their values. */
export interface SparseVector {
  dimensions: number;
  columns: Int32Array;
  values: Float32Array;
}

/** Vectors as compressed sparse rows: row i's non-zero coordinates (ascending) and values at `pointers[i]…`. */
interface SparseVectors {
  dimensions: number;
  pointers: Int32Array;
  columns: Int32Array;
  values: Float32Array;
}

function sparseRowsOf(vectors: ReadonlyArray<Float32Array | SparseVector>, dimensions: number): SparseVectors {
  const sparse = vectors.map((vector) => (vector instanceof Float32Array ? sparseVectorOf(vector) : vector));
  const pointers = new Int32Array(sparse.length + 1);
  sparse.forEach((vector, row) => (pointers[row + 1] = (pointers[row] as number) + vector.columns.length));
  const columns = new Int32Array(pointers[sparse.length] as number);
  const values = new Float32Array(columns.length);
  sparse.forEach((vector, row) => {
    columns.set(vector.columns, pointers[row] as number);
    values.set(vector.values, pointers[row] as number);
  });
  return { dimensions, pointers, columns, values };
}

function sparseVectorOf(vector: Float32Array): SparseVector {
  const columns: number[] = [];
  const values: number[] = [];
  vector.forEach((value, coordinate) => {
    if (value === 0) return;
    columns.push(coordinate);
    values.push(value);
  });
  return { dimensions: vector.length, columns: Int32Array.from(columns), values: Float32Array.from(values) };
}

/**
 * Adds to `neighbours` every pair of rows that share a content word of their texts and reach `threshold`,
 * scoring each word's block of rows against itself.
 *
 * The local embedder's phrase vectors have a few dozen non-zeros of 1024, so each pair is scored over the
 * non-zeros of one row against the other row spread into a dense scratch vector, with the arithmetic of the
 * SIMD kernel (`dot-kernel-module.ts`): float32 products summed in float32 into four lanes by coordinate
 * modulo 4, in ascending coordinate order, then (l0 + l1) + (l2 + l3). A coordinate where either row is zero
 * adds a zero product, which leaves a lane unchanged, so the similarities are bit-identical to the dense
 * kernel's — without copying the 52,000 × 1024 phrase matrix into it (200 MB, most of the step's time).
 */
function sharedWordNeighbours(texts: readonly string[], vectors: SparseVectors, threshold: number, neighbours: Array<Array<[number, number]>>): void {
  const blocks = new Map<string, number[]>();
  texts.forEach((text, row) => {
    for (const word of new Set(text.split(' '))) {
      if (word.length === 0 || englishStopwords.has(word)) continue;
      let block = blocks.get(word);
      if (!block) blocks.set(word, (block = []));
      block.push(row);
    }
  });
  const { pointers, columns, values } = vectors;
  const scratch = new Float32Array(vectors.dimensions);
  const found = new Set<number>();
  for (const block of blocks.values()) {
    if (block.length < 2 || block.length > maxSharedWordBlock) continue;
    for (let position = 0; position < block.length; position++) {
      const row = block[position] as number;
      const rowStart = pointers[row] as number;
      const rowEnd = pointers[row + 1] as number;
      for (let entry = rowStart; entry < rowEnd; entry++) scratch[columns[entry] as number] = values[entry] as number;
      // Rows are ascending within a block: the pairs after this row are the unscored half of the square.
      for (let later = position + 1; later < block.length; later++) {
        const other = block[later] as number;
        let lane0 = 0;
        let lane1 = 0;
        let lane2 = 0;
        let lane3 = 0;
        for (let entry = pointers[other] as number; entry < (pointers[other + 1] as number); entry++) {
          const coordinate = columns[entry] as number;
          const product = Math.fround((scratch[coordinate] as number) * (values[entry] as number));
          switch (coordinate & 3) {
            case 0:
              lane0 = Math.fround(lane0 + product);
              break;
            case 1:
              lane1 = Math.fround(lane1 + product);
              break;
            case 2:
              lane2 = Math.fround(lane2 + product);
              break;
            default:
              lane3 = Math.fround(lane3 + product);
          }
        }
        const similarity = Math.fround(Math.fround(lane0 + lane1) + Math.fround(lane2 + lane3));
        if (!(similarity >= threshold)) continue;
        const key = row * texts.length + other;
        if (found.has(key)) continue;
        found.add(key);
        (neighbours[row] as Array<[number, number]>).push([other, similarity]);
        (neighbours[other] as Array<[number, number]>).push([row, similarity]);
      }
      for (let entry = rowStart; entry < rowEnd; entry++) scratch[columns[entry] as number] = 0;
    }
  }
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
    // 2: the whole graph is stored too (a workspace of version 1 builds it once more).
    version: 2,
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
      const { index, version } = await loadTripleIndex(store);
      // The whole space, not `load(ids)`: selecting tens of thousands of ids costs seconds, and the space holds the phrases only.
      const loaded = await store.vectors('phrases').loadSparse();
      const vectors: Array<SparseVector | null> = index.phraseIds.map(() => null);
      let withVector = 0;
      rowsOf(loaded.ids, index.phraseIds).forEach((phrase, row) => {
        if (phrase < 0) return;
        const start = loaded.rowPointers[row] as number;
        const end = loaded.rowPointers[row + 1] as number;
        vectors[phrase] = { dimensions: loaded.dimensions, columns: loaded.columnIndices.subarray(start, end), values: loaded.values.subarray(start, end) };
        withVector++;
      });
      context.progress(0, 1, 'synonym search');
      const search = synonymSearchFor(context.config.embeddings.provider, withVector);
      const edges = await computeSynonymEdges(index.phraseTexts, vectors, { topK: synonymyEdgeTopk, threshold: synonymyEdgeSimThreshold, search });
      context.progress(1, 1, 'synonym search');
      const passageIds = await passageIdsOf(store);
      const graph = encodePprGraph(assemblePprGraph(index, passageIds, edges));
      const meta: PprGraphMeta = {
        phrases: index.phraseIds.length,
        phraseDigest: phraseDigest(index.phraseIds),
        edges: edges.sources.length,
        synonymyEdgeTopk,
        synonymyEdgeSimThreshold,
        search,
        ...(version === undefined ? {} : { tripleIndexVersion: version }),
        passageDigest: passageDigest(passageIds),
      };
      const blob = encodeSynonymEdges(edges);
      return {
        counts: { phrases: meta.phrases, synonymEdges: meta.edges, withoutVector: index.phraseIds.length - withVector, exactSearch: search === 'exact' ? 1 : 0 },
        outputVersion: contentId('ppr-graph', meta.phraseDigest, sha256(blob)),
        async write(tx) {
          await tx.setBlob(pprGraphKeys.synonyms, blob);
          await tx.setBlob(pprGraphKeys.graph, graph);
          await tx.setMeta(pprGraphKeys.meta, meta);
        },
      };
    },
  };
}
