import { KgragError } from '../../core/errors.js';
import { contentId, sha256 } from '../../core/ids.js';
import { mapWithConcurrency } from '../../core/map-with-concurrency.js';
import type { PromptLibrary, PromptTemplate } from '../../core/prompt-library.js';
import type { ExtractionRecord } from '../../core/types.js';
import { extractGraphFromText } from '../../extract/llm-graph/extract-graph-from-text.js';
import { extractGraphPrompts } from '../../extract/llm-graph/extract-graph-prompt.js';
import type { ExtractedGraph } from '../../extract/llm-graph/extracted-graph.js';
import { restoreNameCasing } from '../../extract/llm-graph/restore-name-casing.js';
import { mergeExtractedGraphs } from '../../extract/merge-extracted-graphs.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { withCallCount } from '../../providers/llm/with-call-count.js';
import { prefetchOwnedChunks } from '../prefetch-owned-chunks.js';
import type { PipelineStep, StepContext } from '../pipeline-step.js';
import { storedExtractions } from './stored-extractions.js';

/** `extractor` of LLM graph extractions in the `extractions` table. */
export const llmGraphExtractor = 'llm-graph';

/** What an LLM graph extraction stores per chunk. */
export interface StoredGraphExtraction {
  graph: ExtractedGraph;
  problems: string[];
  /** True when the model's output could not be used even after its repair turn. */
  failed: boolean;
}

/** Hash of the prompt texts and settings that determine an extraction: a change re-extracts (from the LLM cache when possible). */
export function promptsHash(prompts: PromptLibrary, templates: readonly PromptTemplate[], settings: unknown): string {
  return contentId('prompts', JSON.stringify(settings), templates.map((template) => prompts.text(template)));
}

/** The templates of graph extraction in the configured format. */
export function graphExtractionTemplates(format: 'json' | 'tuples'): PromptTemplate[] {
  const variant = extractGraphPrompts[format];
  return [variant.extract, variant.continue, extractGraphPrompts.loop];
}

/** Stops with a diagnosis rather than building an empty graph (GraphRAG issues #515, #562, #1881). */
function noEntitiesError(chunks: number, failed: number, sample: string[]): KgragError {
  return new KgragError(`LLM extraction found no entities in ${chunks} chunks (${failed} replies unusable)`, {
    code: 'INDEX_NO_ENTITIES',
    category: 'provider',
    hint:
      'check the model: a context window too small for the extraction prompt, a "thinking" model that answers outside the format, ' +
      'or an endpoint that is not a chat model; try extract.llm.format: tuples for small local models' +
      (sample.length > 0 ? `; first problems: ${sample.join(' | ')}` : ''),
    details: { chunks, failed, sample },
  });
}

/** The chat model of a standard-mode step, or the error that says how to configure one. */
function extractionModel(context: StepContext): LanguageModel {
  if (context.llm) return context.llm;
  throw new KgragError('standard mode needs an LLM, and none is configured', {
    code: 'INDEX_MODE_NEEDS_LLM',
    category: 'config',
    hint: 'set KGRAG_LLM_BASE_URL (e.g. Ollama) or OPENAI_API_KEY, or index with --mode fast',
  });
}

/** The chunks of the index, the extractions of them that can be reused, and those still to extract. */
async function extractionWork(context: StepContext, llm: LanguageModel) {
  const settings = context.config.extract.llm;
  const hash = promptsHash(context.prompts, graphExtractionTemplates(settings.format), { ...settings, model: llm.modelId });
  const chunks = await context.store.table('chunks').pick(['id', 'text']);
  const { reusable: stored, staleIds } = await storedExtractions(context.store, llmGraphExtractor, hash, new Set(chunks.map((chunk) => chunk.id)));
  const pending = chunks.filter((chunk) => !stored.has(chunk.id));
  return { hash, chunks, stored, staleIds, pending };
}

/** A chunk's extraction conversation (its first turn and gleanings) and the record `run` stores of it; `calls` were made one after another. */
async function extractChunk(context: StepContext, llm: LanguageModel, hash: string, chunk: { id: string; text: string }): Promise<{ record: ExtractionRecord; calls: number }> {
  const settings = context.config.extract.llm;
  let parsed: StoredGraphExtraction;
  let raw: string[] = [];
  const counted = withCallCount(llm);
  try {
    const result = await extractGraphFromText(counted.model, {
      text: chunk.text,
      entityTypes: settings.entityTypes,
      maxGleanings: settings.maxGleanings,
      format: settings.format,
      prompts: context.prompts,
      sources: [sha256(chunk.text)],
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
    });
    raw = result.turns;
    parsed = { graph: result.graph, problems: result.problems, failed: false };
  } catch (error) {
    if (!(LlmCallError.isInstance(error) && error.code === 'LLM_INVALID_OUTPUT')) throw error;
    parsed = { graph: { entities: [], relations: [] }, problems: [error.message], failed: true };
  }
  const record: ExtractionRecord = {
    id: contentId('extraction', chunk.id, llmGraphExtractor, hash),
    chunkId: chunk.id,
    extractor: llmGraphExtractor,
    model: llm.modelId,
    promptHash: hash,
    raw: JSON.stringify(raw),
    parsed,
  };
  return { record, calls: counted.calls() };
}

