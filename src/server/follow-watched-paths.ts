import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { Logger } from 'pino';
import { KgragError } from '../core/errors.js';
import { watchPaths } from '../core/watch-paths.js';
import { jobsFolder, type ServedWorkspace, uploadsFolder } from './workspace-registry.js';

/** What `kgrag serve --watch` follows, and how long a burst of changes must be quiet before an update. */
export interface WatchedPaths {
  /** Files and folders (folders recursively), absolute or relative to the server's working folder. */
  paths: readonly string[];
  /** Quiet time after the last change before the update is queued (`--debounce`). */
  debounceMs: number;
}

/** A running watch of a served workspace. */
export interface WatchedPathsFollower {
  /** Stops watching; a queued or running update is left to the job queue (its shutdown keeps it to resume). */
  stop(): Promise<void>;
}

/**
 * The workspace's own files, which change on every update and must not start another: the SQLite database and its
 * draft and journal files (all named after `store.path`), the job files and the uploads (indexed by their own jobs).
 */
function ownFilesOf(workspace: ServedWorkspace): (path: string) => boolean {
  const store = workspace.kgrag.config.store;
  const storeFiles = store.backend === 'sqlite' ? resolve(workspace.directory, store.path) : undefined;
  const folders = [join(workspace.directory, jobsFolder), workspace.uploads];
  return (path) => (storeFiles !== undefined && path.startsWith(storeFiles)) || folders.some((folder) => path === folder || path.startsWith(folder + sep));
}

/**
 * Follows `watched` for a served workspace: after each quiet period it queues one index job that reads the watched
 * paths whole with prune (adds, edits, deletes and renames alike), so the update shows in the jobs list, runs in the
 * job's process, resumes after a crash or a shutdown, and publishes atomically while queries read the published index.
 * One update is queued at once, for what changed while the server was down. A burst while an update waits in the queue
 * needs no other: the waiting one reads the files when it starts; a burst while one runs queues the next.
 */
export function followWatchedPaths(workspace: ServedWorkspace, watched: WatchedPaths, logger: Logger): WatchedPathsFollower {
  const roots = watched.paths.map((path) => resolve(path));
  for (const root of roots) {
    if (!existsSync(root)) {
      throw new KgragError(`cannot watch ${root}: it does not exist`, { code: 'SERVE_WATCH_PATH_MISSING', category: 'input', hint: 'create the folder first, or name an existing file or folder after --watch' });
    }
  }
  let waiting: string | undefined;
  const queueUpdate = async (reason: Record<string, unknown>): Promise<void> => {
    if (waiting !== undefined && (await workspace.jobs.get(waiting))?.status === 'queued') {
      logger.info({ workspace: workspace.name, job: waiting, ...reason }, 'watched files changed: the queued update will read them');
      return;
    }
    try {
      waiting = (await workspace.jobs.submit({ kind: 'index', documents: [], paths: [], watched: roots })).id;
      logger.info({ workspace: workspace.name, job: waiting, ...reason }, 'watched files changed: update queued');
    } catch (error) {
      // A shutdown in progress takes no job; a job file that cannot be written fails this update, not the watch.
      logger.warn({ workspace: workspace.name, err: error }, 'could not queue the update of the watched files');
    }
  };
  const stop = new AbortController();
  void queueUpdate({ paths: roots.length, events: 0, start: true });
  const following = (async () => {
    try {
      for await (const batch of watchPaths(roots, { debounceMs: watched.debounceMs, signal: stop.signal, ignore: ownFilesOf(workspace) })) {
        void queueUpdate({ paths: batch.paths.length, events: batch.events });
      }
    } catch (error) {
      logger.error({ workspace: workspace.name, err: error }, 'stopped watching: the watched files are no longer followed');
    }
  })();
  logger.info({ workspace: workspace.name, watched: roots, debounceMs: watched.debounceMs }, 'watching');
  return {
    async stop() {
      stop.abort();
      await following;
    },
  };
}
