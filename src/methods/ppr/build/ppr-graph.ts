import type { IndexList, TripleIndex } from '../../../extract/triples/triple-index.js';
import { preparePageRankGraph, type PageRankGraph } from '../../../graph/pagerank.js';
import { csrFromTriplets, type CsrMatrix } from '../../../math/csr-matrix.js';
import { positionsOf } from '../../../core/positions-of.js';

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

/** Synonym edges between phrase indices as the `ppr-graph` step computes them (cosine in `weights`). */
export interface PhraseSynonyms {
  sources: ArrayLike<number>;
  targets: ArrayLike<number>;
  weights: ArrayLike<number>;
}

/** Builds {@link PprGraph} from the triple index, the chunk ids in chunks-table order and the synonym edges. */
export function assemblePprGraph(triples: TripleIndex, passageIds: readonly string[], synonyms: PhraseSynonyms): PprGraph {
  return pprGraphFromParts(triples, passageIds, assemblePprGraphParts(triples, passageIds, synonyms));
}

/**
 * `encodePprGraph(assemblePprGraph(triples, passageIds, synonyms))`, byte for byte, without preparing the graphs for
 * PageRank (the step stores them; a query prepares what it loads) and without finding the relation keys again.
 */
export function encodeAssembledPprGraph(triples: TripleIndex, passageIds: readonly string[], synonyms: PhraseSynonyms): Uint8Array {
  const parts = assemblePprGraphParts(triples, passageIds, synonyms);
  return encodePprGraphParts(passageIds.length, { ...parts, relationKeys: adjacentRelationKeys(parts.phraseAdjacency, parts.relationKeys) });
}

/**
 * The relation keys that `relationKeysOf` finds in a graph: those of `relationKeys` (ascending) whose pair is an entry
 * of the phrase adjacency, found by walking each row's ascending columns along the keys of that row.
 */
function adjacentRelationKeys(phraseAdjacency: CsrMatrix, relationKeys: Float64Array): Float64Array {
  const phraseCount = phraseAdjacency.rows;
  const { rowPointers, columnIndices } = phraseAdjacency;
  const kept = new Float64Array(relationKeys.length);
  let count = 0;
  let row = -1;
  let entry = 0;
  let end = 0;
  for (const key of relationKeys) {
    const a = Math.floor(key / phraseCount);
    const b = key - a * phraseCount;
    if (a !== row) {
      row = a;
      entry = rowPointers[a] as number;
      end = rowPointers[a + 1] as number;
    }
    while (entry < end && (columnIndices[entry] as number) < b) entry++;
    if (entry < end && columnIndices[entry] === b) kept[count++] = key;
  }
  return kept.slice(0, count);
}

/** The parts of the graph {@link assemblePprGraph} builds. */
function assemblePprGraphParts(triples: TripleIndex, passageIds: readonly string[], synonyms: PhraseSynonyms): PprGraphParts {
  const passageIndex = positionsOf(passageIds);
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
    graphAdjacency: symmetricCsr(nodeCount, sources, targets, weights, sources.length),
    phraseAdjacency: symmetricCsr(phraseCount, sources, targets, weights, phraseEdges),
    phrasePassageCounts,
    passagePhraseCounts: csrFromTriplets(passageIds.length, phraseCount, passageRows, passagePhrases, new Float64Array(passageRows.length).fill(1)),
    relationKeys: Float64Array.from(relationPairs.keys()).sort(),
    counts: { relationEdges, synonymEdges: synonyms.sources.length, contextEdges },
  };
}

/** What a {@link PprGraph} is made of besides the triple index and the passage ids: what the `ppr-graph` step stores. */
interface PprGraphParts {
  /** Phrases and passages with relation, synonym and context edges (symmetric). */
  graphAdjacency: CsrMatrix;
  /** Phrases with relation and synonym edges (symmetric). */
  phraseAdjacency: CsrMatrix;
  phrasePassageCounts: Int32Array;
  passagePhraseCounts: CsrMatrix;
  /** `min(a, b) · phraseCount + max(a, b)` of every pair of phrases joined by a fact, ascending. */
  relationKeys: Float64Array;
  counts: PprGraph['counts'];
}

function pprGraphFromParts(triples: TripleIndex, passageIds: readonly string[], parts: PprGraphParts): PprGraph {
  const phraseCount = parts.phraseAdjacency.rows;
  const { relationKeys } = parts;
  return {
    triples,
    phraseCount,
    passageIds,
    passageIndex: positionsOf(passageIds),
    graph: preparePageRankGraph(parts.graphAdjacency, { symmetric: true }),
    phraseGraph: preparePageRankGraph(parts.phraseAdjacency, { symmetric: true }),
    phrasePassageCounts: parts.phrasePassageCounts,
    related(a, b) {
      return sortedHas(relationKeys, relationKeys.length, Math.min(a, b) * phraseCount + Math.max(a, b));
    },
    passagePhraseCounts: parts.passagePhraseCounts,
    counts: parts.counts,
  };
}

