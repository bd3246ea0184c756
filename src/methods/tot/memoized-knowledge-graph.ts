import type { KgEdgeList, KgRelationList, KnowledgeGraph } from './kg/knowledge-graph.js';

/**
 * `kg` with its relation and edge lookups remembered for one search. Branches of a tree search often select
 * the same entities (backtracking re-lists an entity's relations; siblings pick the same relation), and a
 * SPARQL graph answers each repeat with another HTTP request. Selections are keyed in their order (a graph may
 * order its answer by them); a failed lookup
 * is forgotten, so a later branch asks again (an endpoint's 503 need not stay an error for the whole search).
 * Results are shared between branches and must not be mutated (traversal states copy what they keep).
 */
export function memoizedKnowledgeGraph(kg: KnowledgeGraph): KnowledgeGraph {
  const relations = new Map<string, Promise<KgRelationList>>();
  const edges = new Map<string, Promise<KgEdgeList>>();
  const remember = <T>(cache: Map<string, Promise<T>>, key: string, run: () => Promise<T>): Promise<T> => {
    let pending = cache.get(key);
    if (pending === undefined) {
      pending = run();
      cache.set(key, pending);
      pending.catch(() => cache.delete(key));
    }
    return pending;
  };
  const selectionKey = (ids: readonly string[]): string => ids.join('\u0000');
  return {
    name: kg.name,
    searchEntities: (text, options) => kg.searchEntities(text, options),
    getEntities: (ids, options) => kg.getEntities(ids, options),
    linkEntity: (entity, options) => kg.linkEntity(entity, options),
    getRelations: (selected, options) => remember(relations, selectionKey(selected), () => kg.getRelations(selected, options)),
    getEdges: (selected, relation, options) =>
      remember(edges, `${selectionKey(selected)}\u0001${relation.graph}\u0001${relation.direction}\u0001${relation.id}`, () => kg.getEdges(selected, relation, options)),
  };
}
