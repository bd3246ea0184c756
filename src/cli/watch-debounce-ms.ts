import { KgragError } from '../core/errors.js';

/**
 * The quiet time of `--watch` when `--debounce` is not given. An editor's save (a backup, a temporary file written and
 * renamed over the file, its time set) and a checkout or a copy are file events milliseconds apart, which half a second
 * of quiet gathers into one update; every millisecond of it is also a wait before the change is served. A burst that
 * pauses longer costs at most one more update: one waits in the queue at a time and reads the files when it starts.
 */
export const defaultWatchDebounceMs = 500;

/** `--debounce <ms>` of `kgrag index --watch` and `kgrag serve --watch`, checked: the quiet time a watched change waits for. */
export function watchDebounceMs(option: string | undefined): number {
  if (option === undefined) return defaultWatchDebounceMs;
  const value = Number(option);
  if (!Number.isInteger(value) || value < 0 || value > 600_000) {
    throw new KgragError(`--debounce ${option} is not a number of milliseconds`, { code: 'CLI_BAD_DEBOUNCE', category: 'input', hint: 'pass a whole number of milliseconds up to 600000, e.g. --debounce 500' });
  }
  return value;
}
