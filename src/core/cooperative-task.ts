/**
 * Long CPU work written as a generator that `yield`s between small slices of work (a block of text, a
 * sentence) and returns its result. The same code then runs either at once ({@link finishTask}) or in turns
 * that give the event loop a chance to run — a Ctrl-C handler, a progress bar, an abort — between slices
 * ({@link runTask}). A slice should take well under a millisecond to a few milliseconds.
 */
export type CooperativeTask<T> = Generator<void, T, undefined>;

/** Runs a task to its end without pausing. */
export function finishTask<T>(task: CooperativeTask<T>): T {
  for (;;) {
    const step = task.next();
    if (step.done === true) return step.value;
  }
}

/** Options of {@link runTask}. */
export interface RunTaskOptions {
  /** Stops the task at its next pause with `onAbort()`'s error. */
  signal?: AbortSignal | undefined;
  /** The error thrown when `signal` aborts. @default the signal's reason */
  onAbort?: () => Error;
  /** Longest stretch of work between two turns of the event loop, in milliseconds. @default 20 */
  turnMs?: number;
}

/** Gives the event loop a turn: timers, I/O and signals waiting behind synchronous work run before this resolves. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Runs a task, giving the event loop a turn (a `setImmediate`) whenever `turnMs` passed since the last one,
 * and stopping with an error at the first pause after `signal` aborts (checked at every pause, so an abort
 * from inside the task, a progress callback say, stops it at once).
 */
export async function runTask<T>(task: CooperativeTask<T>, options: RunTaskOptions = {}): Promise<T> {
  const turnMs = options.turnMs ?? 20;
  const checkAbort = (): void => {
    if (options.signal?.aborted !== true) return;
    task.return(undefined as never);
    throw options.onAbort?.() ?? options.signal.reason;
  };
  let turnStarted = performance.now();
  for (;;) {
    checkAbort();
    const step = task.next();
    if (step.done === true) return step.value;
    if (performance.now() - turnStarted >= turnMs) {
      await yieldToEventLoop();
      turnStarted = performance.now();
    }
  }
}
