import type { KgragConfig } from '../core/config/config-schema.js';
import { KgragError } from '../core/errors.js';
import { yieldToEventLoop } from '../core/cooperative-task.js';
import { contentId } from '../core/ids.js';
import { builtInPrompts, type PromptLibrary } from '../core/prompt-library.js';
import type { RunRecord, RunUsage } from '../core/types.js';
import type { Embedder } from '../providers/embed/embedder.js';
import type { LanguageModel } from '../providers/llm/language-model.js';
import type { Store } from '../store/store.js';
import type { Tokenizer } from '../text/tokenizer.js';
import type { IndexInputs, PipelineEvent, PipelineStep, StepContext, StepName } from './pipeline-step.js';
import { errorMessage } from '../core/error-message.js';
import { TableChanges } from './table-changes.js';
import { unreadableLanguageWarning } from './unreadable-language-warning.js';

/** Options of {@link runPipeline}. */
export interface RunPipelineOptions {
  steps: readonly PipelineStep[];
  store: Store;
  config: KgragConfig;
  tokenizer: Tokenizer;
  embedder: Embedder;
  llm?: LanguageModel;
  prompts?: PromptLibrary;
  inputs?: IndexInputs;
  /** Cancels the run now: the step in progress stops and is not recorded (a later run redoes it). */
  signal?: AbortSignal;
  /**
   * Stops the run at the next step boundary: the step in progress finishes and is recorded, no further step
   * starts, and the run fails with `PIPELINE_STOPPED` (a later run resumes at the next step). A run whose
   * remaining steps are all up to date completes as usual.
   */
  stopAfterStep?: AbortSignal;
  onEvent?: (event: PipelineEvent) => void;
  /**
   * Awaited before a step that is not up to date runs (after its `step-start` event), with the context its `run` will
   * get: every step it reads has committed. Where the work of a step is handed elsewhere first — `kgrag index
   * --workers` has workers run the step's `prefetch` shards here, which fill the LLM cache that `run` then reads. A
   * rejection fails the step as an error of its `run` would.
   */
  beforeStep?: (step: PipelineStep, context: StepContext) => Promise<void>;
  /** Cumulative LLM usage so far (from the usage meter); per-step usage is the difference. */
  usage?: () => RunUsage;
  now?: () => Date;
}

/** What a pipeline run did. */
export interface PipelineSummary {
  ran: StepName[];
  skipped: StepName[];
  counts: Partial<Record<StepName, Record<string, number>>>;
  warnings: number;
  durationMs: number;
  usage: RunUsage;
  /**
   * Whether the index differs from what it held before: a step's output, or the record of a step that ran for a new
   * fingerprint (a new setting or version that gave the same output). False: re-running changed nothing.
   */
  changed: boolean;
}

export function emptyUsage(): RunUsage {
  return { llmCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, byModel: {} };
}

