import type { KgragConfig } from '../../core/config/config-schema.js';
import type { PromptLibrary } from '../../core/prompt-library.js';
import { assignOpenieDocs } from '../../extract/triples/assign-openie-docs.js';
import type { Embedder } from '../../providers/embed/embedder.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import { estimateIndexCost, type IndexCostCalibration, type IndexCostEstimate, type IndexUpdate } from '../estimate-index-cost.js';
import type { IndexInputs, PipelineEvent, PipelineStep, PipelineWarning, StepName } from '../pipeline-step.js';
import { runPipeline } from '../run-pipeline.js';
import { chunkStep } from '../steps/chunk-step.js';
import { loadStep } from '../steps/load-step.js';
import { readOpenieImport } from '../steps/triples-step.js';
import { predictSkippedSteps } from './predict-skipped-steps.js';
import { storedExtractionChunks } from './stored-extraction-chunks.js';

/**
 * What the run changes in an index that already has communities: the chunks it removes, the entities and relations
 * they described, and the communities of those entities. Undefined for a first build.
 */
async function describeUpdate(
  store: Store,
  previousChunks: ReadonlyArray<{ id: string; nTokens: number }>,
  keptChunks: ReadonlySet<string>,
): Promise<IndexUpdate | undefined> {
  const communities = await store.table('communities').pick(['level', 'entityIds']);
  if (communities.length === 0) return undefined;
  const removed = new Map<string, number>();
  for (const chunk of previousChunks) if (!keptChunks.has(chunk.id)) removed.set(chunk.id, chunk.nTokens);
  const touchedEntities = new Set<string>();
  let elements = 0;
  let stillSummarized = 0;
  for (const table of ['entities', 'relations'] as const) {
    for (const element of await store.table(table).pick(['id', 'chunkIds'])) {
      const lost = element.chunkIds.filter((chunkId) => removed.has(chunkId)).length;
      if (lost === 0) continue;
      elements++;
      if (element.chunkIds.length - lost >= 2) stillSummarized++;
      if (table === 'entities') touchedEntities.add(element.id);
    }
  }
  const perLevel = new Map<number, number>();
  for (const community of communities) perLevel.set(community.level, (perLevel.get(community.level) ?? 0) + 1);
  return {
    removedChunkTokens: [...removed.values()].reduce((sum, tokens) => sum + tokens, 0),
    touchedByRemoval: { elements, stillSummarized, communities: communities.filter((community) => community.entityIds.some((id) => touchedEntities.has(id))).length },
    communitiesPerLevel: [...perLevel.entries()].sort(([left], [right]) => left - right).map(([, count]) => count),
  };
}

/** Options of {@link dryRunIndex}. */
export interface DryRunIndexOptions {
  /** The workspace's store. Only read: the dry run writes nothing to it. */
  store: Store;
  config: KgragConfig;
  tokenizer: Tokenizer;
  /** Required by the step context; loading and chunking never embed. */
  embedder: Embedder;
  prompts: PromptLibrary;
  mode: 'fast' | 'standard';
  /** The steps `index` would run in `mode` (`pipelineSteps`). */
  steps: readonly PipelineStep[];
  /** The configured chat model (never called), or undefined when none is configured: `llm.model` is priced then. */
  llm: Pick<LanguageModel, 'provider' | 'modelId'> | undefined;
  inputs: IndexInputs;
  calibration?: IndexCostCalibration;
  signal?: AbortSignal;
  /** Progress of loading and chunking, and warnings about inputs, as `index` reports them. */
  onEvent?: (event: PipelineEvent) => void;
}

/** An index cost estimate together with what loading the inputs found. */
export interface IndexDryRun extends IndexCostEstimate {
  /** Documents the index would hold after the run, how many of them are new or replace an older version, and how many go. */
  documents: { total: number; added: number; replaced: number; removed: number };
  /** Problems with inputs that the run would skip (unreadable files, missing paths, duplicates). */
  warnings: PipelineWarning[];
}

/** Provider name of the configured OpenAI-compatible adapter, for fingerprints when no model object exists. */
const defaultProvider = 'openai-compatible';

/**
 * What `index(inputs, { mode })` would cost, without calling a model or writing to the workspace: the
 * workspace's documents are copied into an in-memory store, where the real load and chunk steps run on the
 * inputs (so replaced sources, duplicates, unreadable files and chunking changes come out exactly as in a
 * real run); then the workspace is read for the chunks whose extraction is already stored and for the steps
 * that would be skipped as up to date; {@link estimateIndexCost} does the rest.
 */
