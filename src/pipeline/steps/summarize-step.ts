import { gunzipSync, gzipSync } from 'node:zlib';
import { KgragError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import { contentId } from '../../core/ids.js';
import { collectExtractedDescriptions } from '../../extract/collect-extracted-descriptions.js';
import { summarizeAll, type SummarizeAllResult, type SummaryItem } from '../../extract/summaries/summarize-all.js';
import { summarizeDescriptionsPrompt } from '../../extract/summaries/summarize-descriptions-prompt.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { ownsItem } from '../owns-item.js';
import type { PipelineStep, StepContext } from '../pipeline-step.js';
import { chunkTextHashes } from './chunk-text-hashes.js';
import { promptsHash } from './llm-extract-step.js';
import { storedGraphExtractions } from './stored-graph-extractions.js';

/** Blob of the summaries of the last run, by a hash of the element's name, descriptions, prompt and settings. */
const summaryMemoKey = 'summarize:memo';

async function readSummaryMemo(store: Store): Promise<Map<string, string>> {
  const stored = await store.getBlob(summaryMemoKey);
  return new Map(stored === undefined ? [] : (JSON.parse(gunzipSync(stored).toString('utf8')) as Array<[string, string]>));
}

function summaryModel(context: StepContext): LanguageModel {
  if (context.llm) return context.llm;
  throw new KgragError('description summaries need an LLM', { code: 'INDEX_MODE_NEEDS_LLM', category: 'config', hint: 'configure an LLM or index with --mode fast' });
}

/**
 * Every entity and relation with the descriptions the chunks gave it, and those of them whose summary is not
 * remembered from an earlier run: the items the model is asked about (those with fewer than two distinct
 * descriptions are then left to `summarizeAll`, which needs no call for them).
 */
async function summaryWork(context: StepContext, llm: LanguageModel) {
  const { store, config } = context;
  const entities = await store.table('entities').all();
  const relations = await store.table('relations').all();
  const descriptions = collectExtractedDescriptions(await storedGraphExtractions(store), entities, relations);
  const titles = new Map(entities.map((entity) => [entity.id, entity.title]));
  // A summary is derived from the chunks its descriptions were extracted from: its cached reply goes with any of them.
  const hashes = await chunkTextHashes(store);
  const items: SummaryItem[] = [
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
  // Summaries of earlier runs, by what they were written from: an update summarizes only the elements whose list
  // of descriptions changed, whether or not the LLM cache is on (a library user may pass a model without one).
  const settings = promptsHash(context.prompts, [summarizeDescriptionsPrompt], { summaries: config.summaries, model: llm.modelId });
  const memoKeyOf = (item: SummaryItem): string => contentId('summary', settings, JSON.stringify(item.name), item.descriptions);
  const memo = await readSummaryMemo(store);
  const remembered = new Map<string, string>();
  const toSummarize = items.filter((item) => {
    const summary = memo.get(memoKeyOf(item));
    if (summary !== undefined) remembered.set(item.key, summary);
    return summary === undefined;
  });
  return { entities, relations, items, toSummarize, remembered, memoKeyOf };
}

/** Summaries of `items`, each by its own calls (a rolling summary's calls one after another). */
function summarize(context: StepContext, llm: LanguageModel, items: readonly SummaryItem[]): Promise<SummarizeAllResult> {
  const { config } = context;
  return summarizeAll(llm, items, {
    concurrency: Math.max(1, config.llm.concurrency * 2),
    maxInputTokens: config.summaries.maxInputTokens,
    maxWords: config.summaries.maxWords,
    tokenizer: context.tokenizer,
    prompts: context.prompts,
    onProgress: (done, total) => context.progress(done, total, 'summaries'),
    ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
  });
}

/**
 * GraphRAG's description summaries (`summarize_descriptions`): every entity and relation gets the
 * descriptions all chunks gave it (through its aliases after resolution); those with two or more
 * distinct ones are summarized by the LLM within `summaries.maxInputTokens`, rolling over longer lists. A summary is
 * kept from the last run when the element's descriptions are the same, so an update pays only for changed lists.
 *
 * Prefetch: an item is an entity or relation whose summary is not remembered, owned by its id; one round.
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

  async prefetch(context, shard) {
    const llm = summaryModel(context);
    if ((shard.round ?? 0) !== 0) return { items: 0, calls: 0 };
    const { toSummarize } = await summaryWork(context, llm);
    const owned = toSummarize.filter((item) => ownsItem(shard, item.key));
    const result = await summarize(context, llm, owned);
    return { items: owned.length, calls: result.calls };
  },

  async run(context) {
    const llm = summaryModel(context);
    const { entities, relations, items, toSummarize, remembered, memoKeyOf } = await summaryWork(context, llm);
    const fresh = await summarize(context, llm, toSummarize);
    const result = { ...fresh, summaries: new Map([...remembered, ...fresh.summaries]) };
    const nextMemo = new Map<string, string>();
    for (const item of items) if (remembered.has(item.key)) nextMemo.set(memoKeyOf(item), remembered.get(item.key) as string);
    const byKey = new Map(toSummarize.map((item) => [item.key, item]));
    for (const key of fresh.summarizedKeys) {
      const item = byKey.get(key);
      if (item) nextMemo.set(memoKeyOf(item), fresh.summaries.get(key) ?? '');
    }
    if (result.failures > 0) context.warn('summary-failed', `${result.failures} summaries came back empty; their descriptions were joined instead`);
    const summarizedEntities = entities.map((entity) => ({ ...entity, description: result.summaries.get(entity.id) ?? entity.description }));
    const summarizedRelations = relations.map((relation) => ({ ...relation, description: result.summaries.get(relation.id) ?? relation.description }));
    return {
      counts: {
        entities: entities.length,
        relations: relations.length,
        summarized: result.calls,
        reused: remembered.size,
        failures: result.failures,
        llmCriticalPath: result.criticalPath,
      },
      outputVersion: contentId(
        'summaries',
        summarizedEntities.map((entity) => contentId('entity-description', entity.id, entity.description)),
        summarizedRelations.map((relation) => contentId('relation-description', relation.id, relation.description)),
      ),
      async write(tx) {
        await tx.table('entities').upsert(summarizedEntities);
        await tx.table('relations').upsert(summarizedRelations);
        await tx.setBlob(summaryMemoKey, gzipSync(JSON.stringify([...nextMemo])));
      },
    };
  },
};
