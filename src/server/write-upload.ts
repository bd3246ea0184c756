import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { UploadedFile } from '../store/shared-job-store.js';
import { fileWriteError } from './file-write-error.js';

/**
 * Writes one upload into a server's uploads folder (to a temporary name, then renamed) and returns its path; a file
 * that cannot be written is a 503 problem naming the file and the cause.
 */
export function writeUpload(folder: string, file: UploadedFile): string {
  const path = join(folder, file.name);
  try {
    mkdirSync(folder, { recursive: true });
    writeFileSync(`${path}.part`, file.bytes);
    renameSync(`${path}.part`, path);
    return path;
  } catch (error) {
    try {
      rmSync(`${path}.part`, { force: true });
    } catch {
      // What stands in the way (a folder of that name) is the cause the problem names.
    }
    throw fileWriteError(`the upload "${file.name}"`, `${basename(folder)}/${file.name}`, error);
  }
}
