/** A time limit for one request, combined with the caller's own signal. */
export interface Deadline {
  /** Aborts when the caller aborts or the time runs out: pass it to the request. */
  readonly signal: AbortSignal;
  /** Aborted only when the time ran out, to tell a timeout from the caller's abort. */
  readonly expired: AbortSignal;
  /** Stops the timer; call it when the request settles. */
  clear(): void;
}

/**
 * Starts a `timeoutMs` deadline. Its timer is referenced, unlike `AbortSignal.timeout`'s, so it keeps the
 * process alive while a request hangs; the reason is a `TimeoutError` DOMException, as fetch reports it.
 */
export function startDeadline(timeoutMs: number, callerSignal?: AbortSignal): Deadline {
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  return {
    signal: callerSignal === undefined ? timer.signal : AbortSignal.any([callerSignal, timer.signal]),
    expired: timer.signal,
    clear: () => clearTimeout(handle),
  };
}
