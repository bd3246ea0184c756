import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { KgragError } from '../core/errors.js';
import { formatErrorLine } from '../core/format-error-line.js';
import type { PipelineEvent } from '../pipeline/pipeline-step.js';
import { fileWriteError } from './file-write-error.js';
import type { UploadedFile } from '../store/shared-job-store.js';
import type { JobRequest, JobResult, JobRunner } from './job-runner.js';
import { applyPipelineEvent, newJobView, warnJob, type JobEvent, type JobStatus, type JobView } from './job-view.js';

export type { JobRequest } from './job-runner.js';
export type { JobEvent, JobStatus, JobStep, JobView } from './job-view.js';

/** Options of {@link openIndexJobQueue}. */
export interface IndexJobQueueOptions {
  /** Folder of the job files (one JSON file per job). */
  directory: string;
  /** Runs each job on the workspace: in this process, or in a process of its own. */
  runner: JobRunner;
  /** ISO time source (tests). @default () => new Date().toISOString() */
  now?: () => string;
  /** Called when a job ends (before its listeners hear of it), e.g. to remove the uploads of deleted documents. */
  onEnded?: (job: JobView, request: JobRequest) => Promise<void>;
  /** Jobs kept after they ended, newest first. @default 200 */
  keepEnded?: number;
  /** Hears every pipeline event of every job (metrics). */
  onEvent?: (job: JobView, event: PipelineEvent) => void;
  /** Stores a job's uploaded files where it indexes them from (the workspace's uploads folder); returns their paths. */
  storeUploads?: (files: readonly UploadedFile[]) => string[];
}

/** The index jobs of one workspace: run one at a time (the workspace has one writer), the rest wait in order. */
export interface IndexJobQueue {
  /** Queues a job; `uploads` are files it indexes besides the request's paths (an index job). */
  submit(request: JobRequest, uploads?: readonly UploadedFile[]): Promise<JobView>;
  get(id: string): Promise<JobView | undefined>;
  /** Every kept job, newest first. */
  list(): Promise<JobView[]>;
  /** Cancels a queued job, or aborts a running one (its draft is dropped) and waits for it to stop. Undefined for an unknown id. */
  cancel(id: string): Promise<JobView | undefined>;
  /**
   * Follows a job: resolves with the job as it is now, and from then on the listener receives every later event in
   * order, the last being the `job-status` event that ends it (none when the job had already ended). Undefined for an
   * unknown id.
   */
  subscribe(id: string, listener: (event: JobEvent) => void): Promise<JobSubscription | undefined>;
  /**
   * Stops taking jobs and interrupts the running one, keeping its draft and marking it queued in its file, so
   * that the next server resumes it where it stopped. Resolves when the running job has stopped.
   */
  shutdown(): Promise<void>;
  /** Resolves once no job is queued or running (tests, benchmarks). */
  idle(): Promise<void>;
}

/** A job being followed: {@link IndexJobQueue.subscribe}. */
export interface JobSubscription {
  /** The job when the subscription began; every event after it goes to the listener. */
  job: JobView;
  unsubscribe(): void;
}

interface JobRecord {
  view: JobView;
  request: JobRequest;
}

const jobIdPattern = /^job-(\d{6,})$/;

/**
 * Failures that say the index's database is away (down, restarting, the network cut, the writer's lock connection
 * lost), not that the job is wrong: the job waits for the database and runs again, resuming its draft.
 */
export const storeAwayCodes: ReadonlySet<string> = new Set(['STORE_UNREACHABLE', 'STORE_UNAVAILABLE', 'STORE_WRITER_LOCK_LOST']);

/** Why a queue that is shutting down refuses a job: 503, to retry. */
export function takesNoJobsError(): KgragError {
  return new KgragError('the server is shutting down and takes no new jobs', { code: 'SERVER_SHUTTING_DOWN', category: 'environment', hint: 'retry once the server is back', details: { httpStatus: 503, retryAfterSeconds: 5 } });
}

/** The reason a cancelled job's run is aborted with (its draft is dropped). */
export function jobCancelledError(id: string): KgragError {
  return new KgragError(`job ${id} was cancelled`, { code: 'JOB_CANCELLED', category: 'input' });
}

/** The reason a shutdown interrupts a running job with (its draft is kept, to be resumed). */
export function shutdownInterruption(): KgragError {
  return new KgragError('the server is shutting down; the job resumes when it starts again', { code: 'SERVER_SHUTTING_DOWN', category: 'environment' });
}

/** Pauses of the queue while its database is away: 1 s, doubling, at most 30 s. */
export const storeRetrySeconds = { first: 1, most: 30 };

