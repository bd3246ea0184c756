import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { toEnvironmentError } from './environment-error.js';
import { KgragError } from './errors.js';

/**
 * Writes a file kgrag produces (a report, a template, generated questions), creating its folder first. A
 * path that names a folder, or runs through a file, is the user's mistake and says so; a refusal by the
 * machine (disk full, read-only, permission, name too long) is explained by {@link toEnvironmentError}.
 * `what` names the file for messages, e.g. `the evaluation report`.
 */
export async function writeOutputFile(path: string, text: string, what: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST') {
      throw new KgragError(`cannot write ${what} to "${path}": ${code === 'EISDIR' ? 'it is a folder' : 'a part of the path is a file, not a folder'}`, {
        code: 'OUTPUT_PATH_INVALID',
        category: 'input',
        hint: 'choose an output path whose folders are folders and whose last part is a file name',
        details: { path },
        cause: error,
      });
    }
    throw toEnvironmentError(error, { doing: `writing ${what}`, path }) ?? error;
  }
}
