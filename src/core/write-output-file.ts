import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { outputFileError } from './output-file-error.js';

/**
 * Writes a file kgrag produces (a report, a template, generated questions), creating its folder first. A
 * path that names a folder, or runs through a file, is the user's mistake and says so; a refusal by the
 * machine (disk full, read-only, permission, name too long) is explained (see {@link outputFileError}).
 * `what` names the file for messages, e.g. `the evaluation report`.
 */
export async function writeOutputFile(path: string, text: string, what: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  } catch (error) {
    throw outputFileError(error, path, what);
  }
}
