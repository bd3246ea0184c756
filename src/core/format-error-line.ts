import { toEnvironmentError } from './environment-error.js';
import { KgragError } from './errors.js';

/**
 * Renders any error as one line for a terminal: the message, then the fix when one is known. A raw error
 * from the machine (disk full, read-only, locked, limits) is explained like a {@link KgragError}; only
 * what is left is reported as a bug.
 */
export function formatErrorLine(error: unknown): string {
  const explained = KgragError.isInstance(error) ? error : toEnvironmentError(error);
  if (explained !== undefined) return explained.hint ? `${explained.message} — ${explained.hint}` : explained.message;
  if (error instanceof Error) return `${error.message} — this looks like a bug in kgrag; please report it with the command you ran`;
  return String(error);
}
