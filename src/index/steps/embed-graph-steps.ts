import type { PipelineStep, StepName } from '../pipeline-step.js';
import { embeddingSettings } from './embed-chunks-step.js';
import { embedSpace } from './embed-space.js';

/** Embeds entities as "title: description", GraphRAG's `entity_description` field. */
export function createEmbedEntitiesStep(graphStep: StepName): PipelineStep {
  return {
    name: 'embed-entities',
    version: 1,
    reads: ['embed-chunks', graphStep],
    settings: embeddingSettings,
    async run(context) {
      const entities = await context.store.table('entities').pick(['id', 'title', 'description']);
      return embedSpace(
        context,
        'entities',
        entities.map((entity) => ({ id: entity.id, text: entity.description ? `${entity.title}: ${entity.description}` : entity.title })),
      );
    },
  };
}

/**
 * Embeds each relation as a sentence, "source – description – target" (the relation retrieval of Graph
 * RAG with Milvus searches these), falling back to "source – target" without a description.
 */
export function createEmbedRelationsStep(graphStep: StepName): PipelineStep {
  return {
    name: 'embed-relations',
    version: 1,
    reads: ['embed-chunks', graphStep],
    settings: embeddingSettings,
    async run(context) {
      const titles = new Map((await context.store.table('entities').pick(['id', 'title'])).map((entity) => [entity.id, entity.title]));
      const relations = await context.store.table('relations').pick(['id', 'source', 'target', 'description']);
      return embedSpace(
        context,
        'relations',
        relations.map((relation) => {
          const source = titles.get(relation.source) ?? relation.source;
          const target = titles.get(relation.target) ?? relation.target;
          return { id: relation.id, text: relation.description ? `${source} – ${relation.description} – ${target}` : `${source} – ${target}` };
        }),
      );
    },
  };
}

/** Embeds community reports by their full content, GraphRAG's `community_full_content` (DRIFT needs it). */
export const embedReportsStep: PipelineStep = {
  name: 'embed-reports',
  version: 1,
  reads: ['embed-chunks', 'reports'],
  settings: embeddingSettings,
  async run(context) {
    const reports = await context.store.table('reports').pick(['communityId', 'fullContent']);
    return embedSpace(
      context,
      'reports',
      reports.map((report) => ({ id: report.communityId, text: report.fullContent })),
    );
  },
};
