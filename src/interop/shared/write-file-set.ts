import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { outputFileError } from '../../core/output-file-error.js';

/**
 * Writes a set of files into `directory` as one: `write` fills a staging folder beside it (`<directory>.partial`, on
 * the same file system), which is moved into place only once `write` has finished. An export that fails (a full disk)
 * or is stopped leaves no part of its set in `directory` and removes the staging folder, so running it again needs no
 * `--overwrite`; a staging folder that a killed export left is cleared by the next one. A missing or empty `directory`
 * is replaced by the staging folder in one rename; into a folder that holds other files (an export with
 * `overwrite`) each file is renamed over its namesake, which takes no disk space, and the other files stay.
 * `what` names the set in errors.
 */
export async function writeFileSet<T>(directory: string, what: string, write: (staging: string) => Promise<T>): Promise<T> {
  const target = resolve(directory);
  const staging = `${target}.partial`;
  try {
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
  } catch (error) {
    throw outputFileError(error, staging, what);
  }
  try {
    const written = await write(staging);
    await moveIntoPlace(staging, target);
    return written;
  } catch (error) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw outputFileError(error, target, what);
  }
}

async function moveIntoPlace(staging: string, target: string): Promise<void> {
  const existing = await readdir(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing === undefined || existing.length === 0) {
    if (existing !== undefined) await rmdir(target);
    await rename(staging, target);
    return;
  }
  for (const name of (await readdir(staging)).sort()) await rename(join(staging, name), join(target, name));
  await rmdir(staging);
}