/*
 * The parts as one blob, so a query loads the graph instead of building it (2Wiki: 58,848 nodes, a third of
 * a cold `ppr` query). Little-endian, every section at a multiple of 4 bytes:
 *   u32 magic, version, phraseCount, passages, relationEdges, synonymEdges, contextEdges, relationKeys
 *   3 CSR matrices (graph, phrase graph, passage × phrase counts): u32 rows, cols, entries (+ 1 pad),
 *     i32 rowPointers[rows + 1] (padded to 8), i32 columns[entries] (padded to 8), f64 values[entries]
 *   i32 phrasePassageCounts[phraseCount] (padded to 8), f64 relationKeys[]
 * Values are kept in float64: a relation and a synonym edge on one pair add up beyond float32's precision.
 */
const graphMagic = 0x6b707067; // "kppg"
const graphVersion = 1;

/** Encodes the graph's parts (the triple index and passage ids are stored elsewhere). */
export function encodePprGraph(graph: PprGraph): Uint8Array {
  return encodePprGraphParts(graph.passageIds.length, {
    graphAdjacency: graph.graph.outgoing,
    phraseAdjacency: graph.phraseGraph.outgoing,
    passagePhraseCounts: graph.passagePhraseCounts,
    phrasePassageCounts: graph.phrasePassageCounts,
    relationKeys: relationKeysOf(graph),
    counts: graph.counts,
  });
}

function encodePprGraphParts(passages: number, parts: PprGraphParts): Uint8Array {
  const phraseCount = parts.phraseAdjacency.rows;
  const matrices = [parts.graphAdjacency, parts.phraseAdjacency, parts.passagePhraseCounts];
  const { relationKeys, counts } = parts;
  const eight = (bytes: number): number => bytes + ((8 - (bytes % 8)) % 8);
  let size = 32;
  for (const matrix of matrices) size += 16 + eight(4 * (matrix.rows + 1)) + eight(4 * matrix.values.length) + 8 * matrix.values.length;
  size += eight(4 * phraseCount) + 8 * relationKeys.length;
  const buffer = new ArrayBuffer(size);
  new Uint32Array(buffer, 0, 8).set([graphMagic, graphVersion, phraseCount, passages, counts.relationEdges, counts.synonymEdges, counts.contextEdges, relationKeys.length]);
  let offset = 32;
  for (const matrix of matrices) {
    new Uint32Array(buffer, offset, 3).set([matrix.rows, matrix.cols, matrix.values.length]);
    offset += 16;
    new Int32Array(buffer, offset, matrix.rows + 1).set(matrix.rowPointers);
    offset += eight(4 * (matrix.rows + 1));
    new Int32Array(buffer, offset, matrix.values.length).set(matrix.columnIndices);
    offset += eight(4 * matrix.values.length);
    new Float64Array(buffer, offset, matrix.values.length).set(matrix.values);
    offset += 8 * matrix.values.length;
  }
  new Int32Array(buffer, offset, phraseCount).set(parts.phrasePassageCounts);
  offset += eight(4 * phraseCount);
  new Float64Array(buffer, offset, relationKeys.length).set(relationKeys);
  return new Uint8Array(buffer);
}

/** The relation keys of a graph, from its phrase adjacency: the pairs `related` confirms. */
function relationKeysOf(graph: PprGraph): Float64Array {
  const keys: number[] = [];
  const { rowPointers, columnIndices } = graph.phraseGraph.outgoing;
  for (let a = 0; a < graph.phraseCount; a++) {
    for (let entry = rowPointers[a] as number; entry < (rowPointers[a + 1] as number); entry++) {
      const b = columnIndices[entry] as number;
      if (a < b && graph.related(a, b)) keys.push(a * graph.phraseCount + b);
    }
  }
  return Float64Array.from(keys);
}

/**
 * The graph of a blob written by {@link encodePprGraph} for `triples` and `passageIds`, or undefined when the
 * blob is of another format or does not fit them.
 */
export function decodePprGraph(blob: Uint8Array, triples: TripleIndex, passageIds: readonly string[]): PprGraph | undefined {
  const decoded = decodePprGraphParts(blob);
  if (!decoded || decoded.parts.phraseAdjacency.rows !== triples.phraseTexts.length || decoded.passages !== passageIds.length) return undefined;
  return pprGraphFromParts(triples, passageIds, decoded.parts);
}

