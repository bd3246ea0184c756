import type { Kgrag } from '../../src/api/create-kgrag.js';
import type { WeightedIdEdge } from '../../src/graph/hierarchical-leiden.js';
import { modularity } from '../../src/graph/modularity.js';
import { undirectedGraphCsr, type CsrMatrix, type IndexedEdge } from '../../src/math/csr-matrix.js';

/*
 * The quality of an index's community hierarchy, level by level, on an entity graph: what the equivalence test holds an
 * updated index's communities to, and what the drift bench reports for communities kept between refreshes.
 */

/** The entity graph as the clustering sees it (PMI weights shifted positive, as it shifts them), and its node order. */
export async function entityGraph(kgrag: Kgrag): Promise<{ entities: string[]; graph: CsrMatrix; relations: WeightedIdEdge[] }> {
  const entities = (await kgrag.store.table('entities').pick(['id'])).map((entity) => entity.id).sort();
  const indexOf = new Map(entities.map((id, index) => [id, index]));
  const relations = await kgrag.store.table('relations').pick(['source', 'target', 'weight']);
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const relation of relations) {
    low = Math.min(low, relation.weight);
    high = Math.max(high, relation.weight);
  }
  const floor = high > low ? (high - low) * 0.01 : 1;
  const edges: IndexedEdge[] = [];
  for (const relation of relations) {
    const source = indexOf.get(relation.source);
    const target = indexOf.get(relation.target);
    if (source === undefined || target === undefined || source === target) continue;
    edges.push({ source, target, weight: low <= 0 ? relation.weight - low + floor : relation.weight });
  }
  return { entities, graph: undirectedGraphCsr(entities.length, edges), relations };
}

/** Modularity of each level's partition of the graph; an entity in no community of a level keeps its own. */
export function levelModularity(entities: readonly string[], graph: CsrMatrix, communities: ReadonlyArray<{ level: number; members: readonly string[] }>): number[] {
  const indexOf = new Map(entities.map((id, index) => [id, index]));
  const levels = [...new Set(communities.map((community) => community.level))].sort((a, b) => a - b);
  return levels.map((level) => {
    const membership = Int32Array.from(entities, (_, index) => -1 - index);
    communities
      .filter((community) => community.level === level)
      .forEach((community, number) => {
        for (const id of community.members) membership[indexOf.get(id) ?? 0] = number;
      });
    const renumbered = new Map<number, number>();
    return modularity(graph, Int32Array.from(membership, (value) => renumbered.get(value) ?? (renumbered.set(value, renumbered.size), renumbered.size - 1)));
  });
}

export async function storedCommunities(kgrag: Kgrag): Promise<Array<{ level: number; members: string[] }>> {
  return (await kgrag.store.table('communities').pick(['level', 'entityIds'])).map((community) => ({ level: community.level, members: community.entityIds }));
}
