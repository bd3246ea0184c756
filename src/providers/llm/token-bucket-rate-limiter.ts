import { onAbort } from '../../core/on-abort.js';
import { abortableSleep } from './abortable-sleep.js';
import type { Sleep } from './abortable-sleep.js';
import { type CallPriority, createPriorityQueues } from './priority-queues.js';

/** What one call takes from the buckets. */
export interface RateLimitCost {
  /** @default 1 */
  requests?: number;
  /** Estimated prompt + completion tokens. @default 0 */
  tokens?: number;
}

/** Options of one {@link TokenBucketRateLimiter.acquire}. */
export interface RateLimitAcquireOptions {
  /** @default 'batch' */
  priority?: CallPriority;
  /** Aborting removes the caller from the queue and rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Requests-per-minute and tokens-per-minute budget shared by every call that goes through it. */
export interface TokenBucketRateLimiter {
  /** Resolves when the cost fits the budget; waiters are served interactive-first, then FIFO. */
  acquire(cost: RateLimitCost, options?: RateLimitAcquireOptions): Promise<void>;
  /** Corrects the token bucket once the real usage is known: charges the excess or refunds the rest. */
  reconcile(estimatedTokens: number, actualTokens: number): void;
}

/** Options of {@link createTokenBucketRateLimiter}; a limit of 0 or `undefined` means unlimited. */
export interface TokenBucketRateLimiterOptions {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  /** Monotonic clock in ms. @default performance.now */
  now?: () => number;
  /** @default real timers */
  sleep?: Sleep;
}

interface Bucket {
  capacity: number;
  level: number;
  perMs: number;
}

interface Waiter {
  requests: number;
  tokens: number;
  resolve: () => void;
}

const MINUTE_MS = 60_000;
/** Absorbs floating-point error of refill arithmetic so that an exact wait always suffices. */
const EPSILON = 1e-9;

/**
 * Two token buckets (requests/minute and tokens/minute), each holding up to one minute's budget
 * and refilling continuously. A caller that does not fit waits on **one** timer set to exactly the
 * time its deficit takes to refill, never a polling loop (GraphRAG's limiter spins with
 * `time.sleep` on the event loop). A cost above a bucket's capacity is clamped to it, so oversized
 * calls wait for a full bucket instead of forever.
 */
export function createTokenBucketRateLimiter(options: TokenBucketRateLimiterOptions): TokenBucketRateLimiter {
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? abortableSleep;
  const bucket = (perMinute: number | undefined): Bucket | undefined =>
    perMinute === undefined || perMinute <= 0 ? undefined : { capacity: perMinute, level: perMinute, perMs: perMinute / MINUTE_MS };
  const requestBucket = bucket(options.requestsPerMinute);
  const tokenBucket = bucket(options.tokensPerMinute);
  const queues = createPriorityQueues<Waiter>();
  let lastRefill = now();
  let timer: AbortController | undefined;
  let timerDeadline = 0;

  const refill = (): void => {
    const time = now();
    const elapsed = Math.max(0, time - lastRefill);
    lastRefill = time;
    for (const current of [requestBucket, tokenBucket]) {
      if (current !== undefined) current.level = Math.min(current.capacity, current.level + elapsed * current.perMs);
    }
  };

  const waitFor = (waiter: Waiter): number => {
    let wait = 0;
    for (const [current, cost] of [
      [requestBucket, waiter.requests],
      [tokenBucket, waiter.tokens],
    ] as const) {
      if (current === undefined) continue;
      const deficit = Math.min(cost, current.capacity) - current.level;
      if (deficit > EPSILON) wait = Math.max(wait, Math.ceil(deficit / current.perMs));
    }
    return wait;
  };

  const head = (): Waiter | undefined => queues.head();

  const pump = (): void => {
    if (timer !== undefined) return;
    for (let waiter = head(); waiter !== undefined; waiter = head()) {
      refill();
      const wait = waitFor(waiter);
      if (wait > 0) {
        const controller = new AbortController();
        timer = controller;
        timerDeadline = lastRefill + wait;
        sleep(wait, controller.signal).then(
          () => {
            if (timer !== controller) return;
            timer = undefined;
            pump();
          },
          () => undefined,
        );
        return;
      }
      if (requestBucket !== undefined) requestBucket.level -= Math.min(waiter.requests, requestBucket.capacity);
      if (tokenBucket !== undefined) tokenBucket.level -= Math.min(waiter.tokens, tokenBucket.capacity);
      queues.shift();
      waiter.resolve();
    }
  };

  /**
   * The head changed or the budget grew. The pending timer is replaced only when the new head can
   * go earlier; otherwise it fires as planned and the pump sleeps again for any remaining deficit.
   */
  const reschedule = (): void => {
    const waiter = head();
    if (timer !== undefined && waiter !== undefined) {
      refill();
      if (lastRefill + waitFor(waiter) >= timerDeadline) return;
    }
    timer?.abort();
    timer = undefined;
    pump();
  };

  return {
    acquire(cost, acquireOptions = {}) {
      const { signal } = acquireOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (requestBucket === undefined && tokenBucket === undefined) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          requests: cost.requests ?? 1,
          tokens: cost.tokens ?? 0,
          resolve: () => {
            cancel?.();
            resolve();
          },
        };
        const previousHead = head();
        queues.push(acquireOptions.priority ?? 'batch', waiter);
        // Every waiting call of a run shares one listener on its signal (see onAbort).
        const cancel =
          signal === undefined
            ? undefined
            : onAbort(signal, () => {
                const wasHead = head() === waiter;
                queues.remove(waiter);
                reject(signal.reason);
                if (wasHead) reschedule();
              });
        if (previousHead !== head()) reschedule();
        else pump();
      });
    },
    reconcile(estimatedTokens, actualTokens) {
      if (tokenBucket === undefined || estimatedTokens === actualTokens) return;
      refill();
      tokenBucket.level = Math.min(tokenBucket.capacity, tokenBucket.level - (actualTokens - estimatedTokens));
      if (actualTokens < estimatedTokens && head() !== undefined) reschedule();
    },
  };
}
