import type { QuerySubgraph } from '../query-method.js';
import type { LocalContext } from './build-local-context.js';

/** The explorer's view of a local context: the question, the matched entities, their relationships and text units. */
export function localSubgraph(question: string, built: LocalContext): QuerySubgraph {
  const nodes: QuerySubgraph['nodes'] = [{ id: 'query', label: question, kind: 'query' }];
  const edges: QuerySubgraph['edges'] = [];
  const present = new Set<string>();
  for (const { entity, score } of built.selected) {
    nodes.push({ id: entity.id, label: entity.title, kind: 'entity', score });
    edges.push({ source: 'query', target: entity.id, kind: 'match', weight: score });
    present.add(entity.id);
  }
  for (const relation of built.relations) {
    for (const endpoint of [relation.source, relation.target]) {
      if (present.has(endpoint)) continue;
      present.add(endpoint);
      nodes.push({ id: endpoint, label: built.endpointTitles.get(endpoint) ?? endpoint, kind: 'entity' });
    }
    edges.push({ source: relation.source, target: relation.target, kind: 'relation', weight: relation.weight });
  }
  for (const chunk of built.chunks) {
    nodes.push({ id: chunk.id, label: chunk.documentTitle || chunk.id, kind: 'chunk', score: chunk.score });
    for (const { entity } of built.selected) if (entity.chunkIds.includes(chunk.id)) edges.push({ source: entity.id, target: chunk.id, kind: 'mention' });
  }
  return { nodes, edges };
}
