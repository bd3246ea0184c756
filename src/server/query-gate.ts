import type { CallerLimits } from './caller-limits.js';
import { httpError } from './http-problem.js';

/** One admitted query: runs its work once, within the deadline, and frees the caller's slot when it ends. */
export interface QuerySlot {
  /**
   * Runs `work` with a signal that aborts at the deadline (the work then fails with 504) or when the client goes
   * away.
   */
  run<T>(client: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/** Admits queries within the caller's concurrency limit, with the server's deadline per query. */
export interface QueryGate {
  /** A slot for one query of `caller`, or a 429 error when the caller already runs its maximum of queries. */
  admit(caller: string): QuerySlot;
  /** Queries running now. */
  active(): number;
  /** Resolves when no query runs, or after `timeoutMs`, whichever is first (graceful shutdown). */
  drain(timeoutMs: number): Promise<void>;
}

/** A gate over `limits` with a deadline of `timeoutMs` per query. */
export function createQueryGate(limits: CallerLimits, timeoutMs: number): QueryGate {
  let running = 0;
  let drained: Array<() => void> = [];
  return {
    active: () => running,
    drain(waitMs) {
      if (running === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        drained.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    admit(caller) {
      const release = limits.startQuery(caller);
      if (typeof release !== 'function') {
        throw httpError(429, 'SERVER_TOO_MANY_QUERIES', 'too many queries at once for this caller', `wait for one to finish, or retry after ${release.retryAfterSeconds} s`, release.retryAfterSeconds);
      }
      return {
        async run(client, work) {
          const deadline = new AbortController();
          const timer = setTimeout(() => deadline.abort(httpError(504, 'SERVER_QUERY_TIMEOUT', `the query took longer than the server allows (${timeoutMs} ms)`, 'ask with a smaller topK or a cheaper method, or raise server.queryTimeoutMs')), timeoutMs);
          const signal = client === undefined ? deadline.signal : AbortSignal.any([deadline.signal, client]);
          running += 1;
          try {
            return await work(signal);
          } catch (error) {
            if (deadline.signal.aborted) throw deadline.signal.reason;
            throw error;
          } finally {
            clearTimeout(timer);
            release();
            running -= 1;
            if (running === 0) {
              const waiters = drained;
              drained = [];
              for (const resolve of waiters) resolve();
            }
          }
        },
      };
    },
  };
}