/** The parts of a blob written by {@link encodePprGraph} and its passage count, or undefined for another format. */
function decodePprGraphParts(blob: Uint8Array): { parts: PprGraphParts; passages: number } | undefined {
  // An 8-byte aligned copy: a blob read from the store may start at any byte offset.
  const bytes = blob.byteOffset % 8 === 0 ? blob : Uint8Array.from(blob);
  if (bytes.byteLength < 32) return undefined;
  const header = new Uint32Array(bytes.buffer, bytes.byteOffset, 8);
  const [magic, version, phraseCount, passages, relationEdges, synonymEdges, contextEdges, keyCount] = Array.from(header) as number[];
  if (magic !== graphMagic || version !== graphVersion) return undefined;
  const eight = (count: number): number => count + ((8 - (count % 8)) % 8);
  let offset = bytes.byteOffset + 32;
  const matrix = (): CsrMatrix => {
    const [rows, cols, entries] = Array.from(new Uint32Array(bytes.buffer, offset, 3)) as number[];
    offset += 16;
    const rowPointers = new Int32Array(bytes.buffer, offset, (rows as number) + 1);
    offset += eight(4 * ((rows as number) + 1));
    const columnIndices = new Int32Array(bytes.buffer, offset, entries);
    offset += eight(4 * (entries as number));
    const values = new Float64Array(bytes.buffer, offset, entries);
    offset += 8 * (entries as number);
    return { rows: rows as number, cols: cols as number, rowPointers, columnIndices, values };
  };
  const graphAdjacency = matrix();
  const phraseAdjacency = matrix();
  const passagePhraseCounts = matrix();
  const phrasePassageCounts = new Int32Array(bytes.buffer, offset, phraseCount);
  offset += eight(4 * (phraseCount as number));
  const relationKeys = new Float64Array(bytes.buffer, offset, keyCount);
  if (offset + 8 * (keyCount as number) !== bytes.byteOffset + bytes.byteLength || phraseAdjacency.rows !== phraseCount) return undefined;
  return {
    passages: passages as number,
    parts: {
      graphAdjacency,
      phraseAdjacency,
      phrasePassageCounts,
      passagePhraseCounts,
      relationKeys,
      counts: { relationEdges: relationEdges as number, synonymEdges: synonymEdges as number, contextEdges: contextEdges as number },
    },
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

/** What {@link appendToPprGraph} needs of the index a stored graph was built from. */
export interface PprGraphBefore {
  /** Facts and chunks of that triple index (its phrases are the graph's). */
  facts: number;
  chunks: number;
  /** The synonym edges the graph was built with. */
  synonyms: PhraseSynonyms;
  /** Whether the graph's passages (its first `count` of the passage ids now) are the passages it was built with. */
  passagesFit(count: number): boolean;
}

/**
 * The encoded graph of `triples`, `passageIds` and `synonyms` made from `blob`, the stored graph of the triple index
 * that `triples` appended rows of new chunks to (`before`), when its passages are the first of `passageIds`: byte for
 * byte what `encodePprGraph(assemblePprGraph(triples, passageIds, synonyms))` gives, at the cost of the edges that came
 * or changed and a copy of the others — old phrases and facts only gain new chunks, old passages keep their phrases,
 * and passage nodes move up by the new phrases. Undefined when the blob does not fit, or a new chunk is no new passage.
 */
export function appendToPprGraph(blob: Uint8Array, triples: TripleIndex, passageIds: readonly string[], before: PprGraphBefore, synonyms: PhraseSynonyms): Uint8Array | undefined {
  const decoded = decodePprGraphParts(blob);
  if (!decoded) return undefined;
  const old = decoded.parts;
  const oldPhrases = old.phraseAdjacency.rows;
  const oldPassages = decoded.passages;
  const phraseCount = triples.phraseTexts.length;
  const passages = passageIds.length;
  const facts = triples.factSubject.length;
  const chunkCount = triples.chunkIds.length;
  if (phraseCount < oldPhrases || passages < oldPassages || facts < before.facts || chunkCount < before.chunks || old.graphAdjacency.rows !== oldPhrases + oldPassages || !before.passagesFit(oldPassages)) {
    return undefined;
  }
  const shift = phraseCount - oldPhrases;

  // The new chunks' passages: new ones, after the old.
  const newPassage = new Map<string, number>();
  for (let passage = oldPassages; passage < passages; passage++) newPassage.set(passageIds[passage] as string, passage);
  const chunkPassage = new Int32Array(chunkCount - before.chunks);
  for (let chunk = before.chunks; chunk < chunkCount; chunk++) {
    const passage = newPassage.get(triples.chunkIds[chunk] as string);
    if (passage === undefined) return undefined;
    chunkPassage[chunk - before.chunks] = passage;
  }
  // Where a list's new chunks start: lists gain new chunks at their end, and a new item's list is all new.
  const firstNew = (list: IndexList, old: boolean): number => {
    let first = list.length;
    if (!old) return 0;
    while (first > 0 && (list[first - 1] as number) >= before.chunks) first--;
    return first;
  };
  const pairKey = (a: number, b: number): number => Math.min(a, b) * phraseCount + Math.max(a, b);

  // Relation pairs that gain triples, and the new passages' (fact, chunk) occurrences.
  const touched = new Set<number>();
  const passageOccurrences = new Map<number, number[]>();
  const { factSubject, factObject, factChunks } = triples;
  for (let fact = 0; fact < facts; fact++) {
    const chunks = factChunks[fact] as IndexList;
    const first = firstNew(chunks, fact < before.facts);
    if (first === chunks.length) continue;
    const subject = factSubject[fact] as number;
    const object = factObject[fact] as number;
    if (subject !== object) touched.add(pairKey(subject, object));
    for (let entry = first; entry < chunks.length; entry++) {
      const passage = chunkPassage[(chunks[entry] as number) - before.chunks] as number;
      let list = passageOccurrences.get(passage);
      if (!list) passageOccurrences.set(passage, (list = []));
      list.push(subject, object);
    }
  }
  // Synonym pairs that came, went or changed weight.
  const synonymWeights = (edges: PhraseSynonyms): Map<number, number> => {
    const weights = new Map<number, number>();
    for (let edge = 0; edge < edges.sources.length; edge++) weights.set(pairKey(edges.sources[edge] as number, edges.targets[edge] as number), edges.weights[edge] as number);
    return weights;
  };
  const { phraseChanges, triplesOf } = touchedPhraseEntries(triples, touched, synonymWeights(before.synonyms), synonymWeights(synonyms));
  const newRelationKeys = [...touched].filter((key) => triplesOf.has(key));
  for (const list of phraseChanges.values()) list.sort((left, right) => left[0] - right[0]);

  // Context edges to new passages, by phrase.
  const newContext = new Map<number, number[]>();
  const passagePhrases = new Map<number, number[]>();
  const phrasePassageCounts = new Int32Array(phraseCount);
  phrasePassageCounts.set(old.phrasePassageCounts);
  let contextEdges = old.counts.contextEdges;
  const { phraseChunks } = triples;
  for (let phrase = 0; phrase < phraseCount; phrase++) {
    const chunks = phraseChunks[phrase] as IndexList;
    const first = firstNew(chunks, phrase < oldPhrases);
    if (first === chunks.length) continue;
    const list: number[] = [];
    for (let entry = first; entry < chunks.length; entry++) {
      const passage = chunkPassage[(chunks[entry] as number) - before.chunks] as number;
      list.push(passage);
      let phrases = passagePhrases.get(passage);
      if (!phrases) passagePhrases.set(passage, (phrases = []));
      phrases.push(phrase);
    }
    list.sort((left, right) => left - right);
    newContext.set(phrase, list);
    phrasePassageCounts[phrase] = (phrasePassageCounts[phrase] as number) + list.length;
    contextEdges += list.length;
  }

  // The whole graph: phrase rows merge their old phrase entries with the changes, then their old passages (moved up) and
  // new ones; old passage rows are copied, new ones list their phrases.
  const graph = old.graphAdjacency;
  const capacity = graph.values.length + 2 * touched.size + 2 * (contextEdges - old.counts.contextEdges);
  const rowPointers = new Int32Array(phraseCount + passages + 1);
  const columns = new Int32Array(capacity);
  const values = new Float64Array(capacity);
  const oldPointers = graph.rowPointers;
  const oldColumns = graph.columnIndices;
  const oldValues = graph.values;
  let written = 0;
  // Each phrase row's phrase entries, which come before its passages: the rows of the phrase graph.
  const phraseLengths = new Int32Array(phraseCount);
  for (let row = 0; row < phraseCount; row++) {
    const start = row < oldPhrases ? (oldPointers[row] as number) : 0;
    const end = row < oldPhrases ? (oldPointers[row + 1] as number) : 0;
    // Old columns below `oldPhrases` are phrases, the others passages.
    let phraseEnd = start;
    while (phraseEnd < end && (oldColumns[phraseEnd] as number) < oldPhrases) phraseEnd++;
    let entry = start;
    const changes = phraseChanges.get(row);
    if (changes !== undefined) {
      for (const [column, value] of changes) {
        for (; entry < phraseEnd && (oldColumns[entry] as number) < column; entry++, written++) {
          columns[written] = oldColumns[entry] as number;
          values[written] = oldValues[entry] as number;
        }
        if (entry < phraseEnd && oldColumns[entry] === column) entry++;
        if (Number.isNaN(value)) continue;
        columns[written] = column;
        values[written++] = value;
      }
    }
    for (; entry < phraseEnd; entry++, written++) {
      columns[written] = oldColumns[entry] as number;
      values[written] = oldValues[entry] as number;
    }
    phraseLengths[row] = written - (rowPointers[row] as number);
    for (; entry < end; entry++, written++) {
      columns[written] = (oldColumns[entry] as number) + shift;
      values[written] = oldValues[entry] as number;
    }
    const context = newContext.get(row);
    if (context !== undefined) {
      for (const passage of context) {
        columns[written] = phraseCount + passage;
        values[written++] = contextEdgeWeight;
      }
    }
    rowPointers[row + 1] = written;
  }
  const oldPassageStart = oldPointers[oldPhrases] as number;
  const oldPassageEnd = oldPointers[oldPhrases + oldPassages] as number;
  columns.set(oldColumns.subarray(oldPassageStart, oldPassageEnd), written);
  values.set(oldValues.subarray(oldPassageStart, oldPassageEnd), written);
  for (let passage = 0; passage < oldPassages; passage++) rowPointers[phraseCount + passage + 1] = written + (oldPointers[oldPhrases + passage + 1] as number) - oldPassageStart;
  written += oldPassageEnd - oldPassageStart;
  for (let passage = oldPassages; passage < passages; passage++) {
    for (const phrase of (passagePhrases.get(passage) ?? []).sort((left, right) => left - right)) {
      columns[written] = phrase;
      values[written++] = contextEdgeWeight;
    }
    rowPointers[phraseCount + passage + 1] = written;
  }
  const nodes = phraseCount + passages;
  const graphAdjacency: CsrMatrix = { rows: nodes, cols: nodes, rowPointers, columnIndices: columns.slice(0, written), values: values.slice(0, written) };

  // The phrase graph is the whole graph's phrase rows without their passages.
  const phrasePointers = new Int32Array(phraseCount + 1);
  for (let row = 0; row < phraseCount; row++) phrasePointers[row + 1] = (phrasePointers[row] as number) + (phraseLengths[row] as number);
  const phraseEntries = phrasePointers[phraseCount] as number;
  const phraseColumns = new Int32Array(phraseEntries);
  const phraseValues = new Float64Array(phraseEntries);
  const allColumns = graphAdjacency.columnIndices;
  const allValues = graphAdjacency.values;
  for (let row = 0; row < phraseCount; row++) {
    // Copied entry by entry: a subarray per row would make two views for each of 50,000 rows.
    let from = rowPointers[row] as number;
    for (let to = phrasePointers[row] as number; to < (phrasePointers[row + 1] as number); to++, from++) {
      phraseColumns[to] = allColumns[from] as number;
      phraseValues[to] = allValues[from] as number;
    }
  }

  // Passage × phrase counts: the old rows, then the new passages' occurrences summed by phrase.
  const counts = old.passagePhraseCounts;
  const countPointers = new Int32Array(passages + 1);
  countPointers.set(counts.rowPointers);
  let occurrences = 0;
  for (const list of passageOccurrences.values()) occurrences += list.length;
  const countColumns = new Int32Array(counts.values.length + occurrences);
  const countValues = new Float64Array(countColumns.length);
  countColumns.set(counts.columnIndices);
  countValues.set(counts.values);
  let countEntries = counts.values.length;
  for (let passage = oldPassages; passage < passages; passage++) {
    const byPhrase = new Map<number, number>();
    for (const phrase of passageOccurrences.get(passage) ?? []) byPhrase.set(phrase, (byPhrase.get(phrase) ?? 0) + 1);
    for (const phrase of [...byPhrase.keys()].sort((left, right) => left - right)) {
      countColumns[countEntries] = phrase;
      countValues[countEntries++] = byPhrase.get(phrase) as number;
    }
    countPointers[passage + 1] = countEntries;
  }

  // Relation keys renumbered for the new phrase count (order is kept), with the new pairs.
  const relationKeys = new Float64Array(old.relationKeys.length + newRelationKeys.length);
  old.relationKeys.forEach((key, index) => {
    const a = Math.floor(key / oldPhrases);
    relationKeys[index] = a * phraseCount + (key - a * oldPhrases);
  });
  const oldKeys = old.relationKeys.length;
  // The renumbering keeps the order (a phrase's number only grows by the new ones after it), so the few new pairs are
  // merged in rather than sorting every key again.
  const added = Float64Array.from(newRelationKeys.filter((key) => !sortedHas(relationKeys, oldKeys, key))).sort();
  const allKeys = new Float64Array(oldKeys + added.length);
  for (let kept = 0, fresh = 0, at = 0; at < allKeys.length; at++) {
    allKeys[at] = fresh < added.length && (kept >= oldKeys || (added[fresh] as number) < (relationKeys[kept] as number)) ? (added[fresh++] as number) : (relationKeys[kept++] as number);
  }

  return encodePprGraphParts(passages, {
    graphAdjacency,
    phraseAdjacency: { rows: phraseCount, cols: phraseCount, rowPointers: phrasePointers, columnIndices: phraseColumns, values: phraseValues },
    phrasePassageCounts,
    passagePhraseCounts: { rows: passages, cols: phraseCount, rowPointers: countPointers, columnIndices: countColumns.slice(0, countEntries), values: countValues.slice(0, countEntries) },
    relationKeys: allKeys,
    counts: { relationEdges: allKeys.length, synonymEdges: synonyms.sources.length, contextEdges },
  });
}

/** Whether the ascending first `count` of `keys` hold `key`. */
/**
 * What an update changes in the phrase rows. `touched` holds the relation pairs whose triples changed; the synonym
 * pairs that came, went or changed weight are added to it. Each touched pair gets its weight as a build sums it — the
 * relation's over its triples in the whole index, then the synonym's — at both ends, or NaN where the pair is gone.
 * Row → [column, value] in the order met; `triplesOf`: each touched pair's triples (a pair without is no relation).
 */
function touchedPhraseEntries(
  triples: TripleIndex,
  touched: Set<number>,
  oldSynonyms: ReadonlyMap<number, number>,
  newSynonyms: ReadonlyMap<number, number>,
): { phraseChanges: Map<number, Array<[number, number]>>; triplesOf: Map<number, number> } {
  const phraseCount = triples.phraseTexts.length;
  for (const [key, weight] of oldSynonyms) if (newSynonyms.get(key) !== weight) touched.add(key);
  for (const [key, weight] of newSynonyms) if (oldSynonyms.get(key) !== weight) touched.add(key);
  const triplesOf = new Map<number, number>();
  const { factSubject, factObject, factChunks } = triples;
  for (let fact = 0; fact < factSubject.length; fact++) {
    const subject = factSubject[fact] as number;
    const object = factObject[fact] as number;
    if (subject === object) continue;
    const key = Math.min(subject, object) * phraseCount + Math.max(subject, object);
    if (touched.has(key)) triplesOf.set(key, (triplesOf.get(key) ?? 0) + (factChunks[fact] as IndexList).length);
  }
  const phraseChanges = new Map<number, Array<[number, number]>>();
  const change = (row: number, column: number, value: number): void => {
    let list = phraseChanges.get(row);
    if (!list) phraseChanges.set(row, (list = []));
    list.push([column, value]);
  };
  for (const key of touched) {
    const a = Math.floor(key / phraseCount);
    const b = key - a * phraseCount;
    const count = triplesOf.get(key);
    const synonym = newSynonyms.get(key);
    let value = Number.NaN;
    if (count !== undefined) value = relationEdgeWeight * count;
    if (synonym !== undefined) value = count !== undefined ? value + synonymEdgeFactor * synonym : synonymEdgeFactor * synonym;
    change(a, b, value);
    change(b, a, value);
  }
  return { phraseChanges, triplesOf };
}

function sortedHas(keys: Float64Array, count: number, key: number): boolean {
  let low = 0;
  let high = count - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const value = keys[middle] as number;
    if (value === key) return true;
    if (value < key) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/** What {@link removeFromPprGraph} needs of the index a stored graph was built from. */
export interface PprGraphBeforeRemoval {
  /** Its phrases (the graph's) → the phrases of the index now, −1 for those no kept chunk names. */
  phrases: Int32Array;
  /** The graph's passages, in order: the passage ids now are these without the removed ones. */
  passageIds: readonly string[];
  /** The synonym edges the graph was built with. */
  synonyms: PhraseSynonyms;
}

/**
 * The encoded graph of `triples`, `passageIds` and `synonyms` made from `blob`, the stored graph of the triple index
 * that `triples` is with the rows of some chunks removed (`before`): byte for byte what
 * `encodePprGraph(assemblePprGraph(triples, passageIds, synonyms))` gives, at the cost of a pass over the stored
 * entries — the removed passages' rows and entries go, the kept phrases are renumbered (a phrase first named by a
 * removed chunk moves after others, so a row is sorted again where its columns came out of order), and only the pairs
 * of phrases of a removed passage's facts and the synonym pairs that changed are weighed again. Undefined when the blob
 * does not fit `before`, or a passage now is none of the graph's.
 */
export function removeFromPprGraph(blob: Uint8Array, triples: TripleIndex, passageIds: readonly string[], before: PprGraphBeforeRemoval, synonyms: PhraseSynonyms): Uint8Array | undefined {
  const decoded = decodePprGraphParts(blob);
  if (!decoded) return undefined;
  const old = decoded.parts;
  const oldPhrases = old.phraseAdjacency.rows;
  const oldPassages = decoded.passages;
  const phraseCount = triples.phraseTexts.length;
  const passages = passageIds.length;
  const phraseMap = before.phrases;
  if (phraseMap.length !== oldPhrases || before.passageIds.length !== oldPassages || old.graphAdjacency.rows !== oldPhrases + oldPassages) return undefined;
  // New phrase → old; every new phrase is an old one.
  const oldPhraseOf = new Int32Array(phraseCount).fill(-1);
  for (let phrase = 0; phrase < oldPhrases; phrase++) {
    const now = phraseMap[phrase] as number;
    if (now >= phraseCount) return undefined;
    if (now >= 0) oldPhraseOf[now] = phrase;
  }
  if (oldPhraseOf.includes(-1)) return undefined;
  // Old passage → new (−1: removed); the passages now are the old ones in their order.
  const passageMap = new Int32Array(oldPassages).fill(-1);
  const oldPassageOf = new Int32Array(passages);
  let matched = 0;
  for (let passage = 0; passage < oldPassages && matched < passages; passage++) {
    if (before.passageIds[passage] !== passageIds[matched]) continue;
    passageMap[passage] = matched;
    oldPassageOf[matched++] = passage;
  }
  if (matched !== passages) return undefined;
  const oldPair = (a: number, b: number): number => Math.min(a, b) * oldPhrases + Math.max(a, b);
  const pairKey = (a: number, b: number): number => Math.min(a, b) * phraseCount + Math.max(a, b);
  const graph = old.graphAdjacency;
  const oldPointers = graph.rowPointers;
  const oldColumns = graph.columnIndices;
  const oldValues = graph.values;

  // The removed passages: their context edges go, and the relation pairs of their facts may lose triples.
  const phrasePassageCounts = new Int32Array(phraseCount);
  for (let phrase = 0; phrase < phraseCount; phrase++) phrasePassageCounts[phrase] = old.phrasePassageCounts[oldPhraseOf[phrase] as number] as number;
  let contextEdges = old.counts.contextEdges;
  const touched = new Set<number>();
  const counts = old.passagePhraseCounts;
  for (let passage = 0; passage < oldPassages; passage++) {
    if ((passageMap[passage] as number) >= 0) continue;
    const start = oldPointers[oldPhrases + passage] as number;
    const end = oldPointers[oldPhrases + passage + 1] as number;
    contextEdges -= end - start;
    for (let entry = start; entry < end; entry++) {
      const now = phraseMap[oldColumns[entry] as number] as number;
      if (now >= 0) phrasePassageCounts[now] = (phrasePassageCounts[now] as number) - 1;
    }
    // The subjects and objects of the passage's facts: a pair of them that is a relation is weighed again.
    const first = counts.rowPointers[passage] as number;
    const last = counts.rowPointers[passage + 1] as number;
    for (let left = first; left < last; left++) {
      const a = counts.columnIndices[left] as number;
      const nowA = phraseMap[a] as number;
      if (nowA < 0) continue;
      for (let right = left + 1; right < last; right++) {
        const b = counts.columnIndices[right] as number;
        const nowB = phraseMap[b] as number;
        if (nowB >= 0 && sortedHas(old.relationKeys, old.relationKeys.length, oldPair(a, b))) touched.add(pairKey(nowA, nowB));
      }
    }
  }
  // Synonym pairs that went or changed weight (a delete adds none between kept phrases that a search did not find).
  const oldSynonyms = new Map<number, number>();
  for (let edge = 0; edge < before.synonyms.sources.length; edge++) {
    const a = phraseMap[before.synonyms.sources[edge] as number] as number;
    const b = phraseMap[before.synonyms.targets[edge] as number] as number;
    if (a >= 0 && b >= 0) oldSynonyms.set(pairKey(a, b), before.synonyms.weights[edge] as number);
  }
  const newSynonyms = new Map<number, number>();
  for (let edge = 0; edge < synonyms.sources.length; edge++) newSynonyms.set(pairKey(synonyms.sources[edge] as number, synonyms.targets[edge] as number), synonyms.weights[edge] as number);
  const { phraseChanges, triplesOf } = touchedPhraseEntries(triples, touched, oldSynonyms, newSynonyms);

  // The whole graph, row by row in the new order: a row's old entries renumbered, then sorted when renumbering moved one.
  const rowPointers = new Int32Array(phraseCount + passages + 1);
  const columns = new Int32Array(oldValues.length + 2 * touched.size);
  const values = new Float64Array(columns.length);
  const phraseLengths = new Int32Array(phraseCount);
  let written = 0;
  const sortRow = (start: number, end: number): void => {
    for (let entry = start + 1; entry < end; entry++) if ((columns[entry] as number) < (columns[entry - 1] as number)) return sortEntries(columns, values, start, end);
  };
  // Which row last changed a column (rows are numbered from 1), so that a changed entry is not also copied.
  const changedIn = new Int32Array(phraseCount);
  for (let row = 0; row < phraseCount; row++) {
    const from = oldPhraseOf[row] as number;
    const start = oldPointers[from] as number;
    const end = oldPointers[from + 1] as number;
    const changes = phraseChanges.get(row);
    if (changes) for (const [column] of changes) changedIn[column] = row + 1;
    let entry = start;
    for (; entry < end && (oldColumns[entry] as number) < oldPhrases; entry++) {
      const column = phraseMap[oldColumns[entry] as number] as number;
      if (column < 0 || (changes && changedIn[column] === row + 1)) continue;
      columns[written] = column;
      values[written++] = oldValues[entry] as number;
    }
    if (changes) {
      for (const [column, value] of changes) {
        if (Number.isNaN(value)) continue;
        columns[written] = column;
        values[written++] = value;
      }
    }
    sortRow(rowPointers[row] as number, written);
    phraseLengths[row] = written - (rowPointers[row] as number);
    // Passages keep their order: their entries stay sorted.
    for (; entry < end; entry++) {
      const passage = passageMap[(oldColumns[entry] as number) - oldPhrases] as number;
      if (passage < 0) continue;
      columns[written] = phraseCount + passage;
      values[written++] = oldValues[entry] as number;
    }
    rowPointers[row + 1] = written;
  }
  for (let passage = 0; passage < passages; passage++) {
    const from = oldPhrases + (oldPassageOf[passage] as number);
    const rowStart = written;
    // A kept passage's phrases are all kept (a kept chunk names them).
    for (let entry = oldPointers[from] as number; entry < (oldPointers[from + 1] as number); entry++) {
      columns[written] = phraseMap[oldColumns[entry] as number] as number;
      values[written++] = oldValues[entry] as number;
    }
    sortRow(rowStart, written);
    rowPointers[phraseCount + passage + 1] = written;
  }
  const nodes = phraseCount + passages;
  const graphAdjacency: CsrMatrix = { rows: nodes, cols: nodes, rowPointers, columnIndices: columns.slice(0, written), values: values.slice(0, written) };

  // The phrase graph is the whole graph's phrase rows without their passages.
  const phrasePointers = new Int32Array(phraseCount + 1);
  for (let row = 0; row < phraseCount; row++) phrasePointers[row + 1] = (phrasePointers[row] as number) + (phraseLengths[row] as number);
  const phraseEntries = phrasePointers[phraseCount] as number;
  const phraseColumns = new Int32Array(phraseEntries);
  const phraseValues = new Float64Array(phraseEntries);
  for (let row = 0; row < phraseCount; row++) {
    let from = rowPointers[row] as number;
    for (let to = phrasePointers[row] as number; to < (phrasePointers[row + 1] as number); to++, from++) {
      phraseColumns[to] = columns[from] as number;
      phraseValues[to] = values[from] as number;
    }
  }

  // Passage × phrase counts: the kept rows, renumbered.
  const countPointers = new Int32Array(passages + 1);
  const countColumns = new Int32Array(counts.values.length);
  const countValues = new Float64Array(counts.values.length);
  let countEntries = 0;
  for (let passage = 0; passage < passages; passage++) {
    const from = oldPassageOf[passage] as number;
    const rowStart = countEntries;
    for (let entry = counts.rowPointers[from] as number; entry < (counts.rowPointers[from + 1] as number); entry++) {
      countColumns[countEntries] = phraseMap[counts.columnIndices[entry] as number] as number;
      countValues[countEntries++] = counts.values[entry] as number;
    }
    for (let entry = rowStart + 1; entry < countEntries; entry++) {
      if ((countColumns[entry] as number) < (countColumns[entry - 1] as number)) {
        sortEntries(countColumns, countValues, rowStart, countEntries);
        break;
      }
    }
    countPointers[passage + 1] = countEntries;
  }

  // Relation keys: the kept pairs that still have a triple, renumbered.
  const keys = new Float64Array(old.relationKeys.length);
  let keyCount = 0;
  for (const key of old.relationKeys) {
    const a = phraseMap[Math.floor(key / oldPhrases)] as number;
    const b = phraseMap[key % oldPhrases] as number;
    if (a < 0 || b < 0) continue;
    const now = pairKey(a, b);
    if (touched.has(now) && !triplesOf.has(now)) continue;
    keys[keyCount++] = now;
  }
  const relationKeys = keys.slice(0, keyCount).sort();

  return encodePprGraphParts(passages, {
    graphAdjacency,
    phraseAdjacency: { rows: phraseCount, cols: phraseCount, rowPointers: phrasePointers, columnIndices: phraseColumns, values: phraseValues },
    phrasePassageCounts,
    passagePhraseCounts: { rows: passages, cols: phraseCount, rowPointers: countPointers, columnIndices: countColumns.slice(0, countEntries), values: countValues.slice(0, countEntries) },
    relationKeys,
    counts: { relationEdges: keyCount, synonymEdges: synonyms.sources.length, contextEdges },
  });
}

/** Sorts entries `start…end` of a CSR row by column (columns are distinct), moving their values with them. */
function sortEntries(columns: Int32Array, values: Float64Array, start: number, end: number): void {
  const order = Array.from({ length: end - start }, (_, offset) => start + offset).sort((left, right) => (columns[left] as number) - (columns[right] as number));
  const sortedColumns = Int32Array.from(order, (entry) => columns[entry] as number);
  const sortedValues = Float64Array.from(order, (entry) => values[entry] as number);
  columns.set(sortedColumns, start);
  values.set(sortedValues, start);
}
