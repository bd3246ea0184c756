// The process index and delete jobs of `kgrag serve` run in (started by child-process-job-runner.ts): for each job it
// opens the workspace, runs the job, and reports the pipeline's events and the outcome over IPC. The server's event loop
// thus never runs index work, and a job that exhausts its memory or hangs in a parser ends this process, not the server.
// The server may give it several jobs, one after another (a watched workspace keeps it for its next update); it ends
// when the server disconnects.
import { createKgrag } from '../api/create-kgrag.js';
import { KgragError } from '../core/errors.js';
import type { PipelineEvent } from '../pipeline/pipeline-step.js';
import { deserializeError, type JobChildMessage, type JobParentMessage, serializeError } from './job-process-protocol.js';
import { runJob } from './job-runner.js';

/** Step progress forwarded at most this often: the server stores and streams it, and needs no more. */
const progressIntervalMs = 100;

const send = (message: JobChildMessage): Promise<void> =>
  new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send?.(message, undefined, {}, () => resolve());
  });

/**
 * The index pipeline and the steps it imports are imported on demand by an index run, and wink-nlp's model loads at its
 * first instance, which together take a second or more (several on a busy machine): loaded while the process waits for
 * its first job, an update does not wait for them. A failure here is the job's to report, when its own import fails the
 * same way.
 */
void import('../api/index-pipeline.js')
  .then(() => import('../extract/nlp-graph/create-wink-nlp.js'))
  .then(({ loadWinkNlp }) => loadWinkNlp())
  .catch(() => undefined);

/** The job running now, with its two ways to stop; one at a time. */
let current: { abort: AbortController; cancel: AbortController } | undefined;

process.on('message', (message: JobParentMessage) => {
  if (message.type === 'stop') {
    if (current !== undefined) (message.how === 'cancel' ? current.cancel : current.abort).abort(deserializeError(message.reason));
    return;
  }
  if (current !== undefined) return;
  const job = { abort: new AbortController(), cancel: new AbortController() };
  current = job;
  void (async () => {
    let lastProgress = 0;
    const onEvent = (event: PipelineEvent): void => {
      if (event.type === 'step-progress') {
        const now = performance.now();
        if (now - lastProgress < progressIntervalMs && event.done < event.total) return;
        lastProgress = now;
      }
      void send({ type: 'event', event });
    };
    const { workspace, env, config, configFile, baseConfigFile } = message.workspace;
    let outcome: JobChildMessage;
    try {
      const kgrag = await createKgrag({
        workspace,
        env,
        ...(config === undefined ? {} : { config }),
        ...(configFile === undefined ? {} : { configFile }),
        ...(baseConfigFile === undefined ? {} : { baseConfigFile }),
      });
      try {
        outcome = { type: 'result', result: await runJob(kgrag, message.request, { command: message.command, onEvent, signal: job.abort.signal, cancelSignal: job.cancel.signal }) };
      } finally {
        await kgrag.close();
      }
    } catch (error) {
      outcome = { type: 'error', error: serializeError(error) };
    }
    current = undefined;
    // What the process holds once the job is done: the server retires a process that keeps too much for its next job.
    await send({ ...outcome, rssBytes: process.memoryUsage().rss });
  })();
});

// The server going away (killed, or its IPC channel closed) is a shutdown: keep the draft for the next start to resume.
// Between jobs nothing runs, and the process ends as its channel closes.
process.on('disconnect', () => {
  if (current !== undefined && !current.abort.signal.aborted && !current.cancel.signal.aborted) {
    current.abort.abort(new KgragError('the server stopped; the job resumes when it starts again', { code: 'SERVER_SHUTTING_DOWN', category: 'environment' }));
  }
});
