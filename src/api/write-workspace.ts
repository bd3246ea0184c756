import { errorMessage } from '../core/error-message.js';
import { KgragError } from '../core/errors.js';
import type { Embedder } from '../providers/embed/embedder.js';
import { createStoreLlmCache } from '../store/store-llm-cache.js';
import type { PipelineEvent } from '../pipeline/pipeline-step.js';
import type { ResumedWrite, RunDocument, WriteSession } from '../store/workspace-storage.js';
import type { WorkspaceSession } from './workspace-session.js';
import type { CancellableWriteOptions } from './write-options.js';

/**
 * How a write waits for the lock and stops: the caller's lock options and signals, where its events go, and the
 * documents it is to delete when they are known before it begins (`BeginWriteOptions.deleting`).
 */
export type WriteControl = CancellableWriteOptions & { signal?: AbortSignal; stopAfterStep?: AbortSignal; onEvent?: (event: PipelineEvent) => void; deleting?: readonly RunDocument[] };

/**
 * The warning that a write continues another's unfinished draft: the job or command that resumes it says whose, so
 * that work adopted from another process or server is never silent.
 */
function resumedDraftWarning(from: ResumedWrite): PipelineEvent {
  const where = from.process ? ` in process ${from.process.pid} on ${from.process.hostname}` : '';
  const how = from.status === 'running' ? 'whose process stopped without ending it' : from.status;
  const at = from.step ? ` at step ${from.step}` : '';
  const started = from.startedAt ? `, started ${from.startedAt}` : '';
  return {
    type: 'warning',
    warning: { step: 'draft', code: 'resumed-draft', message: `resumes the unfinished draft of "${from.command ?? 'an earlier run'}"${where}${started} (${how}${at}); the steps it finished are kept` },
  };
}

/** Work done as the workspace's writer, on its draft, with an embedder for the draft; `currentStep` names the step running. */
export type WriteWork<R> = (draft: WriteSession, embedder: Embedder, currentStep: (step: string) => void) => Promise<R>;

/** The options with `signal` also aborted by `cancelSignal`: every part of the run stops on either. */
export function withCancelSignal<O extends { signal?: AbortSignal; cancelSignal?: AbortSignal }>(options: O): O {
  if (options.cancelSignal === undefined) return options;
  return { ...options, signal: options.signal === undefined ? options.cancelSignal : AbortSignal.any([options.signal, options.cancelSignal]) };
}

function lockSignal(signal: AbortSignal | undefined, stopAfterStep: AbortSignal | undefined): { signal?: AbortSignal } {
  if (signal === undefined) return stopAfterStep === undefined ? {} : { signal: stopAfterStep };
  return { signal: stopAfterStep === undefined ? signal : AbortSignal.any([signal, stopAfterStep]) };
}

/**
 * Runs `work` as the workspace's one writer, on a draft of the index, and publishes the draft when `work`
 * changed it. A run that fails or is interrupted keeps its draft for the next one to resume, and readers
 * keep the last published index meanwhile — unless it made the draft and stopped before any step after `load` began:
 * `load` commits nothing until it ends and calls no model, so that draft holds nothing to resume, and a mistyped path
 * left one behind that the next, corrected run said it resumed. Readers are told of the failure in both cases.
 */
export async function writeWorkspace<R extends { changed: boolean }>(session: WorkspaceSession, control: WriteControl, work: WriteWork<R>): Promise<R> {
  const draft = await session.storage.beginWrite({
    command: control.command ?? 'index',
    ...(control.wait === undefined ? {} : { wait: control.wait }),
    ...(control.onWait === undefined ? {} : { onWait: control.onWait }),
    ...(control.deleting === undefined ? {} : { deleting: control.deleting }),
    // Waiting for another writer is not a step: a request to stop after the current step ends the wait too.
    ...lockSignal(control.signal, control.stopAfterStep),
  });
  let step: string | null = null;
  let pastLoad = false;
  if (draft.resumedFrom) control.onEvent?.(resumedDraftWarning(draft.resumedFrom));
  try {
    session.useWriteCache(session.config.llm.cache ? createStoreLlmCache(draft.store) : undefined);
    const result = await work(draft, await session.embedderFor(draft.store), (name) => {
      step = name;
      if (name !== 'load') pastLoad = true;
    });
    if (result.changed || draft.resumed) await draft.publish();
    else await draft.discard();
    await draft.end();
    return result;
  } catch (error) {
    const interrupted = control.signal?.aborted === true || (control.stopAfterStep?.aborted === true && KgragError.isInstance(error) && error.code === 'PIPELINE_STOPPED');
    if (control.cancelSignal?.aborted === true) {
      await draft.discard();
      await draft.end();
      throw error;
    }
    // Readers are told of the failure either way; a store that cannot discard now (a database gone) keeps the draft.
    if (!draft.resumed && !pastLoad) await draft.discard().catch(() => undefined);
    await draft.end({ status: interrupted ? 'interrupted' : 'failed', step, error: interrupted ? null : errorMessage(error) });
    throw error;
  } finally {
    session.useWriteCache(undefined);
  }
}
