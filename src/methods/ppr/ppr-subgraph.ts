import type { QuerySubgraph } from '../query-method.js';
import type { PprGraph } from './build/ppr-graph.js';

/** What {@link pprSubgraph} draws. */
export interface PprSubgraphInput {
  question: string;
  graph: PprGraph;
  /** Seed phrases with their restart weights. */
  seeds: ReadonlyMap<number, number>;
  /** Phrases with the most PageRank mass, with it. */
  topPhrases: ReadonlyArray<{ phrase: number; mass: number }>;
  /** Returned passages with their scores and labels. */
  passages: ReadonlyArray<{ passage: number; score: number; label: string }>;
}

/**
 * The explorer's view of a `ppr` retrieval: the question, its seed phrases (`seed` edges weighted by the
 * restart weight), the phrases that gathered the most mass, the returned passages, and the graph's edges
 * among them (`relation`, `synonym`, `context`).
 */
export function pprSubgraph(input: PprSubgraphInput): QuerySubgraph {
  const { graph } = input;
  const { phraseIds, phraseLabels } = graph.triples;
  const nodes: QuerySubgraph['nodes'] = [{ id: 'query', label: input.question, kind: 'query' }];
  const edges: QuerySubgraph['edges'] = [];
  const phrases = new Map<number, number | undefined>();
  for (const [phrase, weight] of input.seeds) phrases.set(phrase, weight);
  for (const { phrase } of input.topPhrases) if (!phrases.has(phrase)) phrases.set(phrase, undefined);
  const mass = new Map(input.topPhrases.map((entry) => [entry.phrase, entry.mass]));
  for (const [phrase, seed] of phrases) {
    const score = mass.get(phrase);
    nodes.push({ id: phraseIds[phrase] as string, label: phraseLabels[phrase] as string, kind: seed === undefined ? 'phrase' : 'seed-phrase', ...(score === undefined ? {} : { score }) });
    if (seed !== undefined) edges.push({ source: 'query', target: phraseIds[phrase] as string, kind: 'seed', weight: seed });
  }
  const passageNodes = new Map<number, string>();
  for (const { passage, score, label } of input.passages) {
    const id = graph.passageIds[passage] as string;
    passageNodes.set(graph.phraseCount + passage, id);
    nodes.push({ id, label, kind: 'chunk', score });
  }
  const { rowPointers, columnIndices, values } = graph.graph.outgoing;
  for (const phrase of phrases.keys()) {
    for (let entry = rowPointers[phrase] as number; entry < (rowPointers[phrase + 1] as number); entry++) {
      const neighbour = columnIndices[entry] as number;
      const weight = values[entry] as number;
      const passage = passageNodes.get(neighbour);
      if (passage !== undefined) edges.push({ source: phraseIds[phrase] as string, target: passage, kind: 'context', weight });
      else if (neighbour > phrase && phrases.has(neighbour)) {
        edges.push({ source: phraseIds[phrase] as string, target: phraseIds[neighbour] as string, kind: graph.related(phrase, neighbour) ? 'relation' : 'synonym', weight });
      }
    }
  }
  return { nodes, edges };
}
