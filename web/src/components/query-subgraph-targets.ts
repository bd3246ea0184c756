import type { QueryResult, QuerySubgraph } from '../api-types';
import type { Inspected } from '../explorer-context';

type SubgraphNode = QuerySubgraph['nodes'][number];

const contentId = /^[0-9a-f]{32}$/;

/**
 * What the side panel opens for a subgraph node, by the method's subgraph builder (src/methods/*\/*-subgraph.ts):
 * passages (`chunk`, `chunk-dense`, kgp's `passage` and `seed`) are chunk ids; `entity` nodes of local/drift are
 * entity ids; `community` / `community-rated` nodes (global, drift) community ids; tot's `graph:id` nodes are
 * index entities when the id is a content id. Phrases (ppr, relations), facts and keywords (autokg) have ids of
 * their own spaces, which the panel cannot show.
 */
export function inspectTargetOf(method: string, node: SubgraphNode): Inspected | undefined {
  const base = method.split(':')[0] ?? method;
  const { kind, id } = node;
  if (kind === 'query') return undefined;
  if (kind === 'chunk' || kind === 'chunk-dense' || kind === 'passage' || (base === 'kgp' && kind === 'seed')) return { kind: 'chunk', id };
  if (kind === 'community' || kind === 'community-rated') return { kind: 'community', id };
  if (base === 'tot' && (kind === 'entity' || kind === 'seed')) {
    const local = id.slice(id.indexOf(':') + 1);
    return contentId.test(local) ? { kind: 'entity', id: local } : undefined;
  }
  if (kind === 'entity') return { kind: 'entity', id };
  return undefined;
}

/** The index entities a result retrieved: its context's entities and the entity nodes of its subgraph. */
export function resultEntityIds(result: QueryResult): Set<string> {
  const ids = new Set((result.context.entities ?? []).map((entity) => entity.id));
  for (const node of result.context.subgraph?.nodes ?? []) {
    const target = inspectTargetOf(result.method, node);
    if (target?.kind === 'entity') ids.add(target.id);
  }
  return ids;
}
