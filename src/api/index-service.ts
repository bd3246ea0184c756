import type { IndexDryRun } from '../pipeline/estimate/dry-run-index.js';
import type { IndexInputs, InputDocument } from '../pipeline/pipeline-step.js';
import type { PipelineSummary } from '../pipeline/run-pipeline.js';
import type { QueryEngine } from '../methods/query-engine.js';
import { driftShare, readCorpusStatistics } from '../pipeline/corpus-statistics.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { forgetCachedCallsOfGoneChunks } from './forget-cached-calls-of-gone-chunks.js';
import type { EstimateIndexOptions, IndexedDocument, IndexOptions, IndexStats } from './kgrag.js';
import { listDocuments } from './list-documents.js';
import { methodsToBuild, modeOfRun, runIndex } from './run-index.js';
import { startIndexWorkers } from './worker-service.js';
import type { WorkspaceSession } from './workspace-session.js';
import type { WriterLockOptions } from './write-options.js';
import { withCancelSignal, writeWorkspace } from './write-workspace.js';

/** What `Kgrag.index` accepts: paths, in-memory documents, or both (and removals). */
export type IndexInputsGiven = readonly string[] | Partial<IndexInputs> | readonly InputDocument[];

/** The inputs of an index call in their one shape. */
export function normalizeInputs(inputs: IndexInputsGiven): IndexInputs {
  if (Array.isArray(inputs)) {
    if (inputs.every((item) => typeof item === 'string')) return { paths: inputs as string[], documents: [] };
    return { paths: [], documents: inputs as InputDocument[] };
  }
  const partial = inputs as Partial<IndexInputs>;
  return {
    paths: partial.paths ?? [],
    documents: partial.documents ?? [],
    ...(partial.remove === undefined ? {} : { remove: partial.remove }),
    ...(partial.prune === undefined ? {} : { prune: partial.prune }),
    ...(partial.refresh === undefined ? {} : { refresh: partial.refresh }),
    ...(partial.sourceLabels === undefined ? {} : { sourceLabels: partial.sourceLabels }),
    ...(partial.entityEdit === undefined ? {} : { entityEdit: partial.entityEdit }),
  };
}

/** Documents a run removed or replaced by another version. */
function removedDocuments(summary: PipelineSummary): number {
  const load = summary.counts.load ?? {};
  return (load['removed'] ?? 0) + (load['replaced'] ?? 0);
}

/** Adds or updates documents, then brings the index up to date and publishes it (`Kgrag.index`). */
export async function indexDocuments(session: WorkspaceSession, engine: QueryEngine, inputs: IndexInputsGiven, asked: IndexOptions): Promise<PipelineSummary> {
  const { config } = session;
  const options = withCancelSignal(asked);
  // Validate the mode and methods before taking the lock: a configuration error should not wait for another writer.
  const { indexPipeline } = await import('./index-pipeline.js');
  await indexPipeline({
    config,
    registry: session.methods,
    methodConfigs: session.methodConfigs,
    mode: options.mode ?? config.index.mode,
    hasLlm: session.llm !== undefined,
    methods: session.registry.select(options.methods ?? config.pipeline.methods, options.methods ? 'the methods to index for' : 'pipeline.methods'),
  });
  const workers = await startIndexWorkers(session);
  try {
    const normalized = normalizeInputs(inputs);
    const withPrune = { ...normalized, ...(options.prune === undefined ? {} : { prune: options.prune }), ...(options.refresh === undefined ? {} : { refresh: options.refresh }) };
    const summary = await writeWorkspace(session, options, async (draft, embedder, currentStep) => {
      const run = await runIndex(session, draft.store, embedder, withPrune, options, currentStep, workers && { queue: workers.queue, generation: draft.generation });
      await forgetCachedCallsOfGoneChunks(draft.store, false);
      return run;
    });
    if (removedDocuments(summary) > 0) await session.storage.clearQueryCache();
    return summary;
  } finally {
    await workers?.stop();
    // The same store (a single-store workspace) may have changed in place.
    engine.invalidate();
  }
}

/** What `indexDocuments` would cost, changing nothing (`Kgrag.estimateIndex`). */
export async function estimateIndex(session: WorkspaceSession, inputs: IndexInputsGiven, options: EstimateIndexOptions): Promise<IndexDryRun> {
  const snapshot = await session.storage.snapshot();
  const current = snapshot?.store ?? openSqliteStore(':memory:');
  try {
    const mode = await modeOfRun(session, current, options.mode);
    const { dryRunIndex } = await import('../pipeline/estimate/dry-run-index.js');
    const { indexPipeline } = await import('./index-pipeline.js');
    const { methods } = await methodsToBuild(session, current, options.methods);
    return await dryRunIndex({
      store: current,
      config: session.config,
      tokenizer: session.tokenizer,
      embedder: await session.embedderFor(current),
      prompts: session.prompts,
      mode,
      // The step list only tells which steps would run; no model is needed to read it.
      steps: await indexPipeline({ config: session.config, mode, hasLlm: true, registry: session.methods, methodConfigs: session.methodConfigs, methods }),
      llm: session.llm,
      inputs: normalizeInputs(inputs),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    });
  } finally {
    if (snapshot) snapshot.release();
    else await current.close();
  }
}

/** Drops an unfinished run's draft under the writer lock; true when there was one (`Kgrag.discardDraft`). */
export async function discardDraft(session: WorkspaceSession, options: WriterLockOptions): Promise<boolean> {
  const draft = await session.storage.beginWrite({
    command: options.command ?? 'discard the draft',
    ...(options.wait === undefined ? {} : { wait: options.wait }),
    ...(options.onWait === undefined ? {} : { onWait: options.onWait }),
  });
  const resumed = draft.resumed;
  await draft.discard();
  await draft.end();
  return resumed;
}

/** The documents of the published index (`Kgrag.documents`). */
export async function publishedDocuments(session: WorkspaceSession, ids: readonly string[] | undefined): Promise<IndexedDocument[]> {
  const snapshot = await session.storage.snapshot();
  if (!snapshot) return [];
  try {
    return await listDocuments(snapshot.store, ids);
  } finally {
    snapshot.release();
  }
}

/** Row counts of the published index's main tables (`Kgrag.stats`). */
export async function indexStats(session: WorkspaceSession): Promise<IndexStats> {
  const snapshot = await session.storage.snapshot();
  if (!snapshot) return { documents: 0, chunks: 0, entities: 0, relations: 0, communities: 0 };
  try {
    const published = snapshot.store;
    const statistics = await readCorpusStatistics(published);
    return {
      documents: await published.table('documents').count(),
      chunks: await published.table('chunks').count(),
      entities: await published.table('entities').count(),
      relations: await published.table('relations').count(),
      communities: await published.table('communities').count(),
      ...(statistics === undefined
        ? {}
        : {
            statistics: {
              fittedAt: statistics.fittedAt,
              documents: statistics.documents,
              chunks: statistics.chunks,
              changedChunks: statistics.changedChunks,
              changedShare: driftShare(statistics),
              refreshShare: session.config.index.refreshShare,
            },
          }),
    };
  } finally {
    snapshot.release();
  }
}
