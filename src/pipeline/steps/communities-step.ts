import { contentId } from '../../core/ids.js';
import type { CommunityRecord } from '../../core/types.js';
import { hierarchicalLeidenFromEdges } from '../../graph/hierarchical-leiden.js';
import type { PipelineStep, StepName } from '../pipeline-step.js';

/**
 * Hierarchical communities of the entity graph (GraphRAG `create_communities`, hierarchical Leiden as
 * graspologic's): level 0 is the coarsest; communities larger than `maxClusterSize` are split into the
 * next level. Every connected component is clustered, not only the largest. `graphStep` is the step
 * whose entities and relations are clustered (nlp-extract in fast mode, summarize in standard mode). A community lists
 * its entities, the relations inside it, and the chunks those relations come from (GraphRAG's rule),
 * or its entities' chunks when it has no inner relation.
 */
export function createCommunitiesStep(graphStep: StepName): PipelineStep {
  return {
  name: 'communities',
  version: 2,
  reads: [graphStep],
  settings: (config) => ({ communities: config.communities, algorithm: 'hierarchical-leiden' }),

  async run(context) {
    const { store, config } = context;
    const entities = await store.table('entities').all();
    const relations = await store.table('relations').all();
    const hierarchy = hierarchicalLeidenFromEdges(
      entities.map((entity) => entity.id),
      relations.map((relation) => ({ source: relation.source, target: relation.target, weight: relation.weight })),
      {
        maxClusterSize: config.communities.maxClusterSize,
        resolution: config.communities.resolution,
        seed: config.communities.seed,
      },
    );
    const entityChunks = new Map(entities.map((entity) => [entity.id, entity.chunkIds]));
    const relationsByEntity = new Map<string, typeof relations>();
    for (const relation of relations) {
      for (const endpoint of [relation.source, relation.target]) {
        let list = relationsByEntity.get(endpoint);
        if (!list) relationsByEntity.set(endpoint, (list = []));
        list.push(relation);
      }
    }
    const ids = hierarchy.map((community) => contentId('community', community.level, community.members));
    const records: CommunityRecord[] = hierarchy.map((community, index) => {
      const members = new Set(community.members);
      const inner = new Map<string, (typeof relations)[number]>();
      for (const member of community.members) {
        for (const relation of relationsByEntity.get(member) ?? []) {
          if (members.has(relation.source) && members.has(relation.target)) inner.set(relation.id, relation);
        }
      }
      const chunkIds = new Set<string>();
      for (const relation of inner.values()) for (const chunkId of relation.chunkIds) chunkIds.add(chunkId);
      if (chunkIds.size === 0) for (const member of community.members) for (const chunkId of entityChunks.get(member) ?? []) chunkIds.add(chunkId);
      return {
        id: ids[index] as string,
        level: community.level,
        parent: community.parent === null ? null : (ids[community.parent] as string),
        children: community.children.map((child) => ids[child] as string),
        title: `Community ${index + 1}`,
        entityIds: community.members,
        relationIds: [...inner.keys()].sort(),
        chunkIds: [...chunkIds],
        size: community.members.length,
      };
    });
    const levels = new Set(records.map((record) => record.level)).size;
    return {
      counts: { communities: records.length, levels },
      outputVersion: contentId('communities', ids),
      async write(tx) {
        await tx.table('communities').clear();
        await tx.table('communities').upsert(records);
      },
    };
  },
};
}
