import type { KgEntity } from './kg/knowledge-graph.js';
import { preOrder, type TreeSearchResult } from './tree-search.js';
import { traversalEdgeKey, type TraversalEdge } from './traversal-state.js';

/** Everything the search saw, across all branches, marked by whether the returned answer's state holds it. */
export interface VisitedGraph {
  entities: Array<{ entity: KgEntity; seed: boolean; onPath: boolean }>;
  /** Edges with the phrase the prompts showed (`has director`). */
  edges: Array<{ edge: TraversalEdge; phrase: string; onPath: boolean }>;
}

/**
 * The union of the local subgraphs of every node of the tree, in discovery order. "On the path" means in
 * the state of the returned answer (or of the root when there is none): what the answer was based on.
 */
export function visitedGraph(result: TreeSearchResult): VisitedGraph {
  const pathState = (result.answerNode ?? result.root).state;
  const seeds = new Set(result.root.state.entities.map((entity) => entity.id));
  const onPathEntities = new Set(pathState.entities.map((entity) => entity.id));
  const onPathEdges = new Set(pathState.edges.map(traversalEdgeKey));
  const entities = new Map<string, VisitedGraph['entities'][number]>();
  const edges = new Map<string, VisitedGraph['edges'][number]>();
  for (const node of preOrder(result.root)) {
    for (const entity of node.state.entities) {
      if (!entities.has(entity.id)) entities.set(entity.id, { entity, seed: seeds.has(entity.id), onPath: onPathEntities.has(entity.id) });
    }
    for (const edge of node.state.edges) {
      const key = traversalEdgeKey(edge);
      if (!edges.has(key)) edges.set(key, { edge, phrase: node.state.relationPhrase(edge.relation), onPath: onPathEdges.has(key) });
    }
  }
  return { entities: [...entities.values()], edges: [...edges.values()] };
}
