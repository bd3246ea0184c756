import { onAbort } from '../../core/on-abort.js';

/** Waits `ms` milliseconds; an abort signal cancels the wait and rejects with the signal's reason. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The real-timer {@link Sleep} used when none is injected. */
export const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    // One shared listener per signal: a run's many backoffs sleep on the same signal at once.
    const cancel =
      signal === undefined
        ? undefined
        : onAbort(signal, () => {
            clearTimeout(timer);
            reject(signal.reason);
          });
    const timer = setTimeout(() => {
      cancel?.();
      resolve();
    }, Math.max(0, ms));
  });
