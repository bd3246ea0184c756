import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { KgragError } from '../core/errors.js';
import { formatErrorLine } from '../core/format-error-line.js';
import type { PipelineEvent } from '../pipeline/pipeline-step.js';
import type { ClaimedJob, SharedJobStore, StoredJob } from '../store/shared-job-store.js';
import { type IndexJobQueue, jobCancelledError, shutdownInterruption, storeAwayCodes, storeRetrySeconds, takesNoJobsError } from './index-job-queue.js';
import { newJobId } from './job-id.js';
import type { JobRequest, JobRunner } from './job-runner.js';
import { applyPipelineEvent, newJobView, warnJob, type JobEvent, type JobStatus, type JobView } from './job-view.js';

/** Options of {@link openSharedIndexJobQueue}. */
export interface SharedIndexJobQueueOptions {
  /** The workspace's jobs in its database. */
  store: SharedJobStore;
  /** Runs each job this process claims. */
  runner: JobRunner;
  /**
   * Whether this process runs jobs (claims them) or only queues and reads them: a query server beside indexer
   * workers (`kgrag worker --role indexer`) runs none.
   */
  runsJobs: boolean;
  /** What this process is called in a job it runs (`host:pid:…`), unique per queue. @default host, pid and a random tag */
  holder?: string;
  /** How the writer of a job's run is named (`kgrag serve`, `kgrag worker`). @default 'kgrag serve' */
  command?: string;
  /** How long a claimed job stays this process's without a renewal; renewed every third of it. @default 30 */
  leaseSeconds?: number;
  /** How often an idle process looks for a job another server queued. @default 1000 */
  pollMs?: number;
  /** How often a follower reads a job's new events. @default 250 */
  followMs?: number;
  /** ISO time source (tests). */
  now?: () => string;
  /** Called when a job ends (before its followers hear of it). */
  onEnded?: (job: JobView, request: JobRequest) => Promise<void>;
  /** Jobs kept after they ended, newest first. @default 200 */
  keepEnded?: number;
  /** Hears every pipeline event of every job this process runs (metrics). */
  onEvent?: (job: JobView, event: PipelineEvent) => void;
  /** Hears a failure of the queue's own work (claiming while the database is away), for the server's log. */
  onError?: (error: unknown) => void;
}

/** Step progress is stored at most this often per job (followers on other servers see it as often). */
const progressWriteMs = 500;

const isEnded = (status: string): boolean => status !== 'queued' && status !== 'running';

/** What a job's own process is called: the host and process, and a tag that tells two queues of one process apart. */
export function jobHolderName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * The job queue of a workspace whose jobs live in its Postgres database, shared by every server and indexer worker
 * on it: any of them lists and follows any job (its events are stored in order), a process that runs jobs claims the
 * next one under a lease it renews while it works, and a job whose process died — its lease ran out — is claimed by
 * another, which resumes its draft and says so in the job. Uploaded files live with the job until it ends, so the
 * process that runs a job need not be the one that received it.
 */
