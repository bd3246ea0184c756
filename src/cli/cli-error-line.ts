import { formatErrorLine } from '../core/format-error-line.js';
import { sanitizeForTerminal } from '../core/sanitize-for-terminal.js';

/**
 * The line the CLI prints for an error on stderr: `kgrag: error: message — hint` (`label` `''` for an interrupt,
 * which is not an error), with text from the input escaped for the terminal.
 */
export function cliErrorLine(error: unknown, label = 'error: '): string {
  return `kgrag: ${label}${sanitizeForTerminal(formatErrorLine(error), { multiline: true })}`;
}
