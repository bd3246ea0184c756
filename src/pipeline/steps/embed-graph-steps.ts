import type { TableName } from '../../store/schema.js';
import type { PipelineStep, StepContext, StepName } from '../pipeline-step.js';
import { embeddingSettings } from './embed-chunks-step.js';
import { embedChangingTexts } from './embed-space.js';

type GraphSpace = 'entities' | 'reports';

/** A step that embeds one vector space from the texts of one table's rows, keyed by the table's key. */
function embedStep(
  name: StepName,
  reads: StepName[],
  space: GraphSpace,
  table: TableName,
  texts: (context: StepContext, ids: readonly string[] | undefined) => Promise<Array<{ id: string; text: string }>>,
): PipelineStep {
  return {
    name,
    // 2: sparse vectors are stored sparsely (a workspace of version 1 re-embeds once; the vectors are the same).
    // 3: a vector is made again when its item's text changes.
    version: 3,
    reads: ['embed-chunks', ...reads],
    settings: embeddingSettings,
    // An update reads the texts of the rows the run wrote, when the runner knows them.
    run: async (context) => embedChangingTexts(context, space, { read: (ids) => texts(context, ids), changed: context.changedKeys?.(table) }),
  };
}

/** Embeds entities as "title: description", GraphRAG's `entity_description` field. */
export function createEmbedEntitiesStep(graphStep: StepName): PipelineStep {
  return embedStep('embed-entities', [graphStep], 'entities', 'entities', async ({ store }, ids) =>
    (await store.table('entities').pick(['id', 'title', 'description'], ids && { column: 'id', values: ids })).map((entity) => ({
      id: entity.id,
      text: entity.description ? `${entity.title}: ${entity.description}` : entity.title,
    })),
  );
}

/** Embeds community reports by their full content, GraphRAG's `community_full_content` (DRIFT needs it). */
export const embedReportsStep: PipelineStep = embedStep('embed-reports', ['reports'], 'reports', 'reports', async ({ store }, ids) =>
  (await store.table('reports').pick(['communityId', 'fullContent'], ids && { column: 'communityId', values: ids })).map((report) => ({ id: report.communityId, text: report.fullContent })),
);
