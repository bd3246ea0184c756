import { type ChildProcess, fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { KgragError } from '../core/errors.js';
import { runsCompiled } from '../core/start-module-worker.js';
import { deserializeError, type JobChildMessage, type JobParentMessage, type JobWorkspaceOptions, serializeError } from './job-process-protocol.js';
import type { JobRunner } from './job-runner.js';

/** Options of {@link childProcessJobRunner}. */
export interface JobProcessOptions {
  /** How the job's process opens the workspace (the server's own settings). */
  workspace: JobWorkspaceOptions;
  /**
   * How long a job's process may take to stop after a cancel or a shutdown before it is killed. A killed job keeps its
   * draft like a crashed one (a shutdown resumes it on the next start; a cancel drops it through `discardDraft`).
   */
  stopTimeoutMs: number;
  /** Node options of the job's process, e.g. `--max-old-space-size=4096`. */
  execArgv?: readonly string[];
  /** Drops the draft a killed cancelled job left, so that the next job does not publish its documents. */
  discardDraft: () => Promise<void>;
  /**
   * Keep one process ready for the next job (`kgrag serve --watch`, whose updates should be served seconds after a
   * write): started ahead, or kept from the job before, since starting a process and loading kgrag's index pipeline takes
   * a second or more, several on a busy machine, and a process that ran a job has them loaded. It costs one idle
   * process; it does not keep the server's process alive, and ends with it.
   */
  keepSpare?: boolean;
  /**
   * A process that holds more memory than this after its job (its resident set) is not kept for the next one: the heap
   * a large job grew would otherwise stay taken while the server waits. @default {@link keptProcessMaxRssBytes}
   */
  keptProcessMaxRssBytes?: number;
}

/**
 * What a process may hold after a job and still be kept for the next (512 MiB): one that has run an update of a
 * small or middle-sized corpus holds about 300 MB (kgrag's modules and the NLP model under tsx, the heap's slack).
 */
export const keptProcessMaxRssBytes = 512 * 1024 * 1024;

/**
 * The scheduling priority (nice value) of a job's process: below the server's, so that on a busy machine the queries
 * get the CPU first and the job the rest (Linux gives a nice-10 process about a tenth of a contended CPU); on an idle
 * machine the job runs at full speed.
 */
const jobNiceness = 10;

/** Lines of a job process's standard error kept to explain how it ended. */
const stderrTailBytes = 8192;

/**
 * Runs each job in a Node process of its own (`job-process.ts`), which opens the workspace with the server's settings:
 * the server's event loop only relays the job's events, so queries and `/health` are answered at once while a job
 * parses, embeds and clusters; the job runs at a lower scheduling priority, so queries get a busy CPU first; a job
 * that runs out of memory ends its own process with an error on the job, not the server; and a cancel or a shutdown
 * stops it within `stopTimeoutMs`, by killing it if it does not stop by itself.
 */
export function childProcessJobRunner(options: JobProcessOptions): JobRunner {
  const module = new URL(`./job-process.${runsCompiled(import.meta.url) ? 'js' : 'ts'}`, import.meta.url);
  const loader = runsCompiled(import.meta.url) ? [] : ['--import', import.meta.resolve('tsx')];
  const startProcess = (): ChildProcess => {
    const child = fork(module, [], {
      execArgv: [...loader, ...(options.execArgv ?? [])],
      env: options.workspace.env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    try {
      if (child.pid !== undefined) setPriority(child.pid, jobNiceness);
    } catch {
      // A platform or sandbox that refuses it: the job then runs at the server's priority.
    }
    // A spare that fails or ends while it waits is simply not used (a job's own listeners report a failure during it).
    child.on('error', () => undefined);
    child.once('exit', () => {
      if (spare === child) spare = undefined;
    });
    return child;
  };
  let spare: ChildProcess | undefined;
  let closed = false;
  /** Holds an idle process for the next job: idle, it keeps neither the server's event loop nor its exit. */
  const park = (child: ChildProcess): void => {
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    (child.stderr as { unref?: () => void } | null)?.unref?.();
    spare = child;
  };
  const startSpare = (): void => {
    try {
      park(startProcess());
    } catch {
      spare = undefined;
    }
  };
  /** The spare process when it is alive (taken, and held again like any job's), else a new one. */
  const processForJob = (): ChildProcess => {
    const taken = spare;
    spare = undefined;
    if (taken !== undefined && taken.connected && taken.exitCode === null && taken.signalCode === null) {
      taken.ref();
      (taken.channel as { ref?: () => void } | undefined)?.ref?.();
      (taken.stderr as { ref?: () => void } | null)?.ref?.();
      return taken;
    }
    taken?.kill('SIGKILL');
    return startProcess();
  };
  const maxKeptRss = options.keptProcessMaxRssBytes ?? keptProcessMaxRssBytes;
  if (options.keepSpare === true) startSpare();
  return {
    close() {
      closed = true;
      spare?.kill('SIGKILL');
      spare = undefined;
    },
    run(request, runOptions) {
      return new Promise((resolve, reject) => {
        let child: ChildProcess;
        try {
          child = processForJob();
        } catch (error) {
          reject(new KgragError('could not start the process of an index job', { code: 'JOB_PROCESS_FAILED', category: 'environment', hint: 'check that the machine can start processes (memory, process limits)', cause: error }));
          return;
        }
        let stderr = '';
        const onStderr = (text: string): void => {
          stderr = (stderr + text).slice(-stderrTailBytes);
        };
        child.stderr?.setEncoding('utf8').on('data', onStderr);
        let outcome: JobChildMessage | undefined;
        let stopTimer: NodeJS.Timeout | undefined;
        let stopped: 'cancel' | 'shutdown' | undefined;
        const stop = (how: 'cancel' | 'shutdown', signal: AbortSignal): void => {
          if (stopped !== undefined) return;
          stopped = how;
          const message: JobParentMessage = { type: 'stop', how, reason: serializeError(signal.reason) };
          if (child.connected) child.send(message);
          stopTimer = setTimeout(() => child.kill('SIGKILL'), options.stopTimeoutMs);
        };
        const onShutdown = (): void => stop('shutdown', runOptions.signal);
        const onCancel = (): void => stop('cancel', runOptions.cancelSignal);
        runOptions.signal.addEventListener('abort', onShutdown, { once: true });
        runOptions.cancelSignal.addEventListener('abort', onCancel, { once: true });
        /** Lets go of the process: this job listens to it no more. */
        const release = (): void => {
          clearTimeout(stopTimer);
          runOptions.signal.removeEventListener('abort', onShutdown);
          runOptions.cancelSignal.removeEventListener('abort', onCancel);
          child.stderr?.off('data', onStderr);
          child.off('message', onMessage);
          child.off('error', onError);
          child.off('exit', onExit);
        };
        /**
         * Whether the process is kept for the next job: only after a job that ended well, neither stopped nor failed
         * (a failure may leave the process in any state), and only while it holds no more memory than allowed.
         */
        const keepsProcess = (ended: JobChildMessage): boolean =>
          options.keepSpare === true &&
          !closed &&
          spare === undefined &&
          ended.type === 'result' &&
          stopped === undefined &&
          !runOptions.signal.aborted &&
          !runOptions.cancelSignal.aborted &&
          child.connected &&
          (ended.rssBytes ?? Number.POSITIVE_INFINITY) <= maxKeptRss;
        const onMessage = (message: JobChildMessage): void => {
          if (message.type === 'event') {
            runOptions.onEvent(message.event);
            return;
          }
          outcome = message;
          if (message.type === 'result' && keepsProcess(message)) {
            release();
            park(child);
            resolve(message.result);
            return;
          }
          // Not kept: the process ends as its channel closes, and the job settles with its exit.
          if (child.connected) child.disconnect();
        };
        const onError = (error: Error): void => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          outcome ??= { type: 'error', error: serializeError(error) };
        };
        const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
          release();
          // The next job's process loads while nothing runs.
          if (options.keepSpare === true && spare === undefined && !closed && !runOptions.signal.aborted) startSpare();
          if (outcome?.type === 'result') return resolve(outcome.result);
          if (outcome?.type === 'error') return reject(deserializeError(outcome.error));
          const ended = exitError(code, signal, stderr, stopped);
          // A cancel must drop the work, which a killed process could not do itself.
          if (stopped === 'cancel') {
            options.discardDraft().then(
              () => reject(runOptions.cancelSignal.reason),
              (error: unknown) => reject(new KgragError(`${ended.message}, and its draft could not be dropped`, { code: 'JOB_PROCESS_FAILED', category: 'environment', cause: error })),
            );
            return;
          }
          reject(stopped === 'shutdown' ? runOptions.signal.reason : ended);
        };
        child.on('message', onMessage);
        child.once('error', onError);
        child.once('exit', onExit);
        const start: JobParentMessage = { type: 'run', workspace: options.workspace, request, command: runOptions.command };
        child.send(start);
        if (runOptions.cancelSignal.aborted) onCancel();
        else if (runOptions.signal.aborted) onShutdown();
      });
    },
  };
}

/** Why a job's process ended without reporting an outcome, from its exit and the end of its standard error. */
function exitError(code: number | null, signal: NodeJS.Signals | null, stderr: string, stopped: 'cancel' | 'shutdown' | undefined): KgragError {
  if (/heap out of memory|Allocation failed|Reached heap limit/i.test(stderr)) {
    return new KgragError('the index job ran out of memory: its process reached the heap limit and stopped (the index keeps its last published version)', {
      code: 'JOB_OUT_OF_MEMORY',
      category: 'environment',
      hint: 'index fewer or smaller files in one job, or give jobs more memory (server.jobMemoryMb, KGRAG_SERVER_JOB_MEMORY_MB)',
    });
  }
  const how = signal === null ? `exited with code ${code}` : `was stopped by ${signal}`;
  const last = stderr.trim().split('\n').at(-1)?.slice(0, 300);
  return new KgragError(`the index job's process ${how} before it finished${stopped === undefined ? '' : ` (it did not stop within the time allowed after a ${stopped})`}${last ? `: ${last}` : ''}`, {
    code: 'JOB_PROCESS_FAILED',
    category: 'environment',
    hint: 'run the job again; the next run resumes what this one had finished',
  });
}
