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
    // Entities, relations and chunks as numbers, and a community's members marked by its index in stamp
    // arrays: the hierarchy lists each entity once per level, and sets of string ids cost most of the step.
    const entityIndex = new Map(entities.map((entity, index) => [entity.id, index]));
    const chunkIndex = new Map<string, number>();
    const chunkIds: string[] = [];
    const chunkNumbers = (ids: readonly string[]): Int32Array =>
      Int32Array.from(ids, (id) => {
        let index = chunkIndex.get(id);
        if (index === undefined) {
          index = chunkIds.length;
          chunkIndex.set(id, index);
          chunkIds.push(id);
        }
        return index;
      });
    const entityChunks = entities.map((entity) => chunkNumbers(entity.chunkIds));
    const relationChunks = relations.map((relation) => chunkNumbers(relation.chunkIds));
    const endpoints = new Int32Array(relations.length * 2);
    const relationsByEntity: number[][] = entities.map(() => []);
    relations.forEach((relation, index) => {
      const source = entityIndex.get(relation.source) ?? -1;
      const target = entityIndex.get(relation.target) ?? -1;
      endpoints[index * 2] = source;
      endpoints[index * 2 + 1] = target;
      for (const endpoint of [source, target]) if (endpoint >= 0) relationsByEntity[endpoint]?.push(index);
    });
    const memberStamp = new Int32Array(entities.length).fill(-1);
    const relationStamp = new Int32Array(relations.length).fill(-1);
    const chunkStamp = new Int32Array(chunkIds.length).fill(-1);
    const ids = hierarchy.map((community) => contentId('community', community.level, community.members));
    const records: CommunityRecord[] = hierarchy.map((community, index) => {
      const members = community.members.map((member) => entityIndex.get(member) ?? -1);
      for (const member of members) if (member >= 0) memberStamp[member] = index;
      const isMember = (entity: number): boolean => entity >= 0 && memberStamp[entity] === index;
      // Inner relations in the order first met: by member, then by the member's relations in table order.
      const inner: number[] = [];
      for (const member of members) {
        if (member < 0) continue;
        for (const relation of relationsByEntity[member] ?? []) {
          if (relationStamp[relation] === index || !isMember(endpoints[relation * 2] as number) || !isMember(endpoints[relation * 2 + 1] as number)) continue;
          relationStamp[relation] = index;
          inner.push(relation);
        }
      }
      const communityChunks: string[] = [];
      const addChunks = (numbers: Int32Array): void => {
        for (const chunk of numbers) {
          if (chunkStamp[chunk] === index) continue;
          chunkStamp[chunk] = index;
          communityChunks.push(chunkIds[chunk] as string);
        }
      };
      for (const relation of inner) addChunks(relationChunks[relation] as Int32Array);
      if (communityChunks.length === 0) for (const member of members) if (member >= 0) addChunks(entityChunks[member] as Int32Array);
      return {
        id: ids[index] as string,
        level: community.level,
        parent: community.parent === null ? null : (ids[community.parent] as string),
        children: community.children.map((child) => ids[child] as string),
        title: `Community ${index + 1}`,
        entityIds: community.members,
        relationIds: inner.map((relation) => (relations[relation] as (typeof relations)[number]).id).sort(),
        chunkIds: communityChunks,
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
