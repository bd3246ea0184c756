import type { WriterHolder } from '../store/workspace-storage.js';

/** How a writer waits for the workspace's writer lock. */
export interface WriterLockOptions {
  /** When another process is writing the workspace: wait for it (true) or fail at once (false). @default true */
  wait?: boolean;
  /** Called once when the writer has to wait for another one. */
  onWait?: (holder: WriterHolder) => void;
  /** Names this writer for others that have to wait (e.g. the command line). @default 'index' */
  command?: string;
}

/** How a writer waits for the workspace's writer lock, and what happens to its work when it is cancelled. */
export interface CancellableWriteOptions extends WriterLockOptions {
  /**
   * Cancels the run and drops its draft — the work of this run and of an unfinished one it resumed — where `signal`
   * keeps the draft for the next run to resume: a cancelled job's documents must not be indexed by the next job.
   */
  cancelSignal?: AbortSignal;
}
