import type { TripleIndex } from '../../extract/triples/triple-index.js';
import { loadSynonymEdges } from '../../index/steps/ppr-graph-step.js';
import { preparePageRankGraph, type PageRankGraph } from '../../graph/pagerank.js';
import { csrFromTriplets, type CsrMatrix } from '../../math/csr-matrix.js';
import type { Store } from '../../store/store.js';

/*
 * HippoRAG 2's graph (Gutiérrez et al., ICML 2025, §3; `HippoRAG.py`: `add_fact_edges`, `add_passage_edges`,
 * `add_synonymy_edges`, `augment_graph`): phrase nodes and passage nodes, undirected.
 *
 * HippoRAG 2 keeps the edge statistics as ordered pairs and adds every pair to an undirected igraph, so a
 * relation (s, o) is added as s→o and o→s — two parallel edges, each weighted by the number of triples with
 * that subject and object — and a synonym pair found from both ends likewise twice, while a context edge
 * (passage, phrase) is added once with weight 1. igraph's PageRank sums parallel edges, so the effective
 * weights are 2 × triple count, 2 × cosine and 1; the constants below reproduce them on a simple graph.
 */

/** Weight of a relation edge per triple joining its two phrases (HippoRAG 2: two parallel edges of 1 each). */
export const relationEdgeWeight = 2;
/** Factor on the cosine of a synonym edge (HippoRAG 2: found from both ends, two parallel edges). */
export const synonymEdgeFactor = 2;
/** Weight of a context edge between a passage and a phrase of its triples (HippoRAG 2: 1.0, added once). */
export const contextEdgeWeight = 1;

/**
 * The graphs of the `ppr` method, built once per index. Node `i < phraseCount` is phrase `i` of the triple
 * index; node `phraseCount + p` is passage `p`, one per chunk in `passageIds` order (every chunk, with or
 * without triples).
 */
export interface PprGraph {
  readonly triples: TripleIndex;
  readonly phraseCount: number;
  /** Passage index → chunk id, in chunks-table order. */
  readonly passageIds: readonly string[];
  readonly passageIndex: ReadonlyMap<string, number>;
  /** HippoRAG 2: phrases and passages with relation, synonym and context edges. */
  readonly graph: PageRankGraph;
  /** HippoRAG 1: phrases only, with relation and synonym edges. */
  readonly phraseGraph: PageRankGraph;
  /** Phrase → number of passages whose triples mention it (node specificity's |P_i|). */
  readonly phrasePassageCounts: Int32Array;
  /**
   * HippoRAG 1's passage scoring matrix, passages × phrases: entry (p, i) counts the triples of passage p
   * with phrase i as subject or object (its `docs_to_facts` × `facts_to_phrases`).
   */
  readonly passagePhraseCounts: CsrMatrix;
  /** Whether phrases `a` and `b` are the subject and object of some fact (else an edge between them is a synonym edge). */
  related(a: number, b: number): boolean;
  readonly counts: { relationEdges: number; synonymEdges: number; contextEdges: number };
}

/** Builds {@link PprGraph} from the triple index, the chunk ids and the stored synonym edges. */
export async function buildPprGraph(store: Store, triples: TripleIndex): Promise<PprGraph> {
  const passageIds = (await store.table('chunks').pick(['id'])).map((chunk) => chunk.id);
  const passageIndex = new Map(passageIds.map((id, index) => [id, index]));
  const synonyms = await loadSynonymEdges(store, triples.phraseIds);
  const phraseCount = triples.phraseTexts.length;
  const nodeCount = phraseCount + passageIds.length;

  // Relation edges: one entry per (fact, chunk) occurrence, i.e. per extracted triple; self-loops dropped as in HippoRAG 2.
  const relationPairs = new Map<number, number>();
  const passageRows: number[] = [];
  const passagePhrases: number[] = [];
  const chunkToPassage = triples.chunkIds.map((id) => passageIndex.get(id) ?? -1);
  for (let fact = 0; fact < triples.factSubject.length; fact++) {
    const subject = triples.factSubject[fact] as number;
    const object = triples.factObject[fact] as number;
    const chunks = triples.factChunks[fact] ?? [];
    if (subject !== object) {
      const key = Math.min(subject, object) * phraseCount + Math.max(subject, object);
      relationPairs.set(key, (relationPairs.get(key) ?? 0) + chunks.length);
    }
    for (const chunk of chunks) {
      const passage = chunkToPassage[chunk] as number;
      if (passage < 0) continue;
      passageRows.push(passage, passage);
      passagePhrases.push(subject, object);
    }
  }

  const sources: number[] = [];
  const targets: number[] = [];
  const weights: number[] = [];
  for (const [key, count] of relationPairs) {
    sources.push(Math.floor(key / phraseCount));
    targets.push(key % phraseCount);
    weights.push(relationEdgeWeight * count);
  }
  const relationEdges = sources.length;
  for (let edge = 0; edge < synonyms.sources.length; edge++) {
    sources.push(synonyms.sources[edge] as number);
    targets.push(synonyms.targets[edge] as number);
    weights.push(synonymEdgeFactor * (synonyms.weights[edge] as number));
  }
  const phraseEdges = sources.length;

  const phrasePassageCounts = new Int32Array(phraseCount);
  let contextEdges = 0;
  triples.phraseChunks.forEach((chunks, phrase) => {
    for (const chunk of chunks) {
      const passage = chunkToPassage[chunk] as number;
      if (passage < 0) continue;
      sources.push(phrase);
      targets.push(phraseCount + passage);
      weights.push(contextEdgeWeight);
      phrasePassageCounts[phrase] = (phrasePassageCounts[phrase] as number) + 1;
      contextEdges++;
    }
  });

  return {
    triples,
    phraseCount,
    passageIds,
    passageIndex,
    graph: preparePageRankGraph(symmetricCsr(nodeCount, sources, targets, weights, sources.length), { symmetric: true }),
    phraseGraph: preparePageRankGraph(symmetricCsr(phraseCount, sources, targets, weights, phraseEdges), { symmetric: true }),
    phrasePassageCounts,
    related: (a, b) => relationPairs.has(Math.min(a, b) * phraseCount + Math.max(a, b)),
    passagePhraseCounts: csrFromTriplets(passageIds.length, phraseCount, passageRows, passagePhrases, new Float64Array(passageRows.length).fill(1)),
    counts: { relationEdges, synonymEdges: synonyms.sources.length, contextEdges },
  };
}

/** The symmetric adjacency of the first `count` undirected edges (parallel edges add up). */
function symmetricCsr(nodes: number, sources: readonly number[], targets: readonly number[], weights: readonly number[], count: number): CsrMatrix {
  const rows = new Int32Array(2 * count);
  const columns = new Int32Array(2 * count);
  const values = new Float64Array(2 * count);
  for (let edge = 0; edge < count; edge++) {
    const source = sources[edge] as number;
    const target = targets[edge] as number;
    const weight = weights[edge] as number;
    rows[2 * edge] = source;
    columns[2 * edge] = target;
    values[2 * edge] = weight;
    rows[2 * edge + 1] = target;
    columns[2 * edge + 1] = source;
    values[2 * edge + 1] = weight;
  }
  return csrFromTriplets(nodes, nodes, rows, columns, values);
}
