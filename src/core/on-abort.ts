/**
 * Runs `callback` once when `signal` aborts; returns a function that cancels it. Every callback of one signal
 * shares a single `abort` listener: a run's signal reaches hundreds of calls waiting at once (for a concurrency
 * slot, rate budget or a backoff), and a listener each would pile up on it (Node warns past ten:
 * `MaxListenersExceededWarning`). The listener is removed when its last callback is cancelled.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let group = groups.get(signal);
  if (group === undefined) {
    const callbacks = new Set<() => void>();
    const listener = (): void => {
      groups.delete(signal);
      for (const each of callbacks) each();
    };
    group = { callbacks, listener };
    groups.set(signal, group);
    signal.addEventListener('abort', listener, { once: true });
  }
  const { callbacks, listener } = group;
  // A wrapper per registration, so that the same function registered twice is also cancelled one at a time.
  const entry = (): void => callback();
  callbacks.add(entry);
  return () => {
    if (!callbacks.delete(entry) || callbacks.size > 0) return;
    if (groups.get(signal)?.callbacks === callbacks) groups.delete(signal);
    signal.removeEventListener('abort', listener);
  };
}

interface AbortGroup {
  callbacks: Set<() => void>;
  listener: () => void;
}

/** Keyed by signal: an entry lives while its signal does, and goes with its last callback. */
const groups = new WeakMap<AbortSignal, AbortGroup>();
