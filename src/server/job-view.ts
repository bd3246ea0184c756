import type { PipelineEvent } from '../pipeline/pipeline-step.js';
import type { JobRequest, JobResult } from './job-runner.js';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** Progress of one pipeline step of a job. */
export interface JobStep {
  step: string;
  status: 'pending' | 'running' | 'done' | 'skipped';
  done: number;
  total: number;
  unit: string;
  durationMs: number | undefined;
}

/** A job as the API shows it. */
export interface JobView {
  id: string;
  kind: JobRequest['kind'];
  status: JobStatus;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  /** What it was asked: document titles, uploaded file names, selectors, the entity edit (never document text). */
  input: {
    documents: string[];
    files: string[];
    selectors: string[];
    mode: string | null;
    methods: string[] | null;
    watched: string[];
    entityEdit: Record<string, unknown> | null;
  };
  steps: JobStep[];
  /** Times it ran again to resume its draft: after a server restart, once its database was back, or taken over. */
  resumed: number;
  /**
   * The process that runs the job, or last ran it (`host:pid`), for jobs that every server on a Postgres database
   * shares; null for a server's own jobs.
   */
  runBy: string | null;
  warnings: string[];
  /** The one-line reason of a failure. */
  error: { code: string; message: string } | null;
  /** Totals of a finished run. */
  result: JobResult | null;
}

/** An update of a job for its event stream: the job's new state and the pipeline event that caused it. */
export interface JobEvent {
  job: JobView;
  event: PipelineEvent | { type: 'job-status'; status: JobStatus };
}

/** How many warnings a job keeps (a run that warns for every document would otherwise grow its job without end). */
export const jobWarningLimit = 100;

/** A new queued job's view. */
export function newJobView(id: string, request: JobRequest, createdAt: string): JobView {
  return {
    id,
    kind: request.kind,
    status: 'queued',
    createdAt,
    startedAt: null,
    endedAt: null,
    input: {
      documents: request.kind === 'index' ? request.documents.map((document) => document.title) : [],
      files: request.kind === 'index' ? request.paths.map((path) => path.split(/[\\/]/).pop() ?? path) : [],
      selectors: request.kind === 'delete' ? request.selectors : [],
      mode: request.mode ?? null,
      methods: request.kind === 'index' ? (request.methods ?? null) : null,
      watched: request.kind === 'index' ? (request.watched ?? []) : [],
      entityEdit: request.kind === 'entity-edit' ? { ...request.edit } : null,
    },
    steps: [],
    resumed: 0,
    runBy: null,
    warnings: [],
    error: null,
    result: null,
  };
}

/** Adds a warning to a job, up to {@link jobWarningLimit}. */
export function warnJob(view: JobView, message: string): void {
  if (view.warnings.length < jobWarningLimit) view.warnings.push(message);
}

/** Brings a job's steps and warnings up to date with one pipeline event of its run. */
export function applyPipelineEvent(view: JobView, event: PipelineEvent): void {
  const stepOf = (name: string): JobStep => {
    let step = view.steps.find((candidate) => candidate.step === name);
    if (!step) {
      step = { step: name, status: 'pending', done: 0, total: 0, unit: '', durationMs: undefined };
      view.steps.push(step);
    }
    return step;
  };
  switch (event.type) {
    case 'pipeline-start':
      view.steps = event.steps.map((step) => ({ step, status: 'pending', done: 0, total: 0, unit: '', durationMs: undefined }));
      break;
    case 'step-start':
      stepOf(event.step).status = 'running';
      break;
    case 'step-progress': {
      const step = stepOf(event.step);
      step.done = event.done;
      step.total = event.total;
      step.unit = event.unit;
      break;
    }
    case 'step-skip':
      stepOf(event.step).status = 'skipped';
      break;
    case 'step-end': {
      const step = stepOf(event.step);
      step.status = 'done';
      step.durationMs = event.durationMs;
      break;
    }
    case 'warning':
      warnJob(view, event.warning.message);
      break;
    case 'pipeline-end':
      break;
  }
}
