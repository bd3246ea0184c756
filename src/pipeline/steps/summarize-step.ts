import { KgragError } from '../../core/errors.js';
import { contentId } from '../../core/ids.js';
import { collectExtractedDescriptions } from '../../extract/collect-extracted-descriptions.js';
import { summarizeAll } from '../../extract/summaries/summarize-all.js';
import { summarizeDescriptionsPrompt } from '../../extract/summaries/summarize-descriptions-prompt.js';
import type { PipelineStep } from '../pipeline-step.js';
import { chunkTextHashes } from './chunk-text-hashes.js';
import { promptsHash } from './llm-extract-step.js';
import { storedGraphExtractions } from './stored-graph-extractions.js';

/**
 * GraphRAG's description summaries (`summarize_descriptions`): every entity and relation gets the
 * descriptions all chunks gave it (through its aliases after resolution); those with two or more
 * distinct ones are summarized by the LLM within `summaries.maxInputTokens`, rolling over longer lists.
 */
export const summarizeStep: PipelineStep = {
  name: 'summarize',
  version: 1,
  reads: ['resolve-entities'],
  settings: (config, environment) => ({
    summaries: config.summaries,
    model: environment.llmModel,
    prompt: promptsHash(environment.prompts, [summarizeDescriptionsPrompt], null),
  }),

  async run(context) {
    const { store, config, llm, tokenizer } = context;
    if (!llm) {
      throw new KgragError('description summaries need an LLM', { code: 'INDEX_MODE_NEEDS_LLM', category: 'config', hint: 'configure an LLM or index with --mode fast' });
    }
    const entities = await store.table('entities').all();
    const relations = await store.table('relations').all();
    const descriptions = collectExtractedDescriptions(await storedGraphExtractions(store), entities, relations);
    const titles = new Map(entities.map((entity) => [entity.id, entity.title]));
    // A summary is derived from the chunks its descriptions were extracted from: its cached reply goes with any of them.
    const hashes = await chunkTextHashes(store);
    const items = [
      ...entities.map((entity) => ({
        key: entity.id,
        name: entity.title,
        descriptions: descriptions.entities.get(entity.id) ?? [entity.description],
        sources: hashes.of(entity.chunkIds),
      })),
      ...relations.map((relation) => ({
        key: relation.id,
        name: [titles.get(relation.source) ?? relation.source, titles.get(relation.target) ?? relation.target] as const,
        descriptions: descriptions.relations.get(relation.id) ?? [relation.description],
        sources: hashes.of(relation.chunkIds),
      })),
    ];
    const result = await summarizeAll(llm, items, {
      concurrency: Math.max(1, config.llm.concurrency * 2),
      maxInputTokens: config.summaries.maxInputTokens,
      maxWords: config.summaries.maxWords,
      tokenizer,
      prompts: context.prompts,
      onProgress: (done, total) => context.progress(done, total, 'summaries'),
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
    });
    if (result.failures > 0) context.warn('summary-failed', `${result.failures} summaries came back empty; their descriptions were joined instead`);
    const summarizedEntities = entities.map((entity) => ({ ...entity, description: result.summaries.get(entity.id) ?? entity.description }));
    const summarizedRelations = relations.map((relation) => ({ ...relation, description: result.summaries.get(relation.id) ?? relation.description }));
    return {
      counts: { entities: entities.length, relations: relations.length, summarized: result.calls, failures: result.failures, llmCriticalPath: result.criticalPath },
      outputVersion: contentId(
        'summaries',
        summarizedEntities.map((entity) => contentId('entity-description', entity.id, entity.description)),
        summarizedRelations.map((relation) => contentId('relation-description', relation.id, relation.description)),
      ),
      async write(tx) {
        await tx.table('entities').upsert(summarizedEntities);
        await tx.table('relations').upsert(summarizedRelations);
      },
    };
  },
};
