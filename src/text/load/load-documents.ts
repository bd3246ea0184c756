import { readFile } from 'node:fs/promises';
import { boundLoadedMetadata } from './bound-loaded-metadata.js';
import { collectInputFiles, type InputFile } from './collect-input-files.js';
import { loadFileBytes } from './load-file-bytes.js';
import type { LoadedDocument, LoadResult, LoadWarning } from './load-types.js';
import type { RecordFields } from './records-to-documents.js';
import { errorMessage } from '../../core/error-message.js';

/** Options of {@link loadDocuments}; the resolved `input` section of the configuration fits it. */
export interface LoadDocumentsOptions extends RecordFields {
  /** Globs, relative to each input folder, of the files to load from it. Explicitly named files skip them. */
  include: readonly string[];
  /** Globs, relative to each input folder, of files and folders to skip. */
  exclude: readonly string[];
  /** Files larger than this many MiB are skipped with a `too-large` warning. */
  maxFileMegabytes: number;
  /** Stops loading between files; the generator then throws the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** What {@link loadDocuments} reports, in order. */
export type LoadEvent =
  | { type: 'document'; document: LoadedDocument }
  | { type: 'warning'; warning: LoadWarning }
  | {
      type: 'progress';
      /** Files done, this one included. */
      files: number;
      totalFiles: number;
      /** Bytes of the files done. */
      bytes: number;
      totalBytes: number;
      /** The file just done. */
      source: string;
    };

/**
 * Loads documents from files and folders (see `collectInputFiles` for walking and globs, `loadFileBytes`
 * for formats). Yields, in a deterministic order, each file's warnings, then its documents, then one
 * `progress` event. Problems with single files never stop the run: they become warnings. Only an aborted
 * `signal` ends it early, by throwing.
 */
export async function* loadDocuments(paths: readonly string[], options: LoadDocumentsOptions): AsyncGenerator<LoadEvent> {
  const entries = await collectInputFiles(paths, options);
  const files = entries.flatMap((entry) => (entry.type === 'file' ? [entry.file] : []));
  const totalFiles = files.length;
  const totalBytes = files.reduce((sum, file) => sum + file.bytes, 0);
  const fieldNames: RecordFields = { textField: options.textField, titleField: options.titleField, idField: options.idField };
  let filesDone = 0;
  let bytesDone = 0;
  for (const entry of entries) {
    options.signal?.throwIfAborted();
    if (entry.type === 'warning') {
      yield { type: 'warning', warning: entry.warning };
      continue;
    }
    const result = await loadFile(entry.file, fieldNames);
    for (const warning of result.warnings) yield { type: 'warning', warning };
    for (const document of result.documents) yield { type: 'document', document };
    filesDone += 1;
    bytesDone += entry.file.bytes;
    yield { type: 'progress', files: filesDone, totalFiles, bytes: bytesDone, totalBytes, source: entry.file.source };
  }
}

async function loadFile(file: InputFile, fieldNames: RecordFields): Promise<LoadResult> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : errorMessage(error);
    return {
      documents: [],
      warnings: [{ source: file.source, code: 'unreadable', message: `${file.source} cannot be read (${reason}), so it was skipped; check its permissions.` }],
    };
  }
  try {
    const context = { source: file.source, fileName: file.fileName };
    return boundLoadedMetadata(await loadFileBytes(bytes, context, fieldNames), context);
  } catch (error) {
    // Parsers of nested formats (HTML's element tree) recurse, and a file nested thousands of levels deep overflows them.
    const message =
      error instanceof RangeError && /call stack/i.test(error.message)
        ? `${file.source} nests too deeply to be read (thousands of levels of elements or fields), so it was skipped; flatten its structure.`
        : `${file.source} could not be loaded (${errorMessage(error)}), so it was skipped; check that the file is well-formed.`;
    return { documents: [], warnings: [{ source: file.source, code: 'parse-error', message }] };
  }
}
