import type { ContextChunk } from '../../answer/answer-types.js';
import { passageEdgeBit, passageEdgeKinds } from './build/passage-graph.js';
import type { QuerySubgraph } from '../query-method.js';
import type { KgpLookups } from './kgp-lookups.js';
import type { KgpRanking } from './kgp-ranking.js';

/** The names of the kinds in a bit set, joined with `+` (e.g. `entity+structural`). */
export function edgeKindLabel(kinds: number): string {
  return passageEdgeKinds.filter((kind) => (kinds & passageEdgeBit[kind]) !== 0).join('+');
}

/**
 * The explorer's view of a KGP retrieval: the question, its seed passages (`seed` edges from the question,
 * weighted by the seed score) and the passages the traversal reached, along the graph links it followed
 * (edge kind = the link's kinds, weight = the score the link's target got).
 */
export function kgpSubgraph(question: string, ranking: KgpRanking, chunks: readonly ContextChunk[], lookups: KgpLookups): QuerySubgraph {
  const chunkOf = new Map(chunks.map((chunk) => [chunk.id, chunk]));
  const seeds = new Set(ranking.seeds.map((seed) => seed.passage));
  const nodes: QuerySubgraph['nodes'] = [{ id: 'query', label: question, kind: 'query' }];
  const edges: QuerySubgraph['edges'] = [];
  const present = new Set<number>();
  const addNode = (passage: number, score: number | undefined): void => {
    if (present.has(passage)) return;
    present.add(passage);
    const id = lookups.chunkIds[passage] as string;
    const chunk = chunkOf.get(id);
    nodes.push({ id, label: chunk?.documentTitle || id, kind: seeds.has(passage) ? 'seed' : 'passage', ...(score === undefined ? {} : { score }) });
  };
  for (const seed of ranking.seeds) {
    addNode(seed.passage, seed.score);
    edges.push({ source: 'query', target: lookups.chunkIds[seed.passage] as string, kind: 'seed', weight: seed.score });
  }
  for (const item of ranking.passages) addNode(item.passage, item.score);
  for (const edge of ranking.edges) {
    addNode(edge.source, undefined);
    addNode(edge.target, undefined);
    edges.push({ source: lookups.chunkIds[edge.source] as string, target: lookups.chunkIds[edge.target] as string, kind: edgeKindLabel(edge.kinds), weight: edge.weight });
  }
  return { nodes, edges };
}
