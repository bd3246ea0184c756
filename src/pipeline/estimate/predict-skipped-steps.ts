import type { KgragConfig } from '../../core/config/config-schema.js';
import { contentId } from '../../core/ids.js';
import type { Store } from '../../store/store.js';
import type { PipelineStep, StepEnvironment, StepName } from '../pipeline-step.js';

/** Options of {@link predictSkippedSteps}. */
export interface PredictSkippedStepsOptions {
  /** The workspace store, only read (its `runs` records). */
  store: Store;
  /** The steps the run would execute, in order. */
  steps: readonly PipelineStep[];
  config: KgragConfig;
  environment: StepEnvironment;
  /** Output versions already computed for this run (the dry run's own load and chunk). */
  known: ReadonlyMap<StepName, string>;
}

/**
 * The steps that a run would skip as up to date, found without running them: walking the steps in order,
 * a step is skipped when its fingerprint — computed as `runPipeline` does, from its code version, its
 * settings and the output versions of the steps it reads — equals that of its last successful run, which left no
 * work undone (`PipelineStep.unfinished`), and
 * then its output is its stored version. A step that would run has an unknown output, so every step that
 * reads it is taken to run too. `test/dry-run.test.ts` checks this against a finished run.
 */
export async function predictSkippedSteps(options: PredictSkippedStepsOptions): Promise<Set<StepName>> {
  const runs = new Map((await options.store.table('runs').all()).map((run) => [run.step as StepName, run]));
  const versions = new Map<StepName, string | undefined>();
  for (const [step, run] of runs) if (run.status === 'done') versions.set(step, run.outputVersion);
  const skipped = new Set<StepName>();
  for (const step of options.steps) {
    const known = options.known.get(step.name);
    if (known !== undefined) {
      versions.set(step.name, known);
      continue;
    }
    const reads = step.reads.map((name) => versions.get(name));
    if (reads.some((version) => version === undefined)) {
      versions.set(step.name, undefined);
      continue;
    }
    const fingerprint = contentId(
      'step',
      step.name,
      step.version,
      JSON.stringify(step.settings(options.config, options.environment)),
      step.reads.map((name) => `${name}=${versions.get(name)}`),
    );
    const previous = runs.get(step.name);
    if (previous?.status === 'done' && previous.fingerprint === fingerprint && step.unfinished?.(previous) !== true) {
      skipped.add(step.name);
      versions.set(step.name, previous.outputVersion);
    } else {
      versions.set(step.name, undefined);
    }
  }
  return skipped;
}
