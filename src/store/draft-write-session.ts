import { errorMessage } from '../core/error-message.js';
import { generationMetaKeys } from './generation-meta-keys.js';
import type { Store } from './store.js';
import type { WriteSession } from './workspace-storage.js';
import { endedWriteRecord, withDeletions, type WriteRecord } from './write-record.js';

/** The draft store of a write, as a backend's publish step sees it. */
export interface DraftHandle {
  /** Closes the draft (once). */
  close(): Promise<void>;
  /** Says that the backend closed the draft itself (SQLite seals it). */
  closed(): void;
}

/** A write's draft as it starts. */
export interface DraftStart {
  generation: number;
  resumed: boolean;
  /** The record of the earlier write a resumed draft continues, when it was kept. */
  resumedFrom?: WriteRecord | undefined;
  /** The write record as the write started it. */
  record: WriteRecord;
  now: () => Date;
}

/** What a backend does at each turn of a write session; the order of the turns is {@link draftWriteSession}'s. */
export interface DraftWriteSteps {
  /** Makes the draft (its generation and publication time already written) the published index. */
  publish(draft: DraftHandle): Promise<void>;
  /** After a publish: clears the write record, drops what the new index replaced. */
  published(): Promise<void>;
  /** Drops the closed draft and clears the write record. */
  discard(): Promise<void>;
  /** Keeps the write record where readers find it. */
  saveRecord(record: WriteRecord): Promise<void>;
  /** Records the end of the write: how it ended, or undefined when it published or discarded its draft. */
  recordEnd(ended: WriteRecord | undefined): Promise<void>;
  /** Releases the writer lock. */
  release(): Promise<void>;
}

/**
 * A write session over a backend's draft: the bookkeeping every backend does alike (publish or discard once, the
 * deletions recorded before the draft changes, the end recorded before the draft is closed, the lock released
 * last, whatever failed), around the backend's own steps.
 */
export function draftWriteSession(store: Store, start: DraftStart, steps: DraftWriteSteps): WriteSession {
  const { generation, resumed, now } = start;
  let record = start.record;
  let finished = false;
  let draftOpen = true;
  const draft: DraftHandle = {
    async close() {
      if (draftOpen) {
        draftOpen = false;
        await store.close();
      }
    },
    closed() {
      draftOpen = false;
    },
  };
  const earlier = resumed ? start.resumedFrom : undefined;
  return {
    store,
    generation,
    resumed,
    ...(earlier === undefined
      ? {}
      : { resumedFrom: { command: earlier.command, startedAt: earlier.startedAt, status: earlier.status, step: earlier.step, process: earlier.process && { pid: earlier.process.pid, hostname: earlier.process.hostname } } }),
    async publish() {
      if (finished) return;
      await store.setMeta(generationMetaKeys.generation, generation);
      await store.setMeta(generationMetaKeys.publishedAt, now().toISOString());
      await steps.publish(draft);
      finished = true;
      await steps.published();
    },
    async discard() {
      if (finished) return;
      await draft.close();
      await steps.discard();
      finished = true;
    },
    async recordDeletion(documents) {
      const next = withDeletions(record, documents);
      // Recorded when the write began (`BeginWriteOptions.deleting`): writing it again would wait for the disk, which
      // after the draft's copy means waiting for the whole copy to reach it.
      if (next.deleting.length === record.deleting.length) return;
      record = next;
      await steps.saveRecord(record);
    },
    async end(unpublished) {
      try {
        // Recorded first: a draft that fails to close must not leave a record that says the write still runs. A write
        // that failed keeps its record for readers even when its draft, holding nothing to resume, was discarded.
        await steps.recordEnd(finished && unpublished === undefined ? undefined : endedWriteRecord(record, unpublished, now().toISOString()));
        await draft.close();
      } finally {
        await steps.release();
      }
    },
  };
}

/**
 * Ends a write whose draft could not be set up: its record (when it wrote one) says that it failed, not that it still
 * runs, and the lock is released whatever happens. Rethrows `error`.
 */
export async function failedWriteSetup(
  error: unknown,
  steps: { started: WriteRecord | undefined; now: () => Date; recordEnd(ended: WriteRecord): Promise<void>; release(): Promise<void> },
): Promise<never> {
  try {
    if (steps.started) await steps.recordEnd(endedWriteRecord(steps.started, { status: 'failed', step: null, error: errorMessage(error) }, steps.now().toISOString()));
  } finally {
    await steps.release();
  }
  throw error;
}