export function openSharedIndexJobQueue(options: SharedIndexJobQueueOptions): IndexJobQueue {
  const { store, runner } = options;
  const now = options.now ?? (() => new Date().toISOString());
  const holder = options.holder ?? jobHolderName();
  const command = options.command ?? 'kgrag serve';
  const leaseSeconds = options.leaseSeconds ?? 30;
  const pollMs = options.pollMs ?? 1000;
  const followMs = options.followMs ?? 250;
  const keepEnded = options.keepEnded ?? 200;
  let stopping = false;
  let running: { id: string; abort: AbortController; cancel: AbortController; stopped: Promise<void> } | undefined;
  let wake: (() => void) | undefined;
  let pause: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;
  /** A job the database's absence stopped, to give back once it is there again (its view says why it stopped). */
  let unreleased: { id: string; view: JobView } | undefined;

  const viewOf = (job: StoredJob): JobView => {
    const view = job.view as JobView;
    // The row's status is the truth between a claim or release and the holder's next write of the view.
    return { ...view, status: isEnded(view.status) ? view.status : (job.status as JobStatus) };
  };
  const withoutText = (request: JobRequest): JobRequest => (request.kind === 'index' ? { ...request, documents: [] } : request);

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      pause = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(pause);
        resolve();
      };
    });

  /**
   * Ends a job: the row first (only its holder's, or a queued one's without a holder: a queued job claimed meanwhile
   * is not ended twice), then what the server does when a job ends. Its uploads went with the row.
   */
  const finish = async (id: string, by: string | null, view: JobView, request: JobRequest, status: Exclude<JobStatus, 'queued' | 'running'>): Promise<boolean> => {
    view.status = status;
    view.endedAt = now();
    const ended = await store.finish(id, by, view, withoutText(request), { type: 'job-status', status });
    if (!ended) return false;
    await store.prune(keepEnded).catch((error: unknown) => options.onError?.(error));
    await options.onEnded?.(structuredClone(view), request).catch((error: unknown) => options.onError?.(error));
    return true;
  };

  /** Writes the run's changes of the view in order; a write the database refuses is dropped (the run fails on its own). */
  let writes: Promise<void> = Promise.resolve();
  const write = (work: () => Promise<unknown>): void => {
    writes = writes.then(work).then(
      () => undefined,
      () => undefined,
    );
  };

  const run = async (claimed: ClaimedJob): Promise<void> => {
    const id = claimed.id;
    const view = claimed.view as JobView;
    let request = claimed.request as JobRequest;
    if (view.startedAt !== null) view.resumed += 1;
    if (claimed.takenOverFrom !== null && claimed.takenOverFrom !== holder) {
      warnJob(view, `${now()}: taken over from ${claimed.takenOverFrom}, whose lease ran out (the process stopped, or lost the database); ${holder} resumes its draft`);
    }
    view.status = 'running';
    view.startedAt = now();
    view.runBy = holder;
    const abort = new AbortController();
    const cancel = new AbortController();
    let stop!: () => void;
    running = { id, abort, cancel, stopped: new Promise((resolve) => (stop = resolve)) };
    let uploadsFolder: string | undefined;
    let leaseLost = false;
    let progressTimer: NodeJS.Timeout | undefined;
    let latestProgress: PipelineEvent | undefined;
    const heartbeat = setInterval(
      () => {
        write(async () => {
          const lease = await store.renew(id, holder, leaseSeconds, view);
          if (!lease.held && !abort.signal.aborted) {
            leaseLost = true;
            abort.abort(new KgragError(`job ${id} was taken over by another process: its lease ran out`, { code: 'JOB_LEASE_LOST', category: 'environment' }));
          } else if (lease.cancelRequested && !cancel.signal.aborted) {
            cancel.abort(jobCancelledError(id));
          }
        });
      },
      Math.max(100, (leaseSeconds * 1000) / 3),
    );
    try {
      write(() => store.record(id, holder, view, { type: 'job-status', status: 'running' }));
      const uploads = request.kind === 'index' ? await store.uploads(id) : [];
      if (uploads.length > 0 && request.kind === 'index') {
        uploadsFolder = mkdtempSync(join(tmpdir(), 'kgrag-job-'));
        const folder = uploadsFolder;
        for (const upload of uploads) writeFileSync(join(folder, upload.name), upload.bytes);
        request = { ...request, paths: [...request.paths, ...uploads.map((upload) => join(folder, upload.name))] };
      }
      const onEvent = (event: PipelineEvent): void => {
        applyPipelineEvent(view, event);
        options.onEvent?.(view, event);
        if (event.type !== 'step-progress') {
          write(() => store.record(id, holder, view, event));
          return;
        }
        // Progress is many events a second: the newest is stored at most every half second.
        latestProgress = event;
        progressTimer ??= setTimeout(() => {
          progressTimer = undefined;
          const newest = latestProgress;
          write(() => store.record(id, holder, view, newest));
        }, progressWriteMs);
      };
      view.result = await runner.run(request, { command: `${command} (${id})`, onEvent, signal: abort.signal, cancelSignal: cancel.signal });
      clearTimeout(progressTimer);
      await writes;
      await finish(id, holder, view, claimed.request as JobRequest, 'succeeded');
    } catch (error) {
      clearTimeout(progressTimer);
      const storeAway = KgragError.isInstance(error) && storeAwayCodes.has(error.code);
      // While the database is away the pending writes wait for it to time out; they are not waited for.
      if (!storeAway) await writes;
      if (leaseLost) {
        // Another process runs the job now; the row is its own.
      } else if (cancel.signal.aborted) {
        await finish(id, holder, view, claimed.request as JobRequest, 'cancelled');
      } else if (stopping) {
        view.status = 'queued';
        await store.release(id, holder, view);
      } else if (storeAway) {
        warnJob(view, `${now()}: ${(error as Error).message}; the job runs again once the database is back and resumes its draft`);
        view.status = 'queued';
        // The release fails too while the database is away: it is tried again before the next claim (if the lease ran
        // out first, another process has claimed the job, and the release changes nothing).
        unreleased = { id, view };
        throw error;
      } else {
        view.error = { code: KgragError.isInstance(error) ? error.code : 'INTERNAL', message: formatErrorLine(error) };
        await finish(id, holder, view, claimed.request as JobRequest, 'failed');
      }
    } finally {
      clearInterval(heartbeat);
      if (uploadsFolder) rmSync(uploadsFolder, { recursive: true, force: true });
      running = undefined;
      stop();
    }
  };

  /** Claims and runs jobs until the queue stops; the database being away pauses it (1 s, doubling, at most 30 s). */
  const work = async (): Promise<void> => {
    let pauseSeconds: number = storeRetrySeconds.first;
    while (!stopping) {
      try {
        if (unreleased !== undefined) {
          await store.release(unreleased.id, holder, unreleased.view);
          unreleased = undefined;
        }
        const claimed = await store.claim(holder, leaseSeconds);
        if (claimed === undefined) {
          await sleep(pollMs);
          continue;
        }
        await run(claimed);
        pauseSeconds = storeRetrySeconds.first;
      } catch (error) {
        if (stopping) break;
        options.onError?.(error);
        await sleep(pauseSeconds * 1000);
        pauseSeconds = Math.min(storeRetrySeconds.most, pauseSeconds * 2);
      }
    }
  };
  if (options.runsJobs) loop = work();

  const get = async (id: string): Promise<JobView | undefined> => {
    const job = await store.get(id);
    return job === undefined ? undefined : viewOf(job);
  };

  return {
    async submit(request, uploads = []) {
      if (stopping) throw takesNoJobsError();
      const id = newJobId();
      const view = newJobView(id, request, now());
      view.input.files = view.input.files.concat(uploads.map((upload) => upload.name));
      await store.insert({ id, view, request, uploads });
      wake?.();
      return view;
    },
    get,
    async list() {
      return (await store.list(keepEnded + 100)).map(viewOf);
    },
    async cancel(id) {
      const job = await store.get(id);
      if (job === undefined) return undefined;
      if (job.status === 'queued') {
        const view = viewOf(job);
        if (await finish(id, null, view, job.request as JobRequest, 'cancelled')) return view;
      }
      if (running?.id === id) {
        running.cancel.abort(jobCancelledError(id));
        await running.stopped;
        return get(id);
      }
      // Another process runs it: it sees the request at its next renewal; wait for it to end, at most two leases.
      await store.requestCancel(id);
      const deadline = Date.now() + leaseSeconds * 2000;
      let current = await get(id);
      while (current !== undefined && !isEnded(current.status) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, followMs));
        current = await get(id);
      }
      return current;
    },
    async subscribe(id, listener) {
      // The row's view and its last event are read together: every event after this view reaches the listener.
      const stored = await store.get(id);
      if (stored === undefined) return undefined;
      let closed = false;
      void (async () => {
        let after = stored.lastEvent;
        while (!closed) {
          try {
            const events = await store.eventsAfter(id, after);
            if (events.length > 0) {
              // The job as it is after these events (a later one may already have changed it too).
              const job = await get(id);
              if (job === undefined) return;
              for (const { seq, event } of events) {
                if (closed) return;
                after = seq;
                const jobEvent = event as JobEvent['event'];
                listener({ job, event: jobEvent });
                if (jobEvent.type === 'job-status' && isEnded(jobEvent.status)) return;
              }
              continue;
            }
          } catch {
            // The database is away: the stream waits for it and goes on where it was.
          }
          await new Promise((resolve) => setTimeout(resolve, followMs));
        }
      })();
      return {
        job: viewOf(stored),
        unsubscribe: () => {
          closed = true;
        },
      };
    },
    async shutdown() {
      stopping = true;
      wake?.();
      runner.close?.();
      const current = running;
      current?.abort.abort(shutdownInterruption());
      await current?.stopped;
      await loop;
    },
    async idle() {
      for (;;) {
        const jobs = await store.list(keepEnded + 100);
        if (!jobs.some((job) => !isEnded(job.status))) return;
        await new Promise((resolve) => setTimeout(resolve, followMs));
      }
    },
  };
}
