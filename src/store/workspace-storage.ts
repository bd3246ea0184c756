import type { ProcessIdentity } from '../core/process-identity.js';
import type { LlmResponseCache } from '../providers/llm/llm-response-cache.js';
import type { SharedJobStore } from './shared-job-store.js';
import type { Store } from './store.js';

/** The process that holds a workspace's writer lock, and what it runs. */
export interface WriterHolder extends ProcessIdentity {
  /** The command line or operation, e.g. `kgrag index docs/`. */
  command: string;
  startedAt: string;
}

/** A document a write removes from the index, as readers are told of it. */
export interface RunDocument {
  id: string;
  title: string;
}

/**
 * The last write to a workspace that did not publish: its draft is kept for the next writer to resume, and until
 * then queries read the index published before it.
 */
export interface UnpublishedRun {
  /**
   * `failed` (an error ended it) or `interrupted`: stopped by the user (Ctrl-C, a cancelled job), or by its process
   * ending without finishing it (`processGone`).
   */
  status: 'failed' | 'interrupted';
  /** The step that was running, when known. */
  step: string | null;
  error: string | null;
  /** When it ended; for a run whose process stopped without ending it, when it started. */
  at: string;
  /** What it ran (`kgrag delete docs/old.md`), or null for a run recorded by an older kgrag. */
  command: string | null;
  startedAt: string | null;
  /**
   * The documents it was deleting, still in the published index: answers may cite them until a run publishes the
   * draft (the next `kgrag delete` or `kgrag index` resumes it). Empty when it deleted nothing.
   */
  deleting: RunDocument[];
  /** True when its process stopped without ending it (killed or crashed), so nothing recorded how it ended. */
  processGone: boolean;
}

/** The write whose draft a new write resumes ({@link WriteSession.resumedFrom}). */
export interface ResumedWrite {
  command: string | null;
  startedAt: string | null;
  /** `running` when its process stopped without recording an end (killed, crashed, or its server lost). */
  status: 'running' | UnpublishedRun['status'];
  step: string | null;
  /** Its process, while the record says it ran (null once it recorded an end). */
  process: { pid: number; hostname: string } | null;
}

/** How a writer says its write ended without publishing (`WriteSession.end`). */
export type UnpublishedEnd = Pick<UnpublishedRun, 'status' | 'step' | 'error'>;

/** What a reader of a workspace should know besides the published index. */
export interface WorkspaceStatus {
  /** The published index generation (0 for an index written before generations existed), or undefined without one. */
  generation: number | undefined;
  publishedAt: string | null;
  /** The writer running now, if any. */
  writer: WriterHolder | undefined;
  /**
   * The last write that ended without publishing (its work is kept for the next run to resume), if any; a write
   * whose process stopped without ending it counts as interrupted. Reported until a run publishes or the draft is
   * discarded.
   */
  unpublished: UnpublishedRun | undefined;
}

/** One published index generation, held open for the duration of a query. */
export interface IndexSnapshot {
  readonly store: Store;
  readonly generation: number;
  readonly publishedAt: string | null;
  /** Lets the storage close the snapshot once no query uses it and a newer one is published. */
  release(): void;
}

/** Options of {@link WorkspaceStorage.beginWrite}. */
export interface BeginWriteOptions {
  /** What the writer runs, shown to a second writer that has to wait. */
  command: string;
  /** Wait for another writer to finish (true) or fail at once (false). @default true */
  wait?: boolean;
  /** Called once when the lock is held by someone else and the caller waits. */
  onWait?: (holder: WriterHolder) => void;
  signal?: AbortSignal;
  /**
   * Documents the write is to delete, recorded with its start (before the draft exists), so that readers know them
   * from the start and `WriteSession.recordDeletion` of the same documents writes nothing more.
   */
  deleting?: readonly RunDocument[];
}

/**
 * The one writer of a workspace. Its `store` is a draft: readers keep reading the last published index while
 * it is written, and see the new one only after `publish`.
 */
export interface WriteSession {
  readonly store: Store;
  /** The generation the draft will publish as. */
  readonly generation: number;
  /** True when the draft continues an earlier write that stopped before publishing. */
  readonly resumed: boolean;
  /**
   * The earlier write whose draft this one continues, as it was recorded (what it ran, when, in which process, where
   * it stopped), when the record was kept: a writer in another process or on another server may have left it.
   */
  readonly resumedFrom?: ResumedWrite;
  /** Makes the draft the published index, atomically. The session stays open for `end`. */
  publish(): Promise<void>;
  /** Drops the draft without publishing: nothing changed, the published index stays. */
  discard(): Promise<void>;
  /**
   * Records the documents this write removes, before it changes the draft: should its process stop without
   * ending the write (killed, crashed), readers are told that answers still come from an index that holds them.
   */
  recordDeletion(documents: readonly RunDocument[]): Promise<void>;
  /**
   * Ends the session and releases the lock. Without a publish or discard the draft is kept, so the next
   * writer resumes it; `unpublished` records why for readers (without it, the write counts as interrupted).
   */
  end(unpublished?: UnpublishedEnd): Promise<void>;
}

/**
 * Where a workspace's index lives: the published generation that queries read, and one writer at a time
 * that builds the next. SQLite keeps the published index in one file and the draft in a copy beside it,
 * published by an atomic rename; another backend may publish by switching a pointer.
 */
export interface WorkspaceStorage {
  /** Where the index lives, for messages (a file path). */
  readonly location: string;
  /** The published index for one query, or undefined when nothing has been published yet. */
  snapshot(): Promise<IndexSnapshot | undefined>;
  /**
   * Takes the writer lock and, before the draft is touched, records that this write started (its command, start
   * time and process), replacing the record of any earlier write; a resumed draft keeps the documents an earlier
   * write was deleting in it.
   */
  beginWrite(options: BeginWriteOptions): Promise<WriteSession>;
  status(): Promise<WorkspaceStatus>;
  /**
   * The LLM response cache of queries: kept beside the index so that a repeated question costs nothing, in
   * memory only when the workspace cannot be written.
   */
  readonly queryCache: LlmResponseCache;
  /**
   * Deletes every reply of the query cache, leaving none of its bytes in the workspace's files (a deleted
   * document's text may be quoted in any answer); returns how many entries it deleted.
   */
  clearQueryCache(): Promise<number>;
  /**
   * Opens a generation another process is writing (its draft), for that writer's indexing workers, which add LLM
   * replies to its cache. Only a storage that several processes share has it (Postgres).
   */
  openDraft?(generation: number): Promise<Store>;
  /** The database connections the storage holds now, for metrics (a pooled backend: Postgres; SQLite has none). */
  connections?(): StoreConnections;
  /** The workspace's index jobs, shared by every process on the database (Postgres); SQLite's are a server's files. */
  readonly jobs?: SharedJobStore;
  close(): Promise<void>;
}

/** A connection pool's state ({@link WorkspaceStorage.connections}). */
export interface StoreConnections {
  /** Open connections, idle or in use. */
  total: number;
  idle: number;
  /** Requests waiting for a connection (the pool is at its size). */
  waiting: number;
}
