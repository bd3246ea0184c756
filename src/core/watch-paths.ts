import { type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { KgragError } from './errors.js';

/** Options of {@link watchPaths}. */
export interface WatchPathsOptions {
  /** Quiet time after the last event before a batch is handed out: a burst of events becomes one batch. */
  debounceMs: number;
  /** Events on paths this returns true for are not changes (the workspace's own index files inside a watched folder). */
  ignore?: (path: string) => boolean;
  /** Ends the watch: the iteration finishes (a batch waiting for its quiet time is dropped). */
  signal?: AbortSignal;
  /** Called once every path is watched: a change made after it is seen (one made before may not be). */
  onWatching?: () => void;
}

/** The changes of one quiet period. */
export interface WatchBatch {
  /** File-system events counted into the batch (several per saved file: editors write, rename and touch). */
  events: number;
  /** The distinct absolute paths the events named, sorted. */
  paths: string[];
}

/**
 * Follows files and folders (folders recursively, with Node's recursive `fs.watch`) and yields one batch per quiet
 * period: every event restarts the `debounceMs` timer, so a burst of any size is one batch. Events that arrive while
 * the caller works on a batch are kept for the next one, which is handed out once the caller asks and the timer has
 * run out. A watched file is followed through its folder, since editors and `mv` replace a file rather than write it.
 */
export async function* watchPaths(paths: readonly string[], options: WatchPathsOptions): AsyncGenerator<WatchBatch> {
  const watchers: FSWatcher[] = [];
  let pending = new Set<string>();
  let events = 0;
  let timer: NodeJS.Timeout | undefined;
  let quiet = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resolveWait = wake;
    wake = undefined;
    resolveWait?.();
  };
  const record = (path: string): void => {
    if (options.ignore?.(path)) return;
    events++;
    pending.add(path);
    quiet = false;
    clearTimeout(timer);
    timer = setTimeout(() => {
      quiet = true;
      notify();
    }, options.debounceMs);
  };
  const onAbort = (): void => notify();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (const given of paths) {
      const path = resolve(given);
      let folder: boolean;
      try {
        folder = statSync(path).isDirectory();
      } catch {
        throw new KgragError(`cannot watch ${path}: it does not exist`, { code: 'WATCH_PATH_MISSING', category: 'input', hint: 'watch an existing file or folder' });
      }
      const root = folder ? path : dirname(path);
      const only = folder ? undefined : basename(path);
      const watcher = watch(root, { recursive: folder }, (_event, name) => {
        // Linux reports some events without a name (an overflowed queue): the whole root then counts as changed.
        const relative = name === null ? undefined : name.toString();
        if (only !== undefined && relative !== only) return;
        record(relative === undefined ? root : join(root, relative));
      });
      watcher.on('error', (error) => {
        failure = error;
        notify();
      });
      watchers.push(watcher);
    }
    options.onWatching?.();
    while (!options.signal?.aborted) {
      if (failure !== undefined) throw failure;
      if (quiet && pending.size > 0) {
        const batch: WatchBatch = { events, paths: [...pending].sort() };
        pending = new Set();
        events = 0;
        quiet = false;
        yield batch;
        continue;
      }
      await new Promise<void>((resolveWait) => (wake = resolveWait));
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    for (const watcher of watchers) watcher.close();
  }
}
