import { KgragError } from '../core/errors.js';
import type { RunUsage } from '../core/types.js';
import type { AnyQueryMethod } from '../methods/query-method.js';
import { builtMethods, builtMode, recordBuiltMethods } from '../pipeline/built-methods.js';
import type { IndexInputs, PipelineStep } from '../pipeline/pipeline-step.js';
import { runPipeline, type PipelineSummary, type RunPipelineOptions } from '../pipeline/run-pipeline.js';
import type { Embedder } from '../providers/embed/embedder.js';
import type { UsageSnapshot } from '../providers/llm/usage-meter.js';
import type { Store } from '../store/store.js';
import { importedIndexSource, importedIndexUpdateError } from './import-graphrag.js';
import type { IndexOptions } from './kgrag.js';
import { postgresWorkspaceName } from './postgres-workspace-name.js';
import type { PrefetchQueue } from './workers/prefetch-queue.js';
import { stepSettingsFingerprint } from './workers/step-settings-fingerprint.js';
import type { WorkspaceSession } from './workspace-session.js';

/** How a run's steps report and stop: the caller's options, and a hook before each step (the prefetch of workers). */
export type RunStepsOptions = Pick<IndexOptions, 'signal' | 'stopAfterStep' | 'onEvent'> & { beforeStep?: RunPipelineOptions['beforeStep'] };

function toRunUsage(snapshot: UsageSnapshot): RunUsage {
  const byModel: RunUsage['byModel'] = {};
  for (const [model, totals] of Object.entries(snapshot.byModel)) {
    byModel[model] = { calls: totals.calls, inputTokens: totals.inputTokens, outputTokens: totals.outputTokens, costUsd: totals.costUsd };
  }
  return { llmCalls: snapshot.calls, inputTokens: snapshot.inputTokens, outputTokens: snapshot.outputTokens, costUsd: snapshot.costUsd, byModel };
}

/** The methods an index run builds for: those asked for, and those the index was built for before. */
export async function methodsToBuild(session: WorkspaceSession, target: Store, asked: readonly string[] | undefined): Promise<{ methods: AnyQueryMethod[]; previous: string[] | undefined }> {
  const requested = session.registry.select(asked ?? session.config.pipeline.methods, asked ? 'the methods to index for' : 'pipeline.methods');
  const previous = await builtMethods(target);
  // An index from before methods were chosen holds the steps of every method.
  const earlier = previous ?? ((await target.table('runs').count()) > 0 ? session.methods.map((method) => method.name) : []);
  const names = new Set([...earlier, ...requested.map((method) => method.name)]);
  return { methods: session.methods.filter((method) => names.has(method.name)), previous };
}

/** The mode an update runs in: asked for, else configured, else the mode the index's graph was built in. */
export async function modeOfRun(session: WorkspaceSession, target: Store, asked: 'fast' | 'standard' | undefined): Promise<'fast' | 'standard'> {
  // A plain `kgrag index docs/` on a standard index must not rebuild its graph in fast mode.
  return asked ?? (session.modeConfigured ? session.config.index.mode : ((await builtMode(target)) ?? session.config.index.mode));
}

/** Runs pipeline steps on a writer's `target` with the workspace's providers, naming each step as it starts. */
export function runSteps(
  session: WorkspaceSession,
  target: Store,
  embedder: Embedder,
  steps: PipelineStep[],
  options: RunStepsOptions,
  currentStep: (step: string) => void,
  inputs?: IndexInputs,
): Promise<PipelineSummary> {
  return runPipeline({
    ...(options.beforeStep === undefined ? {} : { beforeStep: options.beforeStep }),
    steps,
    prompts: session.prompts,
    store: target,
    config: session.config,
    tokenizer: session.tokenizer,
    embedder,
    ...(session.llm === undefined ? {} : { llm: session.llm }),
    ...(inputs === undefined ? {} : { inputs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.stopAfterStep === undefined ? {} : { stopAfterStep: options.stopAfterStep }),
    onEvent: (event) => {
      if (event.type === 'step-start') currentStep(event.step);
      options.onEvent?.(event);
    },
    usage: () => toRunUsage(session.meter.snapshot()),
  });
}

/**
 * Brings the index in `target` (a writer's draft) up to date with `inputs`, for the methods asked for and those
 * built before; with `workers`, the LLM calls of the steps that can be spread are handed out to them first.
 */
export async function runIndex(
  session: WorkspaceSession,
  target: Store,
  embedder: Embedder,
  inputs: IndexInputs,
  options: IndexOptions,
  currentStep: (step: string) => void,
  workers?: { queue: PrefetchQueue; generation: number },
): Promise<PipelineSummary> {
  const { config } = session;
  const imported = await importedIndexSource(target);
  if (imported !== undefined) throw importedIndexUpdateError(imported, inputs.remove === undefined ? 'index' : 'delete');
  const mode = await modeOfRun(session, target, options.mode);
  if (inputs.paths.length === 0 && inputs.documents.length === 0 && (await target.table('documents').count()) === 0) {
    throw new KgragError('nothing to index: the workspace holds no documents yet, and no files or folders were given', {
      code: 'INDEX_NO_INPUTS',
      category: 'input',
      hint: 'pass files or folders, e.g. `kgrag index docs/`',
    });
  }
  const { methods } = await methodsToBuild(session, target, options.methods);
  // Recorded before the steps run: an interrupted run's draft then tells the run resuming it which methods it
  // builds (a draft with steps but no methods would read as an index from before methods were chosen: all).
  const methodsChanged = await recordBuiltMethods(target, methods.map((method) => method.name));
  const { indexPipeline } = await import('./index-pipeline.js');
  const distribution = workers
    ? await (await import('./workers/distribute-prefetch.js')).startPrefetchDistribution(workers.queue, {
        workspace: postgresWorkspaceName(config, session.workspace),
        generation: workers.generation,
        mode,
        methods: methods.map((method) => method.name),
        shardsPerRound: config.workers.shardsPerRound,
        fingerprintOf: (step) => stepSettingsFingerprint(step, config, session.stepEnvironment),
        workOnShards: config.workers.local === 0,
      })
    : undefined;
  const summary = await runSteps(
    session,
    target,
    embedder,
    await indexPipeline({ config, mode, hasLlm: session.llm !== undefined, registry: session.methods, methodConfigs: session.methodConfigs, methods }),
    { ...options, ...(distribution === undefined ? {} : { beforeStep: distribution.beforeStep }) },
    currentStep,
    inputs,
  );
  if (methodsChanged) summary.changed = true;
  return summary;
}
