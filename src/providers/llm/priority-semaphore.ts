import { onAbort } from '../../core/on-abort.js';
import { type CallPriority, createPriorityQueues } from './priority-queues.js';

export type { CallPriority } from './priority-queues.js';

/** Gives out at most `limit` slots; waiters are served by {@link CallPriority} class, then in arrival order. */
export interface PrioritySemaphore {
  /** Resolves with a release function (safe to call twice) once a slot is free; rejects on abort. */
  acquire(priority?: CallPriority, signal?: AbortSignal): Promise<() => void>;
  /** Slots currently held. */
  readonly inFlight: number;
  /** Callers waiting for a slot. */
  readonly waiting: number;
}

interface Waiter {
  grant: () => void;
}

/** Creates a {@link PrioritySemaphore} with `limit` slots. */
export function createPrioritySemaphore(limit: number): PrioritySemaphore {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
  let inFlight = 0;
  const queues = createPriorityQueues<Waiter>();

  const releaser = (): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queues.shift();
      if (next === undefined) inFlight -= 1;
      else next.grant();
    };
  };

  return {
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return queues.size;
    },
    acquire(priority = 'batch', signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (inFlight < limit && queues.size === 0) {
        inFlight += 1;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          grant: () => {
            cancel?.();
            resolve(releaser());
          },
        };
        queues.push(priority, waiter);
        // Hundreds of calls of one run wait here on its one signal: they share a listener (see onAbort).
        const cancel =
          signal === undefined
            ? undefined
            : onAbort(signal, () => {
                queues.remove(waiter);
                reject(signal.reason);
              });
      });
    },
  };
}
