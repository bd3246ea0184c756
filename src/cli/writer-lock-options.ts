import type { WriterLockOptions } from '../api/create-kgrag.js';
import { describeHolder } from '../store/describe-holder.js';
import { type CliIo, writeLine } from './cli-io.js';

/**
 * How a writing command takes the workspace's writer lock: it names itself with its command line, and when
 * another process writes, it waits with one message (or, with `--no-wait`, fails at once naming the holder).
 */
export function writerLockOptions(command: string, wait: boolean | undefined, io: CliIo): WriterLockOptions {
  return {
    command,
    wait: wait !== false,
    onWait: (holder) => writeLine(io.stderr, `waiting for the process writing this workspace to finish: ${describeHolder(holder)} (Ctrl-C to stop waiting)`),
  };
}
