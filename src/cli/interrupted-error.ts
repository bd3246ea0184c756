import { KgragError } from '../core/errors.js';

/** Code of the error a command ends with when the user interrupted it; the CLI exits 130 for it. */
export const INTERRUPTED_CODE = 'INTERRUPTED';

/**
 * An index run as Ctrl-C left it: which steps it finished and kept, and the step it stopped in. An interrupt
 * is the user's choice, so this names what was kept and how to go on, never a failure or a bug.
 */
export function interruptedError(cause: unknown, finished: readonly string[], stoppedIn: string | undefined): KgragError {
  const count = finished.length === 1 ? 'the 1 step' : `the ${finished.length} steps`;
  const kept = finished.length === 0 ? 'no step had finished' : `${count} finished in this run are kept`;
  const last = finished.at(-1);
  const where =
    stoppedIn !== undefined ? `during step "${stoppedIn}", which the next run redoes` : last === undefined ? 'before the first step' : `after step "${last}"`;
  return new KgragError(`indexing interrupted (Ctrl-C) ${where}; ${kept}`, {
    code: INTERRUPTED_CODE,
    category: 'input',
    hint: 'run the same command again to resume where it stopped',
    cause,
  });
}
