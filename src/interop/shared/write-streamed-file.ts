import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { outputFileError } from '../../core/output-file-error.js';

/** Where a streamed file's pieces go, text or bytes; `write` resolves once the piece is buffered or on disk. */
export interface OutputSink {
  write(piece: string | Uint8Array): Promise<void>;
}

/** Pieces are gathered up to this many UTF-16 units before a write to disk: few system calls, bounded memory. */
const flushThreshold = 1 << 16;

/**
 * Writes a file that an export produces piece by piece (`produce` writes to the sink), so an index of any size
 * never becomes one string in memory. The text goes to `<path>.partial` and is renamed to `path` only when
 * complete: an export that fails or is aborted (checked at every flush) leaves no truncated file that looks
 * finished. Failures are explained as {@link outputFileError} explains them; `what` names the file.
 */
export async function writeStreamedFile(
  path: string,
  what: string,
  produce: (sink: OutputSink) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const partial = `${path}.partial`;
  let handle: FileHandle | undefined;
  try {
    await mkdir(dirname(path), { recursive: true });
    const file = (handle = await open(partial, 'w'));
    let pending: string[] = [];
    let pendingLength = 0;
    const flush = async (): Promise<void> => {
      signal?.throwIfAborted();
      // writeFile on a handle writes at its position and retries partial writes, which a bare write() does not.
      await file.writeFile(pending.join(''));
      pending = [];
      pendingLength = 0;
    };
    await produce({
      async write(piece) {
        if (typeof piece !== 'string') {
          // Bytes (a parquet file) go to disk as they are, after the text gathered before them.
          await flush();
          await file.writeFile(piece);
          return;
        }
        pending.push(piece);
        pendingLength += piece.length;
        if (pendingLength >= flushThreshold) await flush();
      },
    });
    await flush();
    handle = undefined;
    await file.close();
    await rename(partial, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(partial, { force: true }).catch(() => undefined);
    throw outputFileError(error, path, what);
  }
}
