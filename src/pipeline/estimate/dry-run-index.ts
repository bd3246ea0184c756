import type { KgragConfig } from '../../core/config/config-schema.js';
import type { PromptLibrary } from '../../core/prompt-library.js';
import { assignOpenieDocs } from '../../extract/triples/assign-openie-docs.js';
import type { Embedder } from '../../providers/embed/embedder.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import { estimateIndexCost, type IndexCostCalibration, type IndexCostEstimate } from '../estimate-index-cost.js';
import type { IndexInputs, PipelineEvent, PipelineStep, PipelineWarning, StepName } from '../pipeline-step.js';
import { runPipeline } from '../run-pipeline.js';
import { chunkStep } from '../steps/chunk-step.js';
import { loadStep } from '../steps/load-step.js';
import { readOpenieImport } from '../steps/triples-step.js';
import { predictSkippedSteps } from './predict-skipped-steps.js';
import { storedExtractionChunks } from './stored-extraction-chunks.js';

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
