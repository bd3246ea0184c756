import type { PipelineStep, StepContext, StepName } from '../pipeline-step.js';
import { embeddingSettings } from './embed-chunks-step.js';
import { embedSpace } from './embed-space.js';

type GraphSpace = 'entities' | 'reports';

/** A step that embeds one vector space from texts it reads out of the store. */
function embedStep(
  name: StepName,
  reads: StepName[],
  space: GraphSpace,
  texts: (context: StepContext) => Promise<Array<{ id: string; text: string }>>,
): PipelineStep {
  return {
    name,
    // 2: sparse vectors are stored sparsely (a workspace of version 1 re-embeds once; the vectors are the same).
    // 3: a vector is made again when its item's text changes.
    version: 3,
    reads: ['embed-chunks', ...reads],
    settings: embeddingSettings,
    run: async (context) => embedSpace(context, space, await texts(context), { textsChange: true }),
  };
}

/** Embeds entities as "title: description", GraphRAG's `entity_description` field. */
export function createEmbedEntitiesStep(graphStep: StepName): PipelineStep {
  return embedStep('embed-entities', [graphStep], 'entities', async ({ store }) =>
    (await store.table('entities').pick(['id', 'title', 'description'])).map((entity) => ({
      id: entity.id,
      text: entity.description ? `${entity.title}: ${entity.description}` : entity.title,
    })),
  );
}

/** Embeds community reports by their full content, GraphRAG's `community_full_content` (DRIFT needs it). */
export const embedReportsStep: PipelineStep = embedStep('embed-reports', ['reports'], 'reports', async ({ store }) =>
  (await store.table('reports').pick(['communityId', 'fullContent'])).map((report) => ({ id: report.communityId, text: report.fullContent })),
);
