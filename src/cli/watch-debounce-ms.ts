import { KgragError } from '../core/errors.js';

/** `--debounce <ms>` of `kgrag index --watch` and `kgrag serve --watch`, checked: the quiet time a watched change waits for. */
export function watchDebounceMs(option: string | undefined): number {
  if (option === undefined) return 2000;
  const value = Number(option);
  if (!Number.isInteger(value) || value < 0 || value > 600_000) {
    throw new KgragError(`--debounce ${option} is not a number of milliseconds`, { code: 'CLI_BAD_DEBOUNCE', category: 'input', hint: 'pass a whole number of milliseconds up to 600000, e.g. --debounce 2000' });
  }
  return value;
}