/** Conversations open at once: four per slot of the model's limiter (see {@link llmExtractStep}). */
const openConversations = (context: StepContext): number => Math.max(1, context.config.llm.concurrency * 4);

/**
 * GraphRAG's LLM graph extraction (`extract_graph`): one conversation per chunk with gleanings, chunks in
 * parallel up to four times the LLM concurrency. A conversation's calls run one after another, so with fewer
 * conversations open the model's limiter runs dry at the end of the step while the last chunks glean; with
 * four times as many, the first calls of almost every chunk are queued before any gleaning is. Replies
 * are stored in `extractions`, so a rebuild with other merge, resolution or community settings never calls
 * the model again; paid calls are also in the LLM cache the moment they complete, so a crash mid-step
 * repays nothing. A chunk whose reply stays unusable is recorded as failed and skipped.
 *
 * Prefetch: an item is a chunk without a stored extraction of the current prompts and settings, owned by its
 * chunk id; one round.
 */
export const llmExtractStep: PipelineStep = {
  name: 'llm-extract',
  version: 1,
  reads: ['chunk'],
  settings: (config, environment) => ({
    llm: config.extract.llm,
    model: environment.llmModel,
    prompts: promptsHash(environment.prompts, graphExtractionTemplates(config.extract.llm.format), null),
  }),

  async prefetch(context, shard) {
    const llm = extractionModel(context);
    if ((shard.round ?? 0) !== 0) return { items: 0, calls: 0 };
    const { hash, pending } = await extractionWork(context, llm);
    return prefetchOwnedChunks(context, shard, llm, pending, openConversations(context), (model, chunk) => extractChunk(context, model, hash, chunk));
  },

  async run(context: StepContext) {
    const llm = extractionModel(context);
    const { hash, chunks, stored, staleIds, pending } = await extractionWork(context, llm);
    let done = chunks.length - pending.length;
    context.progress(done, chunks.length, 'chunks');
    const created = await mapWithConcurrency(
      pending,
      openConversations(context),
      async (chunk): Promise<{ record: ExtractionRecord; graph: ExtractedGraph; calls: number }> => {
        const { record, calls } = await extractChunk(context, llm, hash, chunk);
        done++;
        context.progress(done, chunks.length, 'chunks');
        // Restored here, while other chunks wait on the model, rather than for all chunks after the last reply.
        return { record, graph: restoreNameCasing((record.parsed as StoredGraphExtraction).graph, chunk.text), calls };
      },
      context.signal,
    );

    const byChunk = new Map([...stored.values(), ...created.map((extraction) => extraction.record)].map((record) => [record.chunkId, record]));
    const restored = new Map(created.map((extraction) => [extraction.record.chunkId, extraction.graph]));
    const extractions = chunks.flatMap((chunk) => {
      const record = byChunk.get(chunk.id);
      if (!record) return [];
      return [{ chunkId: chunk.id, graph: restored.get(chunk.id) ?? restoreNameCasing((record.parsed as StoredGraphExtraction).graph, chunk.text) }];
    });
    const failed = [...byChunk.values()].filter((record) => (record.parsed as StoredGraphExtraction).failed);
    for (const record of failed) context.warn('extraction-failed', `chunk ${record.chunkId}: ${(record.parsed as StoredGraphExtraction).problems[0] ?? 'unusable reply'}`);
    const merged = mergeExtractedGraphs(extractions);
    if (merged.entities.length === 0) {
      throw noEntitiesError(chunks.length, failed.length, failed.flatMap((record) => (record.parsed as StoredGraphExtraction).problems).slice(0, 3));
    }
    return {
      counts: {
        chunks: chunks.length,
        extracted: created.length,
        reused: stored.size,
        failed: failed.length,
        entities: merged.entities.length,
        relations: merged.relations.length,
        droppedRelations: merged.droppedRelations,
        llmCriticalPath: created.reduce((longest, extraction) => Math.max(longest, extraction.calls), 0),
      },
      outputVersion: contentId(
        'llm-graph',
        merged.entities.map((entity) => `${entity.id}:${entity.type}:${entity.chunkIds.length}`),
        merged.relations.map((relation) => `${relation.id}:${relation.weight}`),
      ),
      async write(tx) {
        await tx.table('extractions').deleteWhere('id', staleIds);
        await tx.table('extractions').upsert(created.map((extraction) => extraction.record));
        await tx.table('entities').clear();
        await tx.table('relations').clear();
        await tx.table('entities').upsert(merged.entities);
        await tx.table('relations').upsert(merged.relations);
      },
    };
  },
};
