import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { builtInStoresSharingPools } from '../../api/built-in-stores.js';
import { readableLogLine } from '../readable-log-line.js';
import { createKgrag } from '../../api/create-kgrag.js';
import { loadConfig, mergeConfig } from '../../core/config/load-config.js';
import { KgragError } from '../../core/errors.js';
import { packageVersion } from '../../core/package-version.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { serveWorkspaces } from '../../server/serve-workspaces.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { watchDebounceMs } from '../watch-debounce-ms.js';
import { type GlobalOptions, parseSetOptions } from '../workspace-options.js';

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
  const folder = options.workspaces === undefined ? undefined : resolve(io.cwd, options.workspaces);
  const directory = folder ?? resolve(io.cwd, global.workspace ?? io.env.KGRAG_WORKSPACE ?? '.');
  if (folder !== undefined && global.workspace !== undefined) {
    throw new KgragError('give either -w (one workspace) or --workspaces (a folder of workspaces), not both', { code: 'CLI_SERVE_LAYOUT', category: 'input', hint: 'drop one of the two options' });
  }
  if (options.watch === undefined && options.debounce !== undefined) {
    throw new KgragError('--debounce sets the quiet time of --watch, which is not given', { code: 'CLI_DEBOUNCE_WITHOUT_WATCH', category: 'input', hint: 'add --watch <folder>, or drop --debounce' });
  }
  const watch = options.watch === undefined ? undefined : { paths: options.watch.map((path) => resolve(io.cwd, path)), debounceMs: watchDebounceMs(options.debounce) };
  if (folder !== undefined && !(existsSync(folder) && statSync(folder).isDirectory())) {
    throw new KgragError(`--workspaces ${folder} is not a folder`, { code: 'CLI_SERVE_NO_FOLDER', category: 'input', hint: 'create it first (`mkdir -p …`); the server creates workspaces inside it' });
  }
  const overrides = parseSetOptions(global.set ?? []) as Record<string, unknown>;
  const serverFlags = { server: { ...(options.host === undefined ? {} : { host: options.host }), ...(options.port === undefined ? {} : { port: options.port }) } };
  const loaded = await loadConfig({
    workspace: directory,
    env: io.env,
    overrides: mergeConfig(overrides, serverFlags),
    ...(global.config === undefined ? {} : { configFile: resolve(io.cwd, global.config) }),
  });
  // A folder of workspaces: its kgrag.yaml (or -c) is every tenant's base, beneath the tenant's own file.
  const opened = {
    env: io.env,
    config: overrides,
    ...(global.config === undefined || folder !== undefined ? {} : { configFile: resolve(io.cwd, global.config) }),
    ...(folder === undefined ? {} : { baseConfigFile: global.config === undefined ? join(folder, 'kgrag.yaml') : resolve(io.cwd, global.config) }),
  };
  const stores = builtInStoresSharingPools();
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
