import { basename } from 'node:path';
import type { Kgrag } from '../api/create-kgrag.js';
import type { RunUsage } from '../core/types.js';
import type { EntityEditRequest } from '../extract/entity-edits/entity-edit-rules.js';
import type { InputDocument, PipelineEvent } from '../pipeline/pipeline-step.js';

/** What a job was asked to do. Documents are kept (in the job's file) only until the job has ended. */
export type JobRequest =
  | {
      kind: 'index';
      /** Documents given as text. */
      documents: InputDocument[];
      /** Files (uploads stored in the workspace) to index. */
      paths: string[];
      /**
       * Files and folders `kgrag serve --watch` follows: read whole, with prune (a file gone from them is a document
       * gone). Unlike `paths`, they belong to the user and are never removed when the job ends.
       */
      watched?: string[];
      mode?: 'fast' | 'standard';
      methods?: string[];
    }
  | {
      kind: 'entity-edit';
      edit: EntityEditRequest;
      mode?: 'fast' | 'standard';
    }
  | {
      kind: 'delete';
      selectors: string[];
      /** Uploaded files of the deleted documents, removed with them. */
      files: string[];
      keepCache?: boolean;
      mode?: 'fast' | 'standard';
    };

/** Totals of a job's finished run. */
export interface JobResult {
  durationMs: number;
  usage: RunUsage;
  /** Ids of the documents a delete job removed. */
  deleted?: string[];
}

/** How one run of a job is told what happens around it. */
export interface JobRunOptions {
  /** Names the writer for other writers that wait, e.g. `kgrag serve (job-000001)`. */
  command: string;
  onEvent: (event: PipelineEvent) => void;
  /** Interrupts the run and keeps its draft for the next run to resume (a shutdown). */
  signal: AbortSignal;
  /** Cancels the run and drops its draft (a cancelled job's documents must not be published by the next job). */
  cancelSignal: AbortSignal;
}

/** Runs index, delete and entity-edit jobs on a workspace: in the server's process, or in a process of their own. */
export interface JobRunner {
  /** Runs one job to its end; rejects with its error (or the abort's reason after `signal` or `cancelSignal`). */
  run(request: JobRequest, options: JobRunOptions): Promise<JobResult>;
  /** Ends what the runner keeps between jobs (a process started ahead); called when the queue shuts down. */
  close?(): void;
}

/** What an upload's documents are stored under: `upload:<name>`, whichever server's folder holds the file. */
export function uploadSource(path: string): string {
  return `${uploadSourcePrefix}${basename(path)}`;
}

/** What the source of every uploaded file's documents starts with. */
export const uploadSourcePrefix = 'upload:';

function uploadSources(paths: readonly string[]): Record<string, string> {
  return Object.fromEntries(paths.map((path) => [path, uploadSource(path)]));
}

/** Runs one job with an open workspace: what both runners do, in this process or in the job's own. */
export async function runJob(kgrag: Kgrag, request: JobRequest, options: JobRunOptions): Promise<JobResult> {
  const { command, onEvent, signal, cancelSignal } = options;
  const run = { command, onEvent, signal, cancelSignal, ...(request.mode === undefined ? {} : { mode: request.mode }) };
  if (request.kind === 'index') {
    const watched = request.watched ?? [];
    const summary = await kgrag.index(
      { paths: [...request.paths, ...watched], documents: request.documents, sourceLabels: uploadSources(request.paths) },
      { ...run, ...(request.methods === undefined ? {} : { methods: request.methods }), ...(watched.length === 0 ? {} : { prune: true }) },
    );
    return { durationMs: summary.durationMs, usage: summary.usage };
  }
  if (request.kind === 'entity-edit') {
    const { run: summary } = await kgrag.editEntities(request.edit, run);
    return { durationMs: summary.durationMs, usage: summary.usage };
  }
  const summary = await kgrag.delete(request.selectors, { ...run, ...(request.keepCache === undefined ? {} : { keepCache: request.keepCache }) });
  return { durationMs: summary.run.durationMs, usage: summary.run.usage, deleted: summary.deleted.map((document) => document.id) };
}

/**
 * Runs jobs in the server's own process, on the workspace's open `Kgrag`. For a library user whose workspace is opened
 * with objects that cannot cross a process boundary (a scripted language model in tests); its CPU work shares the
 * event loop with the queries, in cooperative turns.
 */
export function inProcessJobRunner(kgrag: () => Promise<Kgrag>): JobRunner {
  return { run: async (request, options) => runJob(await kgrag(), request, options) };
}
