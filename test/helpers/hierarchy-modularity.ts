import type { Kgrag } from '../../src/api/create-kgrag.js';
import { clusteringGraph, type WeightedIdEdge } from '../../src/graph/hierarchical-leiden.js';
import { modularity } from '../../src/graph/modularity.js';
import type { CsrMatrix } from '../../src/math/csr-matrix.js';

/*
 * The quality of an index's community hierarchy, level by level, on an entity graph: what the equivalence test holds an
 * updated index's communities to, and what the drift bench reports for communities kept between refreshes.
 */

/** The entity graph as the clustering sees it (`clusteringGraph`: PMI weights shifted positive), and its node order. */
export async function entityGraph(kgrag: Kgrag): Promise<{ entities: string[]; graph: CsrMatrix; relations: WeightedIdEdge[] }> {
  const ids = (await kgrag.store.table('entities').pick(['id'])).map((entity) => entity.id);
  const position = new Map(ids.map((id, index) => [id, index]));
  const relations = await kgrag.store.table('relations').pick(['source', 'target', 'weight']);
  const ends = Int32Array.from(relations.flatMap((relation) => [position.get(relation.source) ?? -1, position.get(relation.target) ?? -1]));
  const { ids: entities, graph } = clusteringGraph(ids, ends, Float64Array.from(relations, (relation) => relation.weight));
  return { entities, graph, relations };
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
