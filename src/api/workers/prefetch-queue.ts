import { setTimeout as sleep } from 'node:timers/promises';
import { sha256 } from '../../core/ids.js';
import type { StepName, StepPrefetchResult } from '../../pipeline/pipeline-step.js';

/** One shard of one round of a step's prefetch, as the coordinator hands it to whichever worker takes it. */
export interface PrefetchJob {
  workspace: string;
  /** The draft generation the coordinator writes: the prefetch's calls land in its LLM cache. */
  generation: number;
  mode: 'fast' | 'standard';
  /** The methods the run builds: the worker composes the same pipeline from them. */
  methods: string[];
  step: StepName;
  round: number;
  shard: { index: number; count: number };
  /** The step's settings as the coordinator sees them; a worker configured otherwise refuses the job. */
  fingerprint: string;
}

/** How the jobs a coordinator waits for ended. */
export interface PrefetchOutcome {
  completed: number;
  /** Jobs that failed after every retry (the coordinator's `run` makes their calls itself). */
  failed: Array<{ shard: number; error: string }>;
}

/** A maintained Postgres job queue (pg-boss) for prefetch shards, per workspace. */
export interface PrefetchQueue {
  send(jobs: readonly PrefetchJob[]): Promise<string[]>;
  /** Waits until every job of `ids` has completed or failed for good. */
  waitFor(ids: readonly string[], options: { signal?: AbortSignal; onSettled?: (settled: number, total: number) => void }): Promise<PrefetchOutcome>;
  /** Cancels jobs that have not ended (a coordinator that stops). */
  cancel(ids: readonly string[]): Promise<void>;
  /** Takes jobs one at a time and runs `handler` on each until `stop`. */
  work(handler: (job: PrefetchJob) => Promise<StepPrefetchResult>): Promise<void>;
  stop(): Promise<void>;
}

/** Options of {@link openPrefetchQueue}. */
export interface PrefetchQueueOptions {
  url: string;
  /** The Postgres schema of kgrag's tables; the queue's tables go to `<schema>_queue`. */
  schema: string;
  workspace: string;
  /**
   * How long a job stays a worker's without a renewal (pg-boss's expiration): a worker renews it every third of it
   * while it works, so a killed worker's job is retried after one lease, however long shards take.
   */
  leaseSeconds: number;
  /** Whether this process runs the queue's maintenance (expiring leases): the coordinator does. */
  supervise: boolean;
  /** Hears what the queue's connections report (pg-boss retries on its own): a database gone, a failed poll. */
  onError?: (error: unknown) => void;
}

const pollMs = 500;
/** Attempts of a shard after its first: a worker killed twice on one shard does not fail the step's prefetch. */
const retryLimit = 3;

/** The queue of a workspace's prefetch jobs (pg-boss names allow only letters, digits, `_` and `-`). */
function queueName(workspace: string): string {
  const readable = workspace.replace(/[^\w-]/g, '_').slice(0, 40);
  return `kgrag_prefetch_${readable}_${sha256(workspace).slice(0, 8)}`;
}

/** Opens (creating when missing) the prefetch queue of a workspace in the database at `url`. */
export async function openPrefetchQueue(options: PrefetchQueueOptions): Promise<PrefetchQueue> {
  const { default: PgBoss } = await import('pg-boss');
  const queueSchema = `"${`${options.schema}_queue`.replaceAll('"', '""')}"`;
  const boss = new PgBoss({
    connectionString: options.url,
    schema: `${options.schema}_queue`,
    max: 4,
    supervise: options.supervise,
    schedule: false,
    // Leases are checked this often by the supervising process.
    maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.floor(options.leaseSeconds / 2))),
  });
  // A dropped connection is retried by pg-boss; the error is not the process's end, but the caller may say so.
  boss.on('error', (error: unknown) => options.onError?.(error));
  await boss.start();
  const name = queueName(options.workspace);
  await boss.createQueue(name, { name, retryLimit, retryDelay: 0, expireInSeconds: options.leaseSeconds });
  let working = false;
  let loop: Promise<void> | undefined;

  return {
    async send(jobs) {
      const ids: string[] = [];
      for (const job of jobs) {
        const id = await boss.send(name, job as unknown as object, { retryLimit, retryDelay: 0, expireInSeconds: options.leaseSeconds });
        if (id === null) throw new Error(`the prefetch queue refused a job of ${job.step}`);
        ids.push(id);
      }
      return ids;
    },
    async waitFor(ids, waitOptions) {
      const pending = new Set(ids);
      const outcome: PrefetchOutcome = { completed: 0, failed: [] };
      while (pending.size > 0) {
        waitOptions.signal?.throwIfAborted();
        for (const id of [...pending]) {
          const job = await boss.getJobById<PrefetchJob>(name, id);
          if (!job || job.state === 'completed') outcome.completed++;
          else if (job.state === 'failed' || job.state === 'cancelled') {
            const output = job.output as { message?: string } | null;
            outcome.failed.push({ shard: job.data.shard.index, error: output?.message ?? job.state });
          } else continue;
          pending.delete(id);
          waitOptions.onSettled?.(ids.length - pending.size, ids.length);
        }
        if (pending.size > 0) await sleep(pollMs, undefined, waitOptions.signal === undefined ? {} : { signal: waitOptions.signal });
      }
      return outcome;
    },
    async cancel(ids) {
      if (ids.length > 0) await boss.cancel(name, [...ids]).catch(() => undefined);
    },
    async work(handler) {
      // A loop of its own rather than pg-boss's `work`: pg-boss 10 completes or fails a job without awaiting it, so a
      // database lost at that moment rejected where nothing listened, and Node ended the worker.
      working = true;
      loop = (async () => {
        while (working) {
          const [job] = await boss.fetch<PrefetchJob>(name, { batchSize: 1 }).catch((error: unknown) => {
            options.onError?.(error);
            return [];
          });
          if (!job) {
            await sleep(pollMs);
            continue;
          }
          // pg-boss 10 has no heartbeat: the lease runs from `started_on`, which the worker moves on while it works.
          const renewal = setInterval(
            () => {
              boss
                .getDb()
                .executeSql(`UPDATE ${queueSchema}.job SET started_on = now() WHERE name = $1 AND id = $2 AND state = 'active'`, [name, job.id])
                .catch((error: unknown) => options.onError?.(error));
            },
            Math.max(500, (options.leaseSeconds * 1000) / 3),
          );
          try {
            const result = await handler(job.data);
            await boss.complete(name, job.id, result as unknown as object).catch((error: unknown) => options.onError?.(error));
          } catch (error) {
            // The shard goes back to the queue (pg-boss retries it) with the reason the coordinator reports if it fails for good.
            await boss.fail(name, job.id, { message: (error as Error).message ?? String(error) }).catch((failure: unknown) => options.onError?.(failure));
          } finally {
            clearInterval(renewal);
          }
        }
      })();
    },
    async stop() {
      working = false;
      await loop;
      await boss.stop({ graceful: false, wait: true, close: true });
    },
  };
}