function usageDifference(after: RunUsage, before: RunUsage): RunUsage {
  const byModel: RunUsage['byModel'] = {};
  for (const [model, totals] of Object.entries(after.byModel)) {
    const earlier = before.byModel[model] ?? { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    const calls = totals.calls - earlier.calls;
    if (calls === 0 && totals.inputTokens === earlier.inputTokens) continue;
    byModel[model] = {
      calls,
      inputTokens: totals.inputTokens - earlier.inputTokens,
      outputTokens: totals.outputTokens - earlier.outputTokens,
      costUsd: totals.costUsd - earlier.costUsd,
    };
  }
  return {
    llmCalls: after.llmCalls - before.llmCalls,
    inputTokens: after.inputTokens - before.inputTokens,
    outputTokens: after.outputTokens - before.outputTokens,
    costUsd: after.costUsd - before.costUsd,
    byModel,
  };
}

/**
 * Runs the steps in order. Each step is skipped when its fingerprint — its code version, its
 * settings and the output versions of the steps it reads — equals that of its last successful run and
 * that run left no work undone (`PipelineStep.unfinished`); otherwise it computes, then writes its tables and its `runs` record in one transaction. A run
 * killed at any point therefore restarts at the first step that did not commit, and produces the
 * same index (ids are content hashes, algorithms are seeded).
 */
export async function runPipeline(options: RunPipelineOptions): Promise<PipelineSummary> {
  const { store, config, steps } = options;
  const now = options.now ?? (() => new Date());
  const usage = options.usage ?? emptyUsage;
  const emit = options.onEvent ?? (() => undefined);
  const inputs = options.inputs ?? { paths: [], documents: [] };
  const started = performance.now();
  const startUsage = usage();
  const summary: PipelineSummary = { ran: [], skipped: [], counts: {}, warnings: 0, durationMs: 0, usage: emptyUsage(), changed: false };
  const runs = store.table('runs');
  const outputVersions = new Map<StepName, string>();
  const environment = {
    prompts: options.prompts ?? builtInPrompts,
    llmModel: options.llm ? `${options.llm.provider}:${options.llm.modelId}` : undefined,
  };
  for (const run of await runs.all()) {
    if (run.status === 'done') outputVersions.set(run.step as StepName, run.outputVersion);
  }
  // What the steps read when this run began, and every table write of the run since, for `changedKeys`.
  const startVersions = new Map(outputVersions);
  const changes = new TableChanges();
  const recordingStore = changes.recording(store);

  let languageChecked = false;
  emit({ type: 'pipeline-start', steps: steps.map((step) => step.name) });
  for (const [index, step] of steps.entries()) {
    // Between steps the event loop gets a turn, so that a Ctrl-C, a cancel or a server's requests waiting behind
    // a step's synchronous work are heard before the next step starts.
    await yieldToEventLoop();
    if (options.signal?.aborted) throw abortError();
    const missing = step.reads.filter((name) => !outputVersions.has(name));
    if (missing.length > 0) {
      throw new KgragError(`step "${step.name}" needs the output of ${missing.join(', ')}, which has not run`, {
        code: 'PIPELINE_ORDER',
        category: 'internal',
      });
    }
    const settings = JSON.stringify(step.settings(config, environment));
    const fingerprintOf = (versions: ReadonlyMap<StepName, string>): string =>
      contentId('step', step.name, step.version, settings, step.reads.map((name) => `${name}=${versions.get(name)}`));
    const fingerprint = fingerprintOf(outputVersions);
    const [previous] = await runs.get([step.name]);
    // The step last ran on the tables as this run found them: what changed since is what this run wrote.
    const ranOnStart = previous?.status === 'done' && previous.fingerprint === fingerprintOf(startVersions);
    const stepUsageStart = usage();
    const context: StepContext = {
      store: recordingStore,
      config,
      tokenizer: options.tokenizer,
      embedder: options.embedder,
      llm: options.llm,
      prompts: options.prompts ?? builtInPrompts,
      inputs,
      signal: options.signal,
      steps: options.steps.map((candidate) => candidate.name),
      changedKeys: (table) => (ranOnStart ? changes.of(table) : undefined),
      progress(done, total, unit = 'items') {
        emit({ type: 'step-progress', step: step.name, done, total, unit, usage: usageDifference(usage(), stepUsageStart) });
      },
      warn(code, message, source) {
        summary.warnings++;
        emit({ type: 'warning', warning: source === undefined ? { step: step.name, code, message } : { step: step.name, code, message, source } });
      },
    };

    if (previous?.status === 'done' && previous.fingerprint === fingerprint && !step.mustRun?.(context) && step.unfinished?.(previous) !== true) {
      summary.skipped.push(step.name);
      emit({ type: 'step-skip', step: step.name, reason: 'up-to-date' });
      continue;
    }

    if (options.stopAfterStep?.aborted) throw stoppedError(summary.ran, step.name);
    if (!languageChecked && step.englishOnly?.(context)) {
      // Once, and only when such a step has work to do: one warning naming every step that cannot read the text.
      languageChecked = true;
      const englishOnly = steps.filter((each) => each.englishOnly?.(context)).map((each) => each.name);
      const message = await unreadableLanguageWarning(store, englishOnly);
      if (message !== undefined) context.warn('text-language-unsupported', message);
    }
    emit({ type: 'step-start', step: step.name, index, count: steps.length });
    const startedAt = now().toISOString();
    const stepStarted = performance.now();
    const baseRecord: RunRecord = {
      step: step.name,
      status: 'running',
      fingerprint,
      outputVersion: '',
      startedAt,
      finishedAt: null,
      durationMs: 0,
      counts: {},
      usage: emptyUsage(),
      error: null,
    };
    await runs.upsert([baseRecord]);
    try {
      await options.beforeStep?.(step, context);
      if (options.signal?.aborted) throw abortError();
      const output = await step.run(context);
      if (options.signal?.aborted) throw abortError();
      const durationMs = performance.now() - stepStarted;
      const stepUsage = usageDifference(usage(), stepUsageStart);
      const written = new TableChanges();
      await store.transaction(async (tx) => {
        await assertInputsUnchanged(tx, step, outputVersions);
        await output.write(written.recording(tx));
        await tx.table('runs').upsert([
          {
            ...baseRecord,
            status: 'done',
            outputVersion: output.outputVersion,
            finishedAt: now().toISOString(),
            durationMs,
            counts: output.counts,
            usage: stepUsage,
          },
        ]);
      });
      changes.merge(written);
      // A new fingerprint must be kept even when the output is the same, or the step runs again at every index.
      if (output.changedRecords === true || outputVersions.get(step.name) !== output.outputVersion || previous?.status !== 'done' || previous.fingerprint !== fingerprint) summary.changed = true;
      outputVersions.set(step.name, output.outputVersion);
      summary.ran.push(step.name);
      summary.counts[step.name] = output.counts;
      emit({ type: 'step-end', step: step.name, durationMs, counts: output.counts, usage: stepUsage });
    } catch (error) {
      await runs.upsert([
        {
          ...baseRecord,
          status: 'failed',
          finishedAt: now().toISOString(),
          durationMs: performance.now() - stepStarted,
          usage: usageDifference(usage(), stepUsageStart),
          error: errorMessage(error),
        },
      ]);
      // A step stopped by the signal fails with whatever its work threw (an AbortError, a cancelled request).
      throw options.signal?.aborted ? abortError() : error;
    }
  }
  summary.durationMs = performance.now() - started;
  summary.usage = usageDifference(usage(), startUsage);
  emit({ type: 'pipeline-end', durationMs: summary.durationMs, usage: summary.usage });
  return summary;
}

/**
 * A step's output is valid only for the inputs its fingerprint names. If another writer changed one of them
 * while the step computed (which the workspace's writer lock prevents), recording the step as done would make
 * a later run call the index up to date when it is not; fail instead.
 */
async function assertInputsUnchanged(tx: Store, step: PipelineStep, outputVersions: ReadonlyMap<StepName, string>): Promise<void> {
  if (step.reads.length === 0) return;
  const runs = await tx.table('runs').get([...step.reads]);
  for (const name of step.reads) {
    const run = runs.find((record) => record.step === name);
    if (run?.status !== 'done' || run.outputVersion !== outputVersions.get(name)) {
      throw new KgragError(`the output of step "${name}" changed while step "${step.name}" was computing from it`, {
        code: 'PIPELINE_CONCURRENT_WRITE',
        category: 'store',
        hint: 'another process wrote this index at the same time; run the command again (it resumes and recomputes what changed)',
        details: { step: step.name, input: name },
      });
    }
  }
}

function abortError(): KgragError {
  return new KgragError('indexing was cancelled', {
    code: 'PIPELINE_ABORTED',
    category: 'input',
    hint: 'run the same command again to resume where it stopped',
  });
}

function stoppedError(ran: readonly StepName[], next: StepName): KgragError {
  const last = ran.at(-1);
  return new KgragError(last === undefined ? `indexing stopped before step "${next}", as asked` : `indexing stopped after step "${last}", as asked`, {
    code: 'PIPELINE_STOPPED',
    category: 'input',
    hint: 'run the same command again to resume where it stopped',
    details: { ran: [...ran], next },
  });
}
