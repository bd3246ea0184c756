import type { QueryProgress } from '../methods/query-method.js';
import { sanitizeForTerminal } from '../core/sanitize-for-terminal.js';
import { writeLine } from './cli-io.js';

/** Shows a query's progress on stderr. */
export interface QueryProgressLine {
  onProgress(event: QueryProgress): void;
  /** Ends the live line, if one is showing. */
  stop(): void;
}

/**
 * Query progress on `stream`: on a terminal one line rewritten in place, otherwise one line per event
 * (a log keeps every step). Results never go here; stdout stays clean for `--json` and pipes.
 */
export function createQueryProgressLine(stream: NodeJS.WritableStream & { isTTY?: boolean }): QueryProgressLine {
  let live = false;
  return {
    onProgress(event) {
      const line = sanitizeForTerminal(`${event.step}: ${event.message}`);
      if (stream.isTTY) {
        const width = (stream as { columns?: number }).columns ?? 120;
        stream.write(`\r\x1b[K${line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line}`);
        live = true;
      } else {
        writeLine(stream, line);
      }
    },
    stop() {
      if (live) stream.write('\r\x1b[K');
      live = false;
    },
  };
}
