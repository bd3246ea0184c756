import type { ProcessIdentity } from '../core/process-identity.js';
import type { LlmResponseCache } from '../providers/llm/llm-response-cache.js';
import type { Store } from './store.js';

/** The process that holds a workspace's writer lock, and what it runs. */
export interface WriterHolder extends ProcessIdentity {
  /** The command line or operation, e.g. `kgrag index docs/`. */
  command: string;
  startedAt: string;
}

/** How the last write to a workspace ended, when it did not publish. */
export interface UnpublishedRun {
  status: 'failed' | 'interrupted';
  /** The step that was running, when known. */
  step: string | null;
  error: string | null;
  at: string;
}

/** What a reader of a workspace should know besides the published index. */
export interface WorkspaceStatus {
  /** The published index generation (0 for an index written before generations existed), or undefined without one. */
  generation: number | undefined;
  publishedAt: string | null;
  /** The writer running now, if any. */
  writer: WriterHolder | undefined;
  /** The last write that ended without publishing (its work is kept for the next run to resume), if any. */
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
  /** Makes the draft the published index, atomically. The session stays open for `end`. */
  publish(): Promise<void>;
  /** Drops the draft without publishing: nothing changed, the published index stays. */
  discard(): Promise<void>;
  /**
   * Ends the session and releases the lock. Without a publish or discard the draft is kept, so the next
   * writer resumes it; `unpublished` records why for readers.
   */
  end(unpublished?: Omit<UnpublishedRun, 'at'>): Promise<void>;
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
  close(): Promise<void>;
}
