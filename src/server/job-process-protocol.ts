import { toEnvironmentError } from '../core/environment-error.js';
import { type ErrorCategory, KgragError } from '../core/errors.js';
import { formatErrorLine } from '../core/format-error-line.js';
import type { PipelineEvent } from '../pipeline/pipeline-step.js';
import type { JobRequest, JobResult } from './job-runner.js';

/** How a job's own process opens the workspace: `createKgrag`'s options that can cross a process boundary. */
export interface JobWorkspaceOptions {
  workspace: string;
  env: Record<string, string | undefined>;
  /** Configuration overrides (`--set`), plain data. */
  config?: Record<string, unknown>;
  configFile?: string;
  /** The `--workspaces` folder's kgrag.yaml, beneath the workspace's own. */
  baseConfigFile?: string;
}

/** What the server sends a job's process. */
export type JobParentMessage =
  | { type: 'run'; workspace: JobWorkspaceOptions; request: JobRequest; command: string }
  | { type: 'stop'; how: 'cancel' | 'shutdown'; reason: SerializedError };

/**
 * What a job's process sends the server. The outcome says how much memory the process holds after the job (its
 * resident set, in bytes), which tells the server whether to keep it for the next job.
 */
export type JobChildMessage = { type: 'event'; event: PipelineEvent } | { type: 'result'; result: JobResult; rssBytes?: number } | { type: 'error'; error: SerializedError; rssBytes?: number };

/** An error as it crosses the process boundary: what the job's view and the logs need of it. */
export interface SerializedError {
  code: string;
  category: ErrorCategory;
  message: string;
  hint: string | undefined;
  stack: string | undefined;
}

/**
 * An error as data. A {@link KgragError}, or a refusal of the machine that `toEnvironmentError` explains, keeps its
 * code, category and hint; anything else is an internal error whose message is the one line a bug gets.
 */
export function serializeError(error: unknown): SerializedError {
  const explained = KgragError.isInstance(error) ? error : toEnvironmentError(error);
  if (explained !== undefined) return { code: explained.code, category: explained.category, message: explained.message, hint: explained.hint, stack: explained.stack };
  return { code: 'INTERNAL', category: 'internal', message: formatErrorLine(error), hint: undefined, stack: error instanceof Error ? error.stack : undefined };
}

/** The error a {@link SerializedError} was made from, as a {@link KgragError} with the same one-line rendering. */
export function deserializeError(error: SerializedError): KgragError {
  const cause = error.stack === undefined ? undefined : Object.assign(new Error(error.message), { stack: error.stack });
  return new KgragError(error.message, { code: error.code, category: error.category, ...(error.hint === undefined ? {} : { hint: error.hint }), ...(cause === undefined ? {} : { cause }) });
}
