import type { PipelineStep, StepContext, StepPrefetchResult } from '../../pipeline/pipeline-step.js';
import type { PrefetchJob, PrefetchQueue } from './prefetch-queue.js';

/** What the coordinating index run hands its workers: one generation's draft, built for these methods in this mode. */
export interface PrefetchRun {
  workspace: string;
  generation: number;
  mode: 'fast' | 'standard';
  methods: string[];
  /** Shards of each round: more than there are workers, so that a slow or killed worker holds up little. */
  shardsPerRound: number;
  /** The step's settings as a hash, which a worker checks against its own configuration. */
  fingerprintOf(step: PipelineStep): string;
  /**
   * Whether this process takes shards too: needed when it starts no workers of its own (remote workers only), so that
   * the run ends even when none is running; not when its local workers are there to take them.
   */
  workOnShards: boolean;
}

/** The coordinator's side of a distributed index run. */
export interface PrefetchDistribution {
  /** `RunPipelineOptions.beforeStep`: a step that can prefetch has its shards done by the workers first. */
  beforeStep(step: PipelineStep, context: StepContext): Promise<void>;
}

/**
 * Spreads the LLM calls of the steps that prefetch (graph extraction, claims, summaries, reports) over the
 * workers of `queue`: for each round of a step, one job per shard; the step's `run` starts when every shard has
 * ended, and finds their calls in the draft's LLM cache. Without local workers the coordinating process works on the
 * shards too, so a run ends even when no remote worker is there. A shard that fails for good costs nothing but time:
 * `run` makes the calls it left out itself, and says so.
 */
export async function startPrefetchDistribution(queue: PrefetchQueue, run: PrefetchRun): Promise<PrefetchDistribution> {
  let current: { step: PipelineStep; context: StepContext } | undefined;
  if (run.workOnShards) {
    await queue.work(async (job): Promise<StepPrefetchResult> => {
      const active = current;
      if (!active || job.workspace !== run.workspace || job.generation !== run.generation || job.step !== active.step.name || !active.step.prefetch) {
        throw new Error(`a shard of ${job.step} for generation ${job.generation}, which this run (generation ${run.generation}) is not prefetching`);
      }
      return active.step.prefetch(active.context, { ...job.shard, round: job.round });
    });
  }

  return {
    async beforeStep(step, context) {
      if (!step.prefetch || !context.llm) return;
      const rounds = step.prefetchRounds ? await step.prefetchRounds(context) : 1;
      current = { step, context };
      const fingerprint = run.fingerprintOf(step);
      try {
        for (let round = 0; round < rounds; round++) {
          const jobs: PrefetchJob[] = Array.from({ length: run.shardsPerRound }, (_, index) => ({
            workspace: run.workspace,
            generation: run.generation,
            mode: run.mode,
            methods: run.methods,
            step: step.name,
            round,
            shard: { index, count: run.shardsPerRound },
            fingerprint,
          }));
          const ids = await queue.send(jobs);
          try {
            const outcome = await queue.waitFor(ids, {
              ...(context.signal === undefined ? {} : { signal: context.signal }),
              onSettled: (settled, total) => context.progress(settled, total, rounds > 1 ? `shards of round ${round + 1}/${rounds}` : 'shards'),
            });
            for (const failure of outcome.failed) {
              context.warn('prefetch-failed', `${step.name}: shard ${failure.shard + 1} of ${run.shardsPerRound} failed on every worker (${failure.error}); the step makes its calls itself`);
            }
          } catch (error) {
            await queue.cancel(ids);
            throw error;
          }
        }
      } finally {
        current = undefined;
      }
    },
  };
}
