import { KgragError } from './errors.js';

/** A hint that tells the reader to run the command line: a backquoted `kgrag …` command or a `--flag`. */
const commandLineHint = /`kgrag\b|(^|[\s(])--[a-z]/;

/**
 * `error` as another surface (the HTTP API, MCP tools) shows it: where its hint tells the reader to run the command
 * line, which a client of that surface cannot, the surface's own fix for the code (`hints`) takes its place. A hint
 * that needs no command line ("wait for the run to finish, then ask again") is kept, and so is any other error.
 */
export function withSurfaceHint(error: unknown, hints: Readonly<Record<string, string>>): unknown {
  if (!KgragError.isInstance(error)) return error;
  const hint = hints[error.code];
  if (hint === undefined || error.hint === undefined || !commandLineHint.test(error.hint)) return error;
  return new KgragError(error.message, { code: error.code, category: error.category, hint, ...(error.details === undefined ? {} : { details: error.details }), cause: error });
}
