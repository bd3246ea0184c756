import { resolve } from 'node:path';
import pino from 'pino';
import { readableLogLine } from '../readable-log-line.js';
import { createKgrag } from '../../api/create-kgrag.js';
import { KgragError } from '../../core/errors.js';
import { packageVersion } from '../../core/package-version.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { serveWorkspaces } from '../../server/serve-workspaces.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { watchDebounceMs } from '../watch-debounce-ms.js';
import { servedWorkspaceOptions } from '../served-workspace-options.js';
import type { GlobalOptions } from '../workspace-options.js';

/** How the start line describes authentication. */
function keysNote(keys: number): string {
  return keys > 0 ? `, ${keys} API key(s)` : ', no API key (this machine only: loopback names, same-origin writes)';
}

/** Options of `kgrag serve`. */
export interface ServeCommandOptions {
  host?: string;
  port?: number;
  workspaces?: string;
  /** Removed: refused with a message that says to set an API key (scripts may still pass it). */
  insecure?: boolean;
  logLevel?: string;
  /** `--watch <paths>` (repeatable, or a comma list): files and folders the server follows, one index job per quiet period. */
  watch?: string[];
  /** `--debounce <ms>`: the quiet period of `--watch`. @default 500 (`defaultWatchDebounceMs`) */
  debounce?: string;
  /** `--index-jobs here|workers`: server.indexJobs. */
  indexJobs?: 'here' | 'workers';
}

/**
 * `kgrag serve`: serves one workspace (`-w dir`, endpoints at /v1/…) or a folder of workspaces (`--workspaces dir`,
 * at /v1/workspaces/{name}/…) until SIGTERM or Ctrl-C, then shuts down gracefully. The address goes to stderr with
 * the logs (JSON lines, pino); stdout stays empty. With `--watch` it follows files and folders and queues one index job
 * per quiet period of changes (see `followWatchedPaths`).
 */
export async function serveCommand(options: ServeCommandOptions, global: GlobalOptions, io: CliIo, signals: NodeJS.EventEmitter = process): Promise<void> {
  if (options.insecure === true) {
    throw new KgragError('--insecure is no longer accepted: kgrag serve never listens beyond loopback without an API key', {
      code: 'CLI_SERVE_INSECURE_REMOVED',
      category: 'input',
      hint: 'set an API key (KGRAG_API_KEYS=$(openssl rand -hex 32), or server.apiKeys in kgrag.yaml) and send it as "Authorization: Bearer <key>" (a proxy in front can add it); or drop --insecure and listen on 127.0.0.1',
    });
  }
  if (options.watch === undefined && options.debounce !== undefined) {
    throw new KgragError('--debounce sets the quiet time of --watch, which is not given', { code: 'CLI_DEBOUNCE_WITHOUT_WATCH', category: 'input', hint: 'add --watch <folder>, or drop --debounce' });
  }
  const watch = options.watch === undefined ? undefined : { paths: options.watch.map((path) => resolve(io.cwd, path)), debounceMs: watchDebounceMs(options.debounce) };
  const serverFlags = {
    server: {
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.indexJobs === undefined ? {} : { indexJobs: options.indexJobs }),
    },
  };
  const { folder, directory, loaded, opened, stores } = await servedWorkspaceOptions(options.workspaces, serverFlags, global, io);
  // JSON lines for a log collector; on a terminal, lines a person reads (`GET /v1/query 200 12 ms`).
  const destination = io.stderr.isTTY === true ? { write: (line: string) => void io.stderr.write(`${readableLogLine(line)}\n`) } : pino.destination({ dest: 2, sync: true });
  const logger = pino({ level: options.logLevel ?? (global.quiet ? 'warn' : 'info'), base: undefined }, destination);
  const served = await serveWorkspaces({
    layout: folder === undefined ? 'single' : 'folder',
    directory,
    config: loaded.config.server,
    version: packageVersion(),
    logger,
    // The server's workspaces on one database share one pool: store.poolSize is the server's connections to it.
    openKgrag: (workspace) => createKgrag({ workspace, ...opened, stores }),
    // Index jobs run in processes of their own, opened the same way: the server's event loop stays free for queries.
    jobProcess: opened,
    ...(watch === undefined ? {} : { watch }),
  });
  writeLine(io.stderr, `kgrag: serving ${sanitizeForTerminal(directory)}${folder === undefined ? '' : ' (folder of workspaces)'} at ${served.url} — API page ${served.url}/docs${keysNote(loaded.config.server.apiKeys.length)}`);
  if (watch !== undefined) {
    writeLine(io.stderr, `kgrag: watching ${watch.paths.map((path) => sanitizeForTerminal(path)).join(', ')} (an index job ${watch.debounceMs / 1000} s after the last change)`);
  }
  await new Promise<void>((resolveStop) => {
    const stop = (signal: string) => {
      writeLine(io.stderr, `kgrag: ${signal}: finishing running queries, keeping a running index job to resume on the next start`);
      resolveStop();
    };
    signals.once('SIGTERM', () => stop('SIGTERM'));
    signals.once('SIGINT', () => stop('SIGINT'));
  });
  await served.close();
}
