import { setTimeout as sleep } from 'node:timers/promises';
import { KgragError } from '../core/errors.js';
import type { PipelineStep } from '../pipeline/pipeline-step.js';
import { createStoreLlmCache } from '../store/store-llm-cache.js';
import { explainPostgresError } from '../store/postgres/explain-postgres-error.js';
import type { Store } from '../store/store.js';
import type { WorkOptions, WorkSummary } from './kgrag.js';
import { postgresWorkspaceName } from './postgres-workspace-name.js';
import type { PrefetchQueue, PrefetchJob } from './workers/prefetch-queue.js';
import type { LocalIndexWorkers } from './workers/start-index-workers.js';
import { stepSettingsFingerprint } from './workers/step-settings-fingerprint.js';
import type { WorkspaceSession } from './workspace-session.js';

/** The prefetch queue and local worker processes of one index run. */
export interface IndexWorkers {
  queue: PrefetchQueue;
  stop(): Promise<void>;
}

/** Opens a draft generation another process writes, for a worker; only a Postgres workspace has them. */
function requireDistributedStorage(session: WorkspaceSession, command: string): (generation: number) => Promise<Store> {
  const openDraft = session.storage.openDraft?.bind(session.storage);
  if (session.config.store.backend !== 'postgres' || !openDraft) {
    throw new KgragError(`${command} needs the index in a Postgres database that the index run and its workers share`, {
      code: 'WORKERS_NEED_POSTGRES',
      category: 'config',
      hint: 'set store.backend: postgres and store.url (or KGRAG_DATABASE_URL) in the workspace configuration; with SQLite, index without workers',
    });
  }
  return openDraft;
}

/** The workspace's queue of prefetch shards; its supervisor (the indexing process) hands a killed worker's shard on. */
async function openWorkspaceQueue(session: WorkspaceSession, supervise: boolean, onError?: (error: unknown) => void): Promise<PrefetchQueue> {
  const { config } = session;
  const { openPrefetchQueue } = await import('./workers/prefetch-queue.js');
  try {
    return await openPrefetchQueue({
      url: config.store.url ?? '',
      schema: config.store.schema,
      workspace: postgresWorkspaceName(config, session.workspace),
      leaseSeconds: config.workers.leaseSeconds,
      supervise,
      ...(onError === undefined ? {} : { onError }),
    });
  } catch (error) {
    throw explainPostgresError(error);
  }
}

/** Pauses between a worker's attempts to open its queue while the database is down: 1 s, doubling, at most 30 s. */
const reconnectPausesSeconds = { first: 1, most: 30 };

/** Whether an error is the database being away (the worker waits for it) rather than something to report and stop on. */
function isStoreAway(error: unknown): error is KgragError {
  return KgragError.isInstance(error) && (error.code === 'STORE_UNREACHABLE' || error.code === 'STORE_UNAVAILABLE');
}

/**
 * The worker's queue, opened as soon as the database lets it: a worker started before its database (a deployment
 * that starts everything at once, a database restarting) waits for it rather than exiting.
 */
async function openQueueWhenReachable(session: WorkspaceSession, options: WorkOptions): Promise<PrefetchQueue | undefined> {
  const reportQueueError = (error: unknown): void => {
    const explained = explainPostgresError(error);
    if (isStoreAway(explained)) options.onStoreError?.(explained);
  };
  let pause = reconnectPausesSeconds.first;
  for (;;) {
    if (options.signal?.aborted) return undefined;
    try {
      return await openWorkspaceQueue(session, false, reportQueueError);
    } catch (error) {
      if (!isStoreAway(error)) throw error;
      options.onStoreError?.(error, pause);
      await sleep(pause * 1000, undefined, options.signal === undefined ? {} : { signal: options.signal }).catch(() => undefined);
      pause = Math.min(reconnectPausesSeconds.most, pause * 2);
    }
  }
}