export async function dryRunIndex(options: DryRunIndexOptions): Promise<IndexDryRun> {
  const { store, config, tokenizer, prompts, mode } = options;
  const warnings: PipelineWarning[] = [];
  const preview = openSqliteStore(':memory:');
  try {
    // Only documents are copied: chunking every document again in memory gives exactly the chunks the real
    // run keeps or creates (ids are content hashes), whether or not the chunking settings changed.
    await preview.table('documents').upsert(await store.table('documents').all());
    const summary = await runPipeline({
      steps: [loadStep, chunkStep],
      store: preview,
      config,
      tokenizer,
      embedder: options.embedder,
      prompts,
      inputs: options.inputs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      onEvent: (event) => {
        if (event.type === 'warning') warnings.push(event.warning);
        options.onEvent?.(event);
      },
    });
    const chunks = await preview.table('chunks').pick(['id', 'text', 'nTokens', 'documentId', 'ordinal']);
    const known = new Map<StepName, string>();
    for (const run of await preview.table('runs').get(['load', 'chunk'])) known.set(run.step as StepName, run.outputVersion);
    const load = summary.counts.load ?? {};
    const documents = { total: load['documents'] ?? 0, added: load['added'] ?? 0, replaced: load['replaced'] ?? 0, removed: load['removed'] ?? 0 };

    const modelId = options.llm?.modelId ?? config.llm.model;
    const standard = mode === 'standard';
    const stored = standard ? await storedExtractionChunks(store, { config, prompts, modelId }) : undefined;
    // Chunks that an imported OpenIE file covers take its triples instead of calling the model.
    const openie = stored ? await readOpenieImport(store) : undefined;
    if (stored && openie) {
      const covered = assignOpenieDocs(openie.docs, await preview.table('documents').pick(['id', 'title', 'text']), chunks);
      for (const chunkId of covered.byChunk.keys()) stored.triples.add(chunkId);
    }
    const upToDate = await predictSkippedSteps({
      store,
      steps: options.steps,
      config,
      environment: { prompts, llmModel: standard ? `${options.llm?.provider ?? defaultProvider}:${modelId}` : undefined },
      known,
    });
    // An update estimate holds only when nothing but documents changed: with the stored documents and chunks, the
    // graph steps would all be skipped (other settings rebuild the graph, and the estimate is a first build's).
    const storedInputs = new Map<StepName, string>();
    for (const run of await store.table('runs').get(['load', 'chunk'])) if (run.status === 'done') storedInputs.set(run.step as StepName, run.outputVersion);
    const settingsUnchanged = await predictSkippedSteps({
      store,
      steps: options.steps,
      config,
      environment: { prompts, llmModel: standard ? `${options.llm?.provider ?? defaultProvider}:${modelId}` : undefined },
      known: storedInputs,
    });
    const updatedSteps: StepName[] = ['resolve-entities', 'summarize', 'communities', 'reports', 'keywords'];
    const documentsOnly = standard && updatedSteps.every((step) => settingsUnchanged.has(step) || !options.steps.some((each) => each.name === step));
    const keptChunks = new Set(chunks.map((chunk) => chunk.id));
    const previousChunks = documentsOnly ? await store.table('chunks').pick(['id', 'nTokens']) : [];
    const update = documentsOnly ? await describeUpdate(store, previousChunks, keptChunks) : undefined;
    const stillThere = previousChunks.filter((chunk) => keptChunks.has(chunk.id)).length;
    const chunkChanges =
      previousChunks.length > 0 ? { addedChunks: keptChunks.size - stillThere, removedChunks: previousChunks.length - stillThere, previousChunks: previousChunks.length } : undefined;
    const estimate = estimateIndexCost({
      config,
      mode,
      tokenizer,
      prompts,
      modelId: standard ? modelId : undefined,
      chunks,
      ...(stored === undefined ? {} : { alreadyExtracted: stored }),
      upToDate,
      steps: options.steps,
      ...(options.calibration === undefined ? {} : { calibration: options.calibration }),
      ...(update === undefined ? {} : { update }),
      ...(chunkChanges === undefined ? {} : { chunkChanges }),
    });
    if (standard && options.llm === undefined) {
      estimate.notes.push(
        `no LLM is configured, so llm.model "${modelId}" was priced; before indexing in standard mode set llm.baseURL (e.g. http://localhost:11434/v1 for Ollama) or OPENAI_API_KEY`,
      );
    }
    return { ...estimate, documents, warnings };
  } finally {
    await preview.close();
  }
}
