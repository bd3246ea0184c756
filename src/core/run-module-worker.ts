import type { Worker } from 'node:worker_threads';
import { KgragError } from './errors.js';
import { startModuleWorker } from './start-module-worker.js';

/**
 * Runs the one-shot worker module `name` beside `callerUrl` with `workerData` and resolves with the first message it
 * posts. A worker that cannot start, throws, or exits without posting rejects with a `MATH_WORKER_FAILED` error that
 * names `what` (for example "a kNN-graph worker thread"); `hint` says how to do the work without one.
 */
export function runModuleWorker<T>(callerUrl: string, name: string, workerData: unknown, what: string, hint: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = startModuleWorker(callerUrl, name, workerData);
    } catch (error) {
      reject(new KgragError(`Could not start ${what}`, { code: 'MATH_WORKER_FAILED', category: 'internal', hint, cause: error }));
      return;
    }
    let settled = false;
    worker.once('message', (message: T) => {
      settled = true;
      resolve(message);
    });
    worker.once('error', (error) => {
      settled = true;
      reject(new KgragError(`${capitalized(what)} failed`, { code: 'MATH_WORKER_FAILED', category: 'internal', hint, cause: error }));
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new KgragError(`${capitalized(what)} exited with code ${code} before finishing`, { code: 'MATH_WORKER_FAILED', category: 'internal' }));
    });
  });
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
