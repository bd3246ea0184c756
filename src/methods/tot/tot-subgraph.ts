import type { QuerySubgraph } from '../query-method.js';
import type { VisitedGraph } from './visited-graph.js';

/**
 * The explorer's view of a Tree-of-Traversals search: the question, the entities it started from (`seed`
 * edges from the question), and every entity, literal and edge any branch reached. Entities and edges of
 * the returned answer's state have score / weight 1, the rest of the explored graph 0.
 */
export function totSubgraph(question: string, visited: VisitedGraph): QuerySubgraph {
  const nodeId = (graph: string, id: string): string => `${graph}:${id}`;
  const graphOf = new Map(visited.entities.map(({ entity }) => [entity.id, entity.graph]));
  const nodes: QuerySubgraph['nodes'] = [{ id: 'query', label: question, kind: 'query' }];
  const edges: QuerySubgraph['edges'] = [];
  for (const { entity, seed, onPath } of visited.entities) {
    nodes.push({ id: nodeId(entity.graph, entity.id), label: entity.label, kind: seed ? 'seed' : 'entity', score: onPath ? 1 : 0 });
    if (seed) edges.push({ source: 'query', target: nodeId(entity.graph, entity.id), kind: 'seed', weight: 1 });
  }
  const known = new Set(nodes.map((node) => node.id));
  for (const { edge, phrase, onPath } of visited.edges) {
    const source = nodeId(graphOf.get(edge.source) ?? 'kg', edge.source);
    let target: string;
    if (edge.target !== undefined) {
      target = nodeId(graphOf.get(edge.target) ?? 'kg', edge.target);
      if (!known.has(target)) nodes.push({ id: target, label: edge.target, kind: 'entity', score: onPath ? 1 : 0 });
    } else {
      // A literal is its own node per edge, so that two "1999"s of different entities stay apart.
      target = `value:${edge.source}:${edge.relation}:${edge.value ?? ''}`;
      if (!known.has(target)) nodes.push({ id: target, label: edge.value ?? '', kind: 'value', score: onPath ? 1 : 0 });
    }
    known.add(target);
    edges.push({ source, target, kind: phrase, weight: onPath ? 1 : 0 });
  }
  return { nodes, edges };
}