/** The prefetch queue and local worker processes of an index run, when `workers` asks for them. */
export async function startIndexWorkers(session: WorkspaceSession): Promise<IndexWorkers | undefined> {
  const { config, options } = session;
  if (config.workers.local === 0 && !config.workers.remote) return undefined;
  requireDistributedStorage(session, config.workers.local > 0 ? `workers.local: ${config.workers.local}` : 'workers.remote');
  if (config.workers.local > 0 && options.llm) {
    throw new KgragError('local index workers make their own LLM client from the configuration, and this workspace was given one in code', {
      code: 'WORKERS_NEED_CONFIGURED_LLM',
      category: 'config',
      hint: 'configure the model with llm.* (or KGRAG_LLM_* variables) instead of passing `llm` to createKgrag, or index without workers',
    });
  }
  const queue = await openWorkspaceQueue(session, true);
  let local: LocalIndexWorkers | undefined;
  try {
    if (config.workers.local > 0) {
      const { startLocalIndexWorkers } = await import('./workers/start-index-workers.js');
      local = await startLocalIndexWorkers({
        count: config.workers.local,
        workspace: session.workspace,
        ...(options.config === undefined ? {} : { config: options.config }),
        ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
        ...(options.env === undefined ? {} : { env: options.env }),
      });
    }
  } catch (error) {
    await queue.stop();
    throw error;
  }
  return {
    queue,
    async stop() {
      try {
        await local?.stop();
      } finally {
        await queue.stop();
      }
    },
  };
}

/** The step of an index run a worker makes the calls of, refused when this worker cannot make them as the run would. */
function prefetchStepOf(session: WorkspaceSession, steps: readonly PipelineStep[], job: PrefetchJob): PipelineStep & Required<Pick<PipelineStep, 'prefetch'>> {
  const step = steps.find((candidate) => candidate.name === job.step);
  if (!step?.prefetch || !session.llm) {
    throw new KgragError(`this worker cannot make the calls of step ${job.step}${session.llm ? '' : ': it has no LLM configured'}`, {
      code: 'WORKER_CANNOT_PREFETCH',
      category: 'config',
      hint: 'give the worker the workspace configuration and LLM settings the index run uses',
    });
  }
  if (stepSettingsFingerprint(step, session.config, session.stepEnvironment) !== job.fingerprint) {
    throw new KgragError(`this worker's settings for step ${job.step} differ from the index run's (model, prompts or extraction options)`, {
      code: 'WORKER_CONFIG_MISMATCH',
      category: 'config',
      hint: 'run the worker with the same kgrag.yaml, prompts folder and KGRAG_* variables as `kgrag index`',
    });
  }
  return step as PipelineStep & Required<Pick<PipelineStep, 'prefetch'>>;
}

/**
 * Works as an indexing worker of the workspace until `signal` aborts: takes the shards of LLM work that index runs
 * on the same Postgres database hand out, one at a time, and makes their calls into the running index's LLM cache.
 */
export async function workOnShards(session: WorkspaceSession, options: WorkOptions): Promise<WorkSummary> {
  const { config, llm } = session;
  const target = requireDistributedStorage(session, 'kgrag worker');
  const queue = await openQueueWhenReachable(session, options);
  const summary: WorkSummary = { shards: 0, calls: 0 };
  if (queue === undefined) return summary;
  const { indexPipeline } = await import('./index-pipeline.js');
  await queue.work(async (job) => {
    const draft = await target(job.generation);
    session.useWriteCache(config.llm.cache ? createStoreLlmCache(draft) : undefined);
    try {
      let step: ReturnType<typeof prefetchStepOf>;
      try {
        const steps = await indexPipeline({ config, mode: job.mode, hasLlm: llm !== undefined, registry: session.methods, methodConfigs: session.methodConfigs, methods: session.registry.select(job.methods, 'the methods of the index run') });
        step = prefetchStepOf(session, steps, job);
      } catch (error) {
        // Refused: the shard fails here and goes to another worker or back to the run; the operator must hear why.
        if (KgragError.isInstance(error)) options.onRefused?.({ step: job.step, round: job.round, ...job.shard, error });
        throw error;
      }
      const result = await step.prefetch(
        {
          store: draft,
          config,
          tokenizer: session.tokenizer,
          embedder: await session.embedderFor(draft),
          llm,
          prompts: session.prompts,
          inputs: { paths: [], documents: [] },
          signal: options.signal,
          progress: () => undefined,
          warn: () => undefined,
        },
        { ...job.shard, round: job.round },
      );
      summary.shards++;
      summary.calls += result.calls;
      options.onShard?.({ step: job.step, round: job.round, ...job.shard, ...result });
      return result;
    } finally {
      session.useWriteCache(undefined);
      await draft.close();
    }
  });
  try {
    // Without a signal a worker works until the process ends.
    await new Promise<void>((resolve) => {
      if (options.signal?.aborted) resolve();
      else options.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    await queue.stop();
  }
  return summary;
}
