import { toEnvironmentError } from '../core/environment-error.js';
import { KgragError } from '../core/errors.js';

/**
 * A file the server could not write (a job file, an upload), as a 503 problem that names the file as the workspace
 * holds it (`uploads/report.md`: never the server's own path) and the system's reason (`ENOSPC`, `EISDIR`, …), with
 * the fix for the causes kgrag knows (a full disk, a read-only folder, missing permissions).
 */
export function fileWriteError(what: string, file: string, error: unknown): KgragError {
  const known = toEnvironmentError(error, { path: file });
  const reason = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown error';
  return new KgragError(`${what} could not be written to ${file} (${reason})`, {
    code: known?.code ?? 'SERVER_FILE_NOT_WRITTEN',
    category: 'environment',
    hint: known?.hint ?? `check that ${file} can be written in the workspace: a folder on a disk with free space, writable by the server, with nothing else (such as a folder) by that name`,
    details: { httpStatus: 503, ...(reason === 'unknown error' ? {} : { systemCode: reason }) },
    cause: error,
  });
}