/**
 * Opens the job queue of a workspace. Jobs live in files beside the index, so that a server stopped by SIGTERM (or
 * killed) finds the jobs it had not finished and runs them again: a rerun resumes the unfinished draft, so the
 * steps already done are not paid for twice. Ids count up (`job-000001`), the same on every run of the same work.
 */
export function openIndexJobQueue(options: IndexJobQueueOptions): IndexJobQueue {
  const now = options.now ?? (() => new Date().toISOString());
  const keepEnded = options.keepEnded ?? 200;
  mkdirSync(options.directory, { recursive: true });
  const records = new Map<string, JobRecord>();
  const listeners = new Map<string, Set<(event: JobEvent) => void>>();
  const waiting: string[] = [];
  /** The running job: its two ways to stop, and a promise that settles once it has ended (cancel and shutdown wait on it). */
  let running: { id: string; abort: AbortController; cancel: AbortController; stopped: Promise<void> } | undefined;
  let stopping = false;
  /** While the database is away the queue holds every job (in order) until this timer fires. */
  let held: { timer: NodeJS.Timeout; pauseSeconds: number } | undefined;
  let nextPauseSeconds = storeRetrySeconds.first;
  let nextNumber = 1;
  let idleWaiters: Array<() => void> = [];

  const fileOf = (id: string): string => join(options.directory, `${id}.json`);
  const persist = (record: JobRecord): void => {
    const ended = record.view.status !== 'queued' && record.view.status !== 'running';
    // A finished job keeps no document text: deleting a document must not leave it in a job file.
    const request: JobRequest = ended && record.request.kind === 'index' ? { ...record.request, documents: [] } : record.request;
    const file = fileOf(record.view.id);
    writeFileSync(`${file}.tmp`, JSON.stringify({ view: record.view, request }));
    renameSync(`${file}.tmp`, file);
  };
  const emit = (record: JobRecord, event: JobEvent['event']): void => {
    for (const listener of listeners.get(record.view.id) ?? []) listener({ job: structuredClone(record.view), event });
  };
  const setStatus = (record: JobRecord, status: 'queued' | 'running'): void => {
    record.view.status = status;
    if (status === 'running') record.view.startedAt = now();
    persist(record);
    emit(record, { type: 'job-status', status });
  };
  /** Ends a job: its cleanup runs first, so that whoever hears of the end sees its effects complete. */
  const finish = async (record: JobRecord, status: Exclude<JobStatus, 'queued' | 'running'>): Promise<void> => {
    const request = record.request;
    if (request.kind === 'index') record.request = { ...request, documents: [] };
    try {
      await options.onEnded?.({ ...structuredClone(record.view), status }, request);
    } catch (error) {
      warnJob(record.view, `cleaning up after the job failed: ${formatErrorLine(error)}`);
    }
    record.view.status = status;
    record.view.endedAt = now();
    persist(record);
    emit(record, { type: 'job-status', status });
    listeners.delete(record.view.id);
    prune();
  };
  const prune = (): void => {
    const ended = [...records.values()].filter((record) => record.view.status !== 'queued' && record.view.status !== 'running');
    ended.sort((a, b) => b.view.id.localeCompare(a.view.id));
    for (const record of ended.slice(keepEnded)) {
      records.delete(record.view.id);
      rmSync(fileOf(record.view.id), { force: true });
    }
  };

  for (const name of readdirSync(options.directory).sort()) {
    const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : undefined;
    const number = id === undefined ? undefined : jobIdPattern.exec(id)?.[1];
    if (id === undefined || number === undefined) {
      if (name.endsWith('.tmp')) rmSync(join(options.directory, name), { force: true, recursive: true });
      continue;
    }
    const record = JSON.parse(readFileSync(join(options.directory, name), 'utf8')) as JobRecord;
    // Job files written before watched updates and shared jobs existed.
    record.view.input.watched ??= [];
    record.view.runBy ??= null;
    records.set(id, record);
    nextNumber = Math.max(nextNumber, Number(number) + 1);
    if (record.view.status === 'running' || record.view.status === 'queued') {
      // Stopped by a shutdown or a crash before it ended: run it again; the rerun resumes its draft.
      if (record.view.startedAt !== null) record.view.resumed += 1;
      record.view.status = 'queued';
      waiting.push(id);
    }
  }

  const applyEvent = (record: JobRecord, event: PipelineEvent): void => {
    applyPipelineEvent(record.view, event);
    if (event.type !== 'step-progress') persist(record);
    options.onEvent?.(record.view, event);
    emit(record, event);
  };

  /** Puts a job the database's absence stopped back at the head of the queue, and holds the queue for a while. */
  const waitForStore = (record: JobRecord, error: KgragError): void => {
    const pauseSeconds = nextPauseSeconds;
    nextPauseSeconds = Math.min(storeRetrySeconds.most, pauseSeconds * 2);
    record.view.resumed += 1;
    warnJob(record.view, `${now()}: ${error.message}; the job runs again in ${pauseSeconds} s and resumes its draft`);
    waiting.unshift(record.view.id);
    setStatus(record, 'queued');
    held = {
      pauseSeconds,
      timer: setTimeout(() => {
        held = undefined;
        kick();
      }, pauseSeconds * 1000),
    };
  };

  const runNext = async (): Promise<void> => {
    if (running || stopping || held) return;
    const id = waiting.shift();
    if (id === undefined) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
      return;
    }
    const record = records.get(id);
    if (!record || record.view.status !== 'queued') return runNext();
    const abort = new AbortController();
    const cancel = new AbortController();
    let stop!: () => void;
    running = { id, abort, cancel, stopped: new Promise((resolve) => (stop = resolve)) };
    setStatus(record, 'running');
    try {
      const onEvent = (event: PipelineEvent): void => applyEvent(record, event);
      record.view.result = await options.runner.run(record.request, { command: `kgrag serve (${record.view.id})`, onEvent, signal: abort.signal, cancelSignal: cancel.signal });
      nextPauseSeconds = storeRetrySeconds.first;
      await finish(record, 'succeeded');
    } catch (error) {
      if (cancel.signal.aborted) await finish(record, 'cancelled');
      else if (stopping) {
        // Interrupted by shutdown: stays queued in its file, for the next server to resume.
        record.view.status = 'queued';
        persist(record);
      } else if (KgragError.isInstance(error) && storeAwayCodes.has(error.code)) {
        waitForStore(record, error);
      } else {
        record.view.error = { code: KgragError.isInstance(error) ? error.code : 'INTERNAL', message: formatErrorLine(error) };
        await finish(record, 'failed');
      }
    } finally {
      running = undefined;
      stop();
    }
    if (!stopping) await runNext();
  };
  const kick = (): void => {
    void runNext();
  };

  queueMicrotask(kick);

  return {
    async submit(given, uploads = []) {
      if (stopping) throw takesNoJobsError();
      let request = given;
      if (uploads.length > 0) {
        if (request.kind !== 'index' || !options.storeUploads) throw new Error('uploads belong to index jobs of a queue that stores them');
        request = { ...request, paths: [...request.paths, ...options.storeUploads(uploads)] };
      }
      const id = `job-${String(nextNumber++).padStart(6, '0')}`;
      const view = newJobView(id, request, now());
      const record = { view, request };
      records.set(id, record);
      try {
        persist(record);
      } catch (error) {
        // A job that cannot be recorded is not queued: it ends failed, and its end cleans up after it (its uploads).
        const failure = fileWriteError(`the file of job ${id}`, `${basename(options.directory)}/${id}.json`, error);
        view.status = 'failed';
        view.endedAt = now();
        view.error = { code: failure.code, message: formatErrorLine(failure) };
        finish(record, 'failed').catch(() => undefined);
        throw failure;
      }
      waiting.push(id);
      const submitted = structuredClone(view);
      kick();
      return submitted;
    },
    async get(id) {
      const record = records.get(id);
      return record === undefined ? undefined : structuredClone(record.view);
    },
    async list() {
      return [...records.values()].map((record) => structuredClone(record.view)).sort((a, b) => b.id.localeCompare(a.id));
    },
    async cancel(id) {
      const record = records.get(id);
      if (!record) return undefined;
      if (record.view.status === 'queued') {
        const position = waiting.indexOf(id);
        if (position >= 0) waiting.splice(position, 1);
        await finish(record, 'cancelled');
      } else if (record.view.status === 'running' && running?.id === id) {
        running.cancel.abort(jobCancelledError(id));
        await running.stopped;
      }
      return structuredClone(record.view);
    },
    async subscribe(id, listener) {
      const record = records.get(id);
      if (!record) return undefined;
      let set = listeners.get(id);
      if (!set) {
        set = new Set();
        listeners.set(id, set);
      }
      set.add(listener);
      return {
        job: structuredClone(record.view),
        unsubscribe: () => {
          set.delete(listener);
        },
      };
    },
    async shutdown() {
      stopping = true;
      if (held) clearTimeout(held.timer);
      options.runner.close?.();
      const current = running;
      if (!current) return;
      current.abort.abort(shutdownInterruption());
      await current.stopped;
    },
    idle() {
      if (!running && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
