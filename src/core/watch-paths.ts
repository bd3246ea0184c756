import { type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
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
 * A watched folder (or a watched file's folder) that is deleted is a change of that folder, and is then awaited from
 * its nearest existing parent: made again (a checkout of a branch that has it, a build that recreates it), it is a
 * change again and is watched as before — a watch of the deleted folder itself would never hear of it again.
 */
export async function* watchPaths(paths: readonly string[], options: WatchPathsOptions): AsyncGenerator<WatchBatch> {
  const watchers = new Set<FSWatcher>();
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
  const open = (folder: string, recursive: boolean, onEvent: (name: string | undefined, renamed: boolean) => void): FSWatcher => {
    // Linux reports some events without a name (an overflowed queue, the watched folder itself deleted).
    const watcher = watch(folder, { recursive }, (event, name) => onEvent(name === null || name.length === 0 ? undefined : name.toString(), event === 'rename'));
    watcher.on('error', (error) => {
      failure = error;
      notify();
    });
    watchers.add(watcher);
    return watcher;
  };
  const close = (watcher: FSWatcher): void => {
    watcher.close();
    watchers.delete(watcher);
  };
  /** Watches `root` (a watched folder, or the folder of the watched file `only`) while it exists. */
  const follow = (root: string, only: string | undefined, recursive: boolean): void => {
    const changed = only === undefined ? root : join(root, only);
    const watcher = open(root, recursive, (name, renamed) => {
      // Only a rename (a file or folder made, deleted or moved) can be the root's own deletion: an edit is not looked into.
      if (renamed && !isFolder(root)) {
        close(watcher);
        record(changed);
        awaitReturn(root, only, recursive);
        return;
      }
      if (only !== undefined && name !== only) return;
      record(name === undefined ? root : join(root, name));
    });
  };
  /** Watches the nearest existing parent of the deleted `root` for the next folder on the way to it, until it is back. */
  const awaitReturn = (root: string, only: string | undefined, recursive: boolean): void => {
    let parent = dirname(root);
    while (!isFolder(parent) && dirname(parent) !== parent) parent = dirname(parent);
    const next = relative(parent, root).split(sep)[0] as string;
    const check = (): boolean => {
      if (isFolder(root)) {
        follow(root, only, recursive);
        record(only === undefined ? root : join(root, only));
        return true;
      }
      if (isFolder(join(parent, next))) {
        awaitReturn(root, only, recursive);
        return true;
      }
      return false;
    };
    const watcher = open(parent, false, (name) => {
      if (name !== undefined && name !== next) return;
      if (watchers.has(watcher) && check()) close(watcher);
    });
    // Made again between the look and the watch: no event will say so.
    if (check()) close(watcher);
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
      follow(folder ? path : dirname(path), folder ? undefined : basename(path), folder);
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

/** Whether `path` is a folder now. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
