/**
 * Where the index jobs of a workspace live when several processes share it (Postgres): every server lists and
 * follows every job, a job is claimed by one process at a time under a lease it renews while it works, and a job
 * whose process died (its lease ran out) is claimed again by another, which resumes its draft. The job's own shape
 * (its view and request) belongs to the layer that runs jobs; here they are JSON.
 */
export interface SharedJobStore {
  /** Records a queued job with the files it indexes (kept until the job ends). */
  insert(job: { id: string; view: unknown; request: unknown; uploads: readonly UploadedFile[] }): Promise<void>;
  get(id: string): Promise<StoredJob | undefined>;
  /** The workspace's jobs, newest first (at most `limit`). */
  list(limit: number): Promise<StoredJob[]>;
  /**
   * Claims the workspace's next job for `holder`: the oldest queued one, or a running one whose lease ran out (its
   * process is gone), unless another job holds a live lease — jobs of one workspace run one at a time, in order.
   */
  claim(holder: string, leaseSeconds: number): Promise<ClaimedJob | undefined>;
  /**
   * Renews the lease of a job `holder` runs and stores its view; `held` is false once the job is no longer the
   * holder's (its lease ran out and another process took it over).
   */
  renew(id: string, holder: string, leaseSeconds: number, view: unknown): Promise<{ held: boolean; cancelRequested: boolean }>;
  /** Stores the view of a job `holder` runs and appends `event` to its event log (for followers on any process). */
  record(id: string, holder: string, view: unknown, event: unknown): Promise<void>;
  /** Gives a job back to the queue (its holder stops: a shutdown), keeping its draft for whoever claims it next. */
  release(id: string, holder: string, view: unknown): Promise<void>;
  /** Ends a job: stores its final view and request (without document text) and deletes its uploaded files. */
  finish(id: string, holder: string | null, view: unknown, request: unknown, event: unknown): Promise<boolean>;
  /** Asks the holder of a running job to cancel it (it sees the request at its next renewal). */
  requestCancel(id: string): Promise<void>;
  /** The events of a job after `after` (its log's sequence numbers), oldest first. */
  eventsAfter(id: string, after: number): Promise<Array<{ seq: number; event: unknown }>>;
  /** The files a queued or running job indexes. */
  uploads(id: string): Promise<UploadedFile[]>;
  /** Deletes the ended jobs beyond the newest `keep`, with their event logs. */
  prune(keep: number): Promise<void>;
}

/** A file uploaded for an index job. */
export interface UploadedFile {
  name: string;
  bytes: Uint8Array;
}

/** A job as stored. */
export interface StoredJob {
  id: string;
  status: string;
  view: unknown;
  request: unknown;
  /** The process that runs (or last ran) it. */
  holder: string | null;
  /** When its holder's lease runs out (ISO time), for a running job. */
  leaseUntil: string | null;
  /** The sequence number of its newest event, where followers start. */
  lastEvent: number;
}

/** A job claimed by a process. */
export interface ClaimedJob extends StoredJob {
  /** The process whose lease ran out, when the job was taken over from it. */
  takenOverFrom: string | null;
}
