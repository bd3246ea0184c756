import { contentId } from '../../core/ids.js';
import { activeEntityEdits, entityEditRules } from '../../extract/entity-edits/entity-edit-rules.js';
import { mergesWithEdits } from '../../extract/entity-edits/merges-with-edits.js';
import { applyMerges } from '../../extract/entity-resolution/apply-merges.js';
import { confirmMerges } from '../../extract/entity-resolution/confirm-merges.js';
import { findResolutionCandidates } from '../../extract/entity-resolution/find-resolution-candidates.js';
import { mergesWithoutLlm } from '../../extract/entity-resolution/merges-without-llm.js';
import { normalizeEntityName } from '../../extract/entity-resolution/normalize-entity-name.js';
import { resolveEntitiesPrompt } from '../../extract/entity-resolution/resolve-entities-prompt.js';
import { embedInBatches } from '../../providers/embed/embed-in-batches.js';
import type { EntityRecord } from '../../core/types.js';
import type { EntityMerge } from '../../extract/entity-resolution/resolution-types.js';
import type { Store } from '../../store/store.js';
import type { PipelineStep, StepContext } from '../pipeline-step.js';
import { embeddingSettings } from './embed-chunks-step.js';
import { readEntityEdits } from './entity-edits-step.js';
import { extractedLlmGraph } from './extracted-llm-graph.js';
import { chunkTextHashes } from './chunk-text-hashes.js';
import { promptsHash } from './llm-extract-step.js';

/** Meta key of the candidate groups (`resolutionGroupKey`) the last run could not decide, for the next run to ask again. */
const undecidedGroupsKey = 'resolve-entities:undecided';

/**
 * Entity resolution, which GraphRAG lacks (its users' "Sherlock" / "Sherlock Holmes" / "Mr. Holmes"
 * complaint): after the exact normalized-name merge of extraction, candidate groups by name similarity
 * and "title: description" embedding cosine are confirmed by one LLM call per group (or merged by strict
 * rules without one); aliases are kept, the type goes by majority, relations are re-pointed.
 *
 * A group whose reply stays unusable after the repair turn is left unmerged and undecided: the run counts it
 * (`undecided`) and warns, and the step runs again on the next index run (`unfinished`), which asks the model about
 * those groups past the LLM cache — the cache holds their unusable replies — and takes the others from the cache.
 */
export const resolveEntitiesStep: PipelineStep = {
  name: 'resolve-entities',
  version: 1,
  reads: ['llm-extract', 'embed-chunks', 'entity-edits'],
  // `failures`: what a run of an older kgrag called its undecided groups (it did not remember which they were).
  unfinished: (previous) => (previous.counts['undecided'] ?? previous.counts['failures'] ?? 0) > 0,
  settings: (config, environment) => ({
    resolution: config.resolution,
    embeddings: embeddingSettings(config),
    model: environment.llmModel,
    prompt: promptsHash(environment.prompts, [resolveEntitiesPrompt], null),
  }),

  async run(context) {
    const { store, config } = context;
    // Not the tables: after an earlier run of this step they hold its merges and summarize's descriptions.
    const { entities, relations } = await extractedLlmGraph(store);
    const passThrough = {
      counts: { entities: entities.length, relations: relations.length, groups: 0, merged: 0, undecided: 0 },
      outputVersion: contentId('resolved', entities.map((entity) => entity.id), relations.map((relation) => `${relation.id}:${relation.weight}`)),
      write: async (tx: Store) => tx.setMeta(undecidedGroupsKey, null),
    };
    const edits = entityEditRules(activeEntityEdits(await readEntityEdits(store)), normalizeEntityName);
    const edited = edits.sameAs.size + edits.keepApart.size > 0;
    // A person's merges apply with resolution turned off too: they are not resolution's guesses.
    if ((!config.resolution.enabled && !edited) || entities.length < 2) return passThrough;
    const { merges, groups, undecided, criticalPath } = config.resolution.enabled
      ? await resolutionMerges(context, entities)
      : { merges: [], groups: [], undecided: [], criticalPath: 0 };
    const final = mergesWithEdits(merges, entities, edits, normalizeEntityName);
    const applied = applyMerges(entities, relations, final);
    const merged = final.reduce((sum, merge) => sum + merge.members.length - 1, 0);
    return {
      counts: { entities: applied.entities.length, relations: applied.relations.length, groups: groups.length, merged, undecided: undecided.length, llmCriticalPath: criticalPath },
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
        await tx.setMeta(undecidedGroupsKey, undecided.length > 0 ? undecided : null);
      },
    };
  },
};

/** Resolution's own merges: candidate groups by name and embedding, confirmed by the LLM or by strict rules. */
async function resolutionMerges(
  context: StepContext,
  entities: readonly EntityRecord[],
): Promise<{ merges: EntityMerge[]; groups: readonly unknown[]; undecided: string[]; criticalPath: number }> {
  const { store, config, llm, embedder } = context;
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
  if (!llm) return { merges: mergesWithoutLlm(groups, byId, vectors, { embeddingSimilarity: config.resolution.embeddingSimilarity }), groups, undecided: [], criticalPath: 0 };
  const hashes = await chunkTextHashes(store);
  const result = await confirmMerges(llm, groups, byId, {
    prompts: context.prompts,
    concurrency: Math.max(1, config.llm.concurrency * 2),
    // A group's prompt shows what its entities' chunks said of them.
    sourcesOf: (ids) => hashes.of(ids.flatMap((id) => byId.get(id)?.chunkIds ?? [])),
    askAgain: new Set((await store.getMeta<string[]>(undecidedGroupsKey)) ?? []),
    ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
  });
  context.progress(result.calls, groups.length, 'groups');
  if (result.undecided.length > 0) {
    const count = result.undecided.length;
    context.warn(
      'resolution-undecided',
      `${count === 1 ? '1 candidate group' : `${count} candidate groups`} could not be decided (the LLM's replies stayed unusable after a repair turn) and ${count === 1 ? 'was' : 'were'} left unmerged; the next index run asks the LLM again`,
    );
  }
  return { merges: result.merges, groups, undecided: result.undecided, criticalPath: result.criticalPath };
}
