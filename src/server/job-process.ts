// The process one index or delete job of `kgrag serve` runs in (started by child-process-job-runner.ts): it opens the
// workspace, runs the job, and reports the pipeline's events and the outcome over IPC. The server's event loop thus
// never runs index work, and a job that exhausts its memory or hangs in a parser ends this process, not the server.
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

const abort = new AbortController();
const cancel = new AbortController();
let started = false;

process.on('message', (message: JobParentMessage) => {
  if (message.type === 'stop') {
    (message.how === 'cancel' ? cancel : abort).abort(deserializeError(message.reason));
    return;
  }
  if (started) return;
  started = true;
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
    const { workspace, env, config, configFile } = message.workspace;
    let outcome: JobChildMessage;
    try {
      const kgrag = await createKgrag({ workspace, env, ...(config === undefined ? {} : { config }), ...(configFile === undefined ? {} : { configFile }) });
      try {
        outcome = { type: 'result', result: await runJob(kgrag, message.request, { command: message.command, onEvent, signal: abort.signal, cancelSignal: cancel.signal }) };
      } finally {
        await kgrag.close();
      }
    } catch (error) {
      outcome = { type: 'error', error: serializeError(error) };
    }
    await send(outcome);
    process.disconnect();
  })();
});

// The server going away (killed, or its IPC channel closed) is a shutdown: keep the draft for the next start to resume.
process.on('disconnect', () => {
  if (!abort.signal.aborted && !cancel.signal.aborted) {
    abort.abort(new KgragError('the server stopped; the job resumes when it starts again', { code: 'SERVER_SHUTTING_DOWN', category: 'environment' }));
  }
});
