import { contentId } from '../../core/ids.js';
import { applyMerges } from '../../extract/entity-resolution/apply-merges.js';
import { confirmMerges } from '../../extract/entity-resolution/confirm-merges.js';
import { findResolutionCandidates } from '../../extract/entity-resolution/find-resolution-candidates.js';
import { mergesWithoutLlm } from '../../extract/entity-resolution/merges-without-llm.js';
import { resolveEntitiesPrompt } from '../../extract/entity-resolution/resolve-entities-prompt.js';
import { embedInBatches } from '../../providers/embed/embed-in-batches.js';
import type { PipelineStep } from '../pipeline-step.js';
import { embeddingSettings } from './embed-chunks-step.js';
import { chunkTextHashes } from './chunk-text-hashes.js';
import { promptsHash } from './llm-extract-step.js';

/**
 * Entity resolution, which GraphRAG lacks (its users' "Sherlock" / "Sherlock Holmes" / "Mr. Holmes"
 * complaint): after the exact normalized-name merge of extraction, candidate groups by name similarity
 * and "title: description" embedding cosine are confirmed by one LLM call per group (or merged by strict
 * rules without one); aliases are kept, the type goes by majority, relations are re-pointed.
 */
export const resolveEntitiesStep: PipelineStep = {
  name: 'resolve-entities',
  version: 1,
  reads: ['llm-extract', 'embed-chunks'],
  settings: (config, environment) => ({
    resolution: config.resolution,
    embeddings: embeddingSettings(config),
    model: environment.llmModel,
    prompt: promptsHash(environment.prompts, [resolveEntitiesPrompt], null),
  }),

  async run(context) {
    const { store, config, llm, embedder } = context;
    const entities = await store.table('entities').all();
    const relations = await store.table('relations').all();
    const passThrough = {
      counts: { entities: entities.length, relations: relations.length, groups: 0, merged: 0 },
      outputVersion: contentId('resolved', entities.map((entity) => entity.id), relations.map((relation) => `${relation.id}:${relation.weight}`)),
      write: async () => undefined,
    };
    if (!config.resolution.enabled || entities.length < 2) return passThrough;

    const texts = entities.map((entity) => (entity.description ? `${entity.title}: ${entity.description}` : entity.title));
    const embedded = await embedInBatches(embedder, texts, {
      batchSize: config.embeddings.batchSize,
      concurrency: config.embeddings.concurrency,
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
    });
    const vectors = new Map(entities.map((entity, index) => [entity.id, embedded[index] as Float32Array]));
    const groups = findResolutionCandidates(entities, vectors, {
      nameSimilarity: config.resolution.nameSimilarity,
      embeddingSimilarity: config.resolution.embeddingSimilarity,
      maxGroupSize: config.resolution.maxGroupSize,
    });
    const byId = new Map(entities.map((entity) => [entity.id, entity]));
    let failures = 0;
    let criticalPath = 0;
    let merges;
    if (llm) {
      let confirmed = 0;
      const hashes = await chunkTextHashes(store);
      const result = await confirmMerges(llm, groups, byId, {
        prompts: context.prompts,
        concurrency: Math.max(1, config.llm.concurrency * 2),
        // A group's prompt shows what its entities' chunks said of them.
        sourcesOf: (ids) => hashes.of(ids.flatMap((id) => byId.get(id)?.chunkIds ?? [])),
        ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
      });
      confirmed += result.calls;
      context.progress(confirmed, groups.length, 'groups');
      merges = result.merges;
      failures = result.failures;
      criticalPath = result.criticalPath;
    } else {
      merges = mergesWithoutLlm(groups, byId, vectors, { embeddingSimilarity: config.resolution.embeddingSimilarity });
    }
    if (failures > 0) context.warn('resolution-failed', `${failures} candidate groups got no usable answer from the LLM and were left unmerged`);
    const applied = applyMerges(entities, relations, merges);
    const merged = merges.reduce((sum, merge) => sum + merge.members.length - 1, 0);
    return {
      counts: { entities: applied.entities.length, relations: applied.relations.length, groups: groups.length, merged, failures, llmCriticalPath: criticalPath },
      outputVersion: contentId(
        'resolved',
        applied.entities.map((entity) => `${entity.id}:${entity.type}:${entity.aliases.join('|')}`),
        applied.relations.map((relation) => `${relation.id}:${relation.weight}`),
      ),
      async write(tx) {
        await tx.table('entities').clear();
        await tx.table('relations').clear();
        await tx.table('entities').upsert(applied.entities);
        await tx.table('relations').upsert(applied.relations);
      },
    };
  },
};
