import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { KgragConfigInput } from '../../core/config/config-schema.js';
import { runsCompiled } from '../../core/start-module-worker.js';

/** Local worker processes of one index run. */
export interface LocalIndexWorkers {
  /** Stops every worker (SIGTERM, then SIGKILL after a grace period) and waits for them to exit. */
  stop(): Promise<void>;
}

/** Options of {@link startLocalIndexWorkers}. */
export interface LocalIndexWorkersOptions {
  count: number;
  workspace: string;
  /** The coordinator's configuration overrides and environment: the workers must resolve the same configuration. */
  config?: KgragConfigInput;
  configFile?: string;
  env?: Record<string, string | undefined>;
}

const stopGraceMs = 5000;

/**
 * Starts `count` worker processes on this machine (`workers.local`), each a Node process running `worker-process`
 * with the coordinator's configuration, and resolves once each has opened the workspace.
 */
export async function startLocalIndexWorkers(options: LocalIndexWorkersOptions): Promise<LocalIndexWorkers> {
  const entry = new URL(`./worker-process.${runsCompiled(import.meta.url) ? 'js' : 'ts'}`, import.meta.url);
  const spec = JSON.stringify({ workspace: options.workspace, config: options.config, configFile: options.configFile, env: options.env });
  const children: ChildProcess[] = [];
  const outputs = new Map<ChildProcess, () => string>();
  const stopAll = async (): Promise<void> => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
        await exited;
        clearTimeout(timer);
      }),
    );
  };
  try {
    for (let index = 0; index < options.count; index++) {
      // The parent's execArgv (tsx's loader under tsx) carries over, so a TypeScript entry runs as the parent does.
      const child = fork(entry, [], { env: { ...process.env, KGRAG_WORKER_SPEC: spec }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      children.push(child);
      // What a worker says on stderr is kept for the one case it matters: a worker that dies before it is ready.
      let stderr = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (data: string) => (stderr = (stderr + data).slice(-2000)));
      outputs.set(child, () => stderr);
    }
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve, reject) => {
            child.once('message', () => resolve());
            child.once('exit', (code) => reject(new Error(`an index worker exited before it was ready (exit code ${code}): ${outputs.get(child)?.() ?? ''}`)));
          }),
      ),
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { stop: stopAll };
}
