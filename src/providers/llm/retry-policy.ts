import { abortableSleep } from './abortable-sleep.js';
import type { Sleep } from './abortable-sleep.js';
import { LlmCallError } from './llm-call-error.js';
import { isAbortError } from './is-abort-error.js';

/** One scheduled retry, reported to `onRetry` before the wait starts. */
export interface RetryEvent {
  /** The attempt that just failed, from 1. */
  attempt: number;
  /** Attempts this call gets at most (the first one and its retries). */
  maxAttempts: number;
  /** How long the wrapper waits before the next attempt. */
  delayMs: number;
  error: LlmCallError;
  /** Chat completions (`llm`) or embeddings. */
  service: 'llm' | 'embeddings';
  /** What the call was for (`extract-graph`, `answer`, …), when the caller said. */
  purpose?: string;
}

/** Retry settings shared by the LLM retry wrapper and the embedder. */
export interface RetryOptions {
  /** Retries after the first attempt (so at most `maxRetries + 1` calls). @default 6 */
  maxRetries?: number;
  /** Ceiling of the first backoff; doubles every retry. @default 1000 */
  baseDelayMs?: number;
  /** Largest backoff ceiling. A server's `retry-after` may ask for longer and is honoured. @default 60000 */
  maxDelayMs?: number;
  /** Uniform random numbers in [0, 1) for the jitter. @default Math.random */
  rng?: () => number;
  /** @default real timers */
  sleep?: Sleep;
  /** Called before every wait, for progress displays and logs. */
  onRetry?: (event: RetryEvent) => void;
  /** Config section named in hints. @default 'llm' */
  configSection?: 'llm' | 'embeddings';
}

/** Decides, after each failed attempt, whether and how long to wait before the next one. */
export interface RetryPolicy {
  /**
   * Waits before the next attempt, or throws: the error itself when it is not retryable (or an
   * abort), an `LLM_RETRIES_EXHAUSTED` error when the retries are used up, or the abort reason
   * when `signal` fires during the wait.
   */
  afterFailure(error: unknown, attempt: number, signal?: AbortSignal, purpose?: string): Promise<void>;
}

/**
 * Exponential backoff with full jitter (AWS "Exponential Backoff and Jitter"): the wait before
 * retry n is uniform in [0, min(maxDelay, base · 2^(n-1))], and never shorter than the server's
 * `retry-after`. Only errors marked `retryable` are retried.
 */
export function createRetryPolicy(options: RetryOptions = {}): RetryPolicy {
  const maxRetries = options.maxRetries ?? 6;
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const rng = options.rng ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;
  const section = options.configSection ?? 'llm';

  return {
    async afterFailure(error, attempt, signal, purpose) {
      if (signal?.aborted) throw signal.reason;
      if (isAbortError(error) || !LlmCallError.isInstance(error) || !error.retryable) throw error;
      // A failure that says what is wrong on its own (nothing listens at the URL) is not wrapped in "gave up after".
      if (error.retryLimit !== undefined && attempt > Math.min(maxRetries, error.retryLimit)) throw error;
      if (attempt > maxRetries) throw retriesExhausted(error, attempt, section);
      const delayMs = backoffDelayMs(attempt, { baseDelayMs, maxDelayMs, rng }, error.retryAfterMs);
      const maxAttempts = Math.min(maxRetries, error.retryLimit ?? maxRetries) + 1;
      options.onRetry?.({ attempt, maxAttempts, delayMs, error, service: section, ...(purpose === undefined ? {} : { purpose }) });
      await sleep(delayMs, signal);
    },
  };
}

/**
 * The wait before retry `attempt` (from 1): uniform in [0, min(maxDelay, base · 2^(attempt−1))] (full
 * jitter, so clients that failed together do not retry together), and never shorter than `retryAfterMs`.
 */
export function backoffDelayMs(attempt: number, settings: { baseDelayMs: number; maxDelayMs: number; rng: () => number }, retryAfterMs?: number): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(Math.max(settings.rng() * ceiling, retryAfterMs ?? 0));
}

/** Runs `operation` until it succeeds or the policy gives up; `attempt` counts from 1. */
export async function retryWithBackoff<T>(
  operation: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
  purpose?: string,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      await policy.afterFailure(error, attempt, signal, purpose);
    }
  }
}

function retriesExhausted(last: LlmCallError, attempts: number, section: 'llm' | 'embeddings'): LlmCallError {
  const status = last.status === undefined ? last.code : `HTTP ${last.status}`;
  return new LlmCallError(`Gave up after ${attempts} attempt${attempts === 1 ? '' : 's'} (last: ${status}): ${last.message}`, {
    code: 'LLM_RETRIES_EXHAUSTED',
    retryable: false,
    ...(last.status === undefined ? {} : { status: last.status }),
    hint: exhaustedHint(last, section),
    details: { attempts, lastCode: last.code },
    cause: last,
  });
}

function exhaustedHint(last: LlmCallError, section: 'llm' | 'embeddings'): string {
  switch (last.code) {
    case 'LLM_RATE_LIMITED':
      return section === 'llm'
        ? 'The server kept rate-limiting: lower llm.concurrency or set llm.requestsPerMinute / llm.tokensPerMinute to its limits'
        : 'The server kept rate-limiting: lower embeddings.concurrency or embeddings.batchSize';
    case 'LLM_SERVER_ERROR':
      return 'The server kept failing with 5xx errors; this is a server-side problem: check its logs or status page and try again later';
    case 'LLM_TIMEOUT':
      return `Calls kept timing out: raise ${section === 'llm' ? 'llm.timeoutMs' : 'the timeout'} or lower ${section}.concurrency`;
    default:
      return last.hint ?? `Raise ${section}.maxRetries if the server is only briefly unavailable`;
  }
}
