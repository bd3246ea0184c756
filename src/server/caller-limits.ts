/** A refusal with the seconds after which the caller may try again. */
export interface Refusal {
  retryAfterSeconds: number;
}

/** Per-caller request rate and concurrent-query limits (the 429 responses of the server). */
export interface CallerLimits {
  /** Counts one request of `caller`; a refusal when it is over `requestsPerMinute`. */
  admit(caller: string): Refusal | undefined;
  /** Starts a query for `caller`: a release function, or a refusal when `maxConcurrent` are running. */
  startQuery(caller: string): (() => void) | Refusal;
}

/** Options of {@link createCallerLimits}. */
export interface CallerLimitOptions {
  requestsPerMinute: number;
  maxConcurrentQueries: number;
  /** Milliseconds since an epoch. @default Date.now */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * A token bucket per caller (capacity and refill of `requestsPerMinute`, so a burst of a minute's allowance is
 * admitted, then the steady rate), and a counter of running queries per caller. Idle buckets are dropped so that
 * many one-off callers cannot grow the map without bound.
 */
export function createCallerLimits(options: CallerLimitOptions): CallerLimits {
  const now = options.now ?? Date.now;
  const capacity = options.requestsPerMinute;
  const perMs = capacity / 60_000;
  const buckets = new Map<string, Bucket>();
  const running = new Map<string, number>();
  let lastSweep = now();

  const sweep = (time: number): void => {
    if (time - lastSweep < 60_000) return;
    lastSweep = time;
    for (const [caller, bucket] of buckets) {
      if (bucket.tokens + (time - bucket.updatedAt) * perMs >= capacity) buckets.delete(caller);
    }
  };

  return {
    admit(caller) {
      const time = now();
      sweep(time);
      const bucket = buckets.get(caller) ?? { tokens: capacity, updatedAt: time };
      bucket.tokens = Math.min(capacity, bucket.tokens + (time - bucket.updatedAt) * perMs);
      bucket.updatedAt = time;
      buckets.set(caller, bucket);
      if (bucket.tokens < 1) return { retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
      bucket.tokens -= 1;
      return undefined;
    },
    startQuery(caller) {
      const count = running.get(caller) ?? 0;
      if (count >= options.maxConcurrentQueries) return { retryAfterSeconds: 1 };
      running.set(caller, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (running.get(caller) ?? 1) - 1;
        if (left <= 0) running.delete(caller);
        else running.set(caller, left);
      };
    },
  };
}
