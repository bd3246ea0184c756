import { toEnvironmentError } from './environment-error.js';
import { KgragError } from './errors.js';

/**
 * What a failure to write a file kgrag produces means to the user: a path that names a folder, or runs through a
 * file, is their mistake and says so (`OUTPUT_PATH_INVALID`); a refusal by the machine (disk full, read-only,
 * permission, name too long) is explained by {@link toEnvironmentError}; anything else comes back as it was.
 * `what` names the file for messages, e.g. `the evaluation report`.
 */
export function outputFileError(error: unknown, path: string, what: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST') {
    return new KgragError(`cannot write ${what} to "${path}": ${code === 'EISDIR' ? 'it is a folder' : 'a part of the path is a file, not a folder'}`, {
      code: 'OUTPUT_PATH_INVALID',
      category: 'input',
      hint: 'choose an output path whose folders are folders and whose last part is a file name',
      details: { path },
      cause: error,
    });
  }
  return toEnvironmentError(error, { doing: `writing ${what}`, path }) ?? error;
}
