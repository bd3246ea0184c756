import { KgragError } from './errors.js';

/** A hint that tells the reader to run the command line: a backquoted `kgrag …` command or a `--flag`. */
const commandLineHint = /`kgrag\b|(^|[\s(])--[a-z]/;

/**
 * `error` as another surface (the HTTP API, MCP tools) shows it: where its hint tells the reader to run the command
 * line, which a client of that surface cannot, the surface's own fix for the code (`hints`) takes its place. A hint
 * that needs no command line ("wait for the run to finish, then ask again") is kept, and so is any other error.
 * The workspace's storage location (`details.location`: a path on the server, a database URL) is the command line's
 * to show: the surface's message says "this workspace" instead.
 */
export function withSurfaceHint(error: unknown, hints: Readonly<Record<string, string>>): unknown {
  if (!KgragError.isInstance(error)) return error;
  const hint = hints[error.code];
  const replaceHint = hint !== undefined && error.hint !== undefined && commandLineHint.test(error.hint);
  const location = error.details?.['location'];
  const message = typeof location === 'string' && location !== '' ? error.message.replace(`at ${location}`, 'in this workspace') : error.message;
  if (!replaceHint && message === error.message) return error;
  const shownHint = replaceHint ? hint : error.hint;
  return new KgragError(message, {
    code: error.code,
    category: error.category,
    ...(shownHint === undefined ? {} : { hint: shownHint }),
    ...(error.details === undefined ? {} : { details: error.details }),
    cause: error,
  });
}
