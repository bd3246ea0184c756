import { closeSync, constants, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { uptime } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KgragError } from '../../core/errors.js';
import { currentProcessIdentity, isProcessRunning } from '../../core/process-identity.js';
import { describeHolder } from '../describe-holder.js';
import { createGenerationHolder } from '../generation-holder.js';
import { generationMetaKeys } from '../generation-meta-keys.js';
import type { Store } from '../store.js';
import type { BeginWriteOptions, IndexSnapshot, UnpublishedRun, WorkspaceStatus, WorkspaceStorage, WriteSession, WriterHolder } from '../workspace-storage.js';
import { draftWriteSession, failedWriteSetup } from '../draft-write-session.js';
import { layeredQueryCache } from '../layered-query-cache.js';
import { startedWriteRecord, unpublishedRunOf, type WriteRecord } from '../write-record.js';
import { openSqliteStore, sealSqliteStore, syncSqliteCommits, sqliteFileNeedsUpgrade, type SqliteStoreOptions } from './sqlite-store.js';
import { validatePluginTables, type StoreExtensions } from '../store-extensions.js';
import { WorkspaceStateFile } from './workspace-state-file.js';

const { generation: generationKey, publishedAt: publishedAtKey } = generationMetaKeys;
/** In a draft: the generation it was copied from (-1: none), so a stale draft is never published over a newer index. */
const draftBaseKey = 'index:draftBase';
/** How often a waiting writer looks at the lock again. */
const lockPollMs = 250;

/** Options of {@link openSqliteWorkspaceStorage}; `tables` are plugins' tables, which every generation's file has. */
export interface SqliteWorkspaceStorageOptions extends StoreExtensions {
  now?: () => Date;
  /** Overwrite deleted content with zeros in the index and the state file (`SqliteStoreOptions.secureDelete`). @default true */
  secureDelete?: boolean;
}

/**
 * The SQLite workspace: the published index is the file at `path`, opened read-only by queries; a writer
 * holds the lock in `<path>-state`, copies the index to `<path>-draft`, writes there, and publishes by
 * renaming the draft over `path`. A rename is atomic, so a query opens either the old index or the new one,
 * never a half-written one, and queries already running keep their open file until they finish. A write that
 * stops before publishing leaves its draft, which the next writer resumes.
 */
export function openSqliteWorkspaceStorage(path: string, options: SqliteWorkspaceStorageOptions = {}): WorkspaceStorage {
  const now = options.now ?? (() => new Date());
  const draftPath = `${path}-draft`;
  /** Beside a draft while it is sealed (see `publish`). */
  const sealingPath = `${draftPath}.sealing`;
  /** Beside a draft once its first state (the copy of the published index) is on the disk (see `syncInBackground`). */
  const syncedPath = `${draftPath}.synced`;
  /** Beside a draft from its copy on: the boot of the machine it was copied in (see `currentBoot`). */
  const bootPath = `${draftPath}.boot`;
  /** The background sync of this process's current draft (see `syncInBackground`). */
  let draftSync: DraftSync | undefined;
  const secureDelete = options.secureDelete !== false;
  const writable: SqliteStoreOptions = { secureDelete, tables: validatePluginTables(options.tables) };
  const state = new WorkspaceStateFile(`${path}-state`, { secureDelete });
  const generations = createGenerationHolder<string>();
  let tokenCounter = 0;

  const fileIdentity = (): string | undefined => {
    try {
      const stat = statSync(path);
      return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    } catch {
      return undefined;
    }
  };

  /**
   * Opens the published file for reading. An index written before generations existed (write-ahead log beside
   * it) or by an older schema is first upgraded in place under the writer lock; while another process writes,
   * it is read as it is.
   */
  const openPublished = async (): Promise<Store> => {
    if (sqliteFileNeedsUpgrade(path)) {
      let session: LockSession | undefined;
      try {
        session = await lock({ command: 'kgrag (upgrading the index file)', wait: false });
      } catch (error) {
        if (!KgragError.isInstance(error) || error.code !== 'STORE_WRITER_BUSY') throw error;
      }
      if (session === undefined) return openSqliteStore(path, writable);
      try {
        upgradePublished();
      } finally {
        releaseLock(session);
      }
    }
    return openSqliteStore(path, { readonly: true, tables: writable.tables });
  };

  /** Rewrites the published file in place, once, under the writer lock (see `sqliteFileNeedsUpgrade`). */
  const upgradePublished = (): void => {
    if (sqliteFileNeedsUpgrade(path)) sealSqliteStore(openSqliteStore(path, writable));
  };

  const snapshot = async (): Promise<IndexSnapshot | undefined> => {
    const identity = fileIdentity();
    if (identity === undefined) return undefined;
    return generations.hold(identity, async () => {
      const store = await openPublished();
      return {
        store,
        generation: (await store.getMeta<number>(generationKey)) ?? 0,
        publishedAt: (await store.getMeta<string>(publishedAtKey)) ?? null,
        key: fileIdentity() ?? identity,
      };
    });
  };

  interface LockSession {
    token: string;
    holder: WriterHolder;
  }

  const lock = async (lockOptions: BeginWriteOptions): Promise<LockSession> => {
    mkdirSync(dirname(path), { recursive: true });
    const token = `${process.pid}:${Date.now()}:${tokenCounter++}`;
    const holder: WriterHolder = { ...currentProcessIdentity(), command: lockOptions.command, startedAt: now().toISOString() };
    let announced = false;
    for (;;) {
      lockOptions.signal?.throwIfAborted();
      let other: WriterHolder | undefined;
      try {
        other = state.tryLock(holder, token);
      } catch (error) {
        throw new KgragError(`cannot take the writer lock of the workspace: ${(error as Error).message}`, {
          code: 'STORE_LOCK_FAILED',
          category: 'store',
          hint: 'indexing needs write access to the workspace folder; check its permissions and free disk space',
          details: { path: state.path },
          cause: error,
        });
      }
      if (other === undefined) return { token, holder };
      if (lockOptions.wait === false) throw busyError(other);
      if (!announced) {
        announced = true;
        lockOptions.onWait?.(other);
      }
      await sleep(lockPollMs, undefined, lockOptions.signal === undefined ? {} : { signal: lockOptions.signal });
    }
  };

  const releaseLock = (session: LockSession): void => {
    state.unlock(session.token);
  };

  const busyError = (holder: WriterHolder): KgragError =>
    new KgragError(`the workspace is being written by another process: ${describeHolder(holder)}`, {
      code: 'STORE_WRITER_BUSY',
      category: 'input',
      hint: 'wait for it to finish (kgrag index waits by default; --no-wait fails at once), or stop that process — an interrupted run is resumed by the next one',
      details: { holder },
    });

  /**
   * How a draft is opened. An update's draft is private until it publishes, and sealing folds its write-ahead log into
   * it: a checkpoint at each commit (SQLite's default past 1,000 pages) copied the same pages into the file again step
   * after step, half of what a 1 % update of 2Wiki wrote. The log may grow to the published file's size (64 MB at
   * least) before one runs, so a large rewrite (a refresh) needs at most about twice the index's space.
   */
  const draftOptions = (): SqliteStoreOptions => {
    const size = statSync(path, { throwIfNoEntry: false })?.size;
    // Sealed before anyone reads it: replaced sparse vectors may wait in the tails (see the option).
    const draft = { ...writable, deferSparseReplacements: true };
    return size === undefined ? draft : { ...draft, autoCheckpointPages: Math.ceil(Math.max(64 * 1024 * 1024, size) / 4096) };
  };

  /**
   * The draft for this write: the one an earlier write left for the same published generation, else a fresh copy. A
   * draft whose seal was cut short (its marker is there) is not resumed: its log was folded in without a sync.
   */
  const openDraft = async (base: number): Promise<{ store: Store; resumed: boolean }> => {
    if (existsSync(sealingPath)) removeDraft();
    if (existsSync(draftPath)) {
      // Without its synced marker the draft's copy may not all be on the disk. A process that stopped (Ctrl-C, a kill,
      // a crash) left it in the machine's page cache all the same, but after the machine stopped pages of it could be
      // missing, which no check of SQLite's would notice: an unmarked draft is resumed only in the boot it was copied in.
      const marked = existsSync(syncedPath);
      if (marked || draftOfThisBoot()) {
        try {
          const store = openSqliteStore(draftPath, marked ? draftOptions() : { ...draftOptions(), unsyncedOpen: true });
          if ((await store.getMeta<number>(draftBaseKey)) === base) {
            // A marked draft has nothing left to sync: an earlier session's sync (failed, perhaps) is not this one's.
            draftSync = marked ? undefined : syncInBackground(store);
            return { store, resumed: true };
          }
          await store.close();
        } catch {
          // An unreadable draft (a copy cut short) holds nothing to resume.
        }
      }
      removeDraft();
    }
    // Markers left by a writer that stopped after publishing must not vouch for the next draft.
    rmSync(syncedPath, { force: true });
    writeFileSync(bootPath, currentBoot());
    if (existsSync(path)) {
      const partial = `${draftPath}.copying`;
      // A clone where the file system has them (Btrfs, XFS, APFS): the draft shares the published file's blocks until
      // it writes its own, instead of copying the whole index (190 MB for 2Wiki) before every update.
      copyFileSync(path, partial, constants.COPYFILE_FICLONE);
      renameSync(partial, draftPath);
    }
    const store = openSqliteStore(draftPath, { ...draftOptions(), unsyncedOpen: true });
    draftSync = syncInBackground(store);
    return { store, resumed: false };
  };

  /**
   * Syncs a fresh draft's file while the update runs, then marks it synced and lets its commits sync: the copy of the
   * published index (276 MB for 2Wiki) reaches the disk in the background instead of holding up the update for about
   * 0.2 s (the switch to the write-ahead log and the log's first commit each waited for it). Until the marker is there
   * the draft is resumed only in the boot of the machine it was copied in (`openDraft`); the sync is awaited before the
   * draft is sealed, and before the writer lock is released, so that no other writer's draft is ever marked.
   */
  const syncInBackground = (store: Store): DraftSync => {
    const sync: DraftSync = { cancelled: false, done: Promise.resolve(undefined) };
    sync.done = (async () => {
      const file = await open(draftPath, 'r');
      try {
        await file.sync();
      } finally {
        await file.close();
      }
      if (sync.cancelled) return;
      writeFileSync(syncedPath, '');
      syncFile(syncedPath);
      syncFile(dirname(path));
      // The copy is on the disk: the draft's commits are synced as any store's from here on.
      syncSqliteCommits(store);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    return sync;
  };

  /** Whether the draft was copied in this boot of the machine (its boot file names it). */
  const draftOfThisBoot = (): boolean => {
    try {
      return sameBoot(readFileSync(bootPath, 'utf8'), currentBoot());
    } catch {
      return false;
    }
  };

  /** Waits for the background sync of this process's draft; throws what failed it. */
  const draftSynced = async (): Promise<void> => {
    const failed = await draftSync?.done;
    if (failed !== undefined) throw failed;
  };

  /** Releases the writer lock once this process's draft is synced and marked, so that no later writer's draft is marked. */
  const releaseAfterSync = async (session: LockSession): Promise<void> => {
    try {
      await draftSynced();
    } catch {
      // A draft whose sync failed has no marker and is not resumed; the run reports its own error.
    } finally {
      releaseLock(session);
    }
  };

  const removeDraft = (): void => {
    if (draftSync) draftSync.cancelled = true;
    // The synced marker first and the sealing marker last: a removal cut short is done again by the next writer.
    for (const suffix of ['.synced', '.boot', '', '-wal', '-shm', '-journal', '.copying', '.sealing']) rmSync(`${draftPath}${suffix}`, { force: true });
  };

  /** The state file's record of the last write, or undefined when the file cannot be read. */
  const lastWriteRecord = (): WriteRecord | undefined => {
    try {
      return state.writeRecord();
    } catch {
      return undefined;
    }
  };

  const beginWrite = async (writeOptions: BeginWriteOptions): Promise<WriteSession> => {
    const session = await lock(writeOptions);
    /** The record this write keeps, once it has written it. */
    let started: WriteRecord | undefined;
    try {
      // The open generation is closed before its file is rewritten in place.
      if (sqliteFileNeedsUpgrade(path)) generations.retire();
      upgradePublished();
      let base = -1;
      if (fileIdentity() !== undefined) {
        const published = await snapshot();
        if (published) {
          base = published.generation;
          published.release();
        }
      }
      const generation = base + 1;
      // Recorded before the draft is touched: a writer killed from here on leaves a record readers report.
      const earlier = lastWriteRecord();
      let record = startedWriteRecord(session.holder, generation, earlier?.deleting, writeOptions.deleting);
      state.setWriteRecord((started = record));
      const { store, resumed } = await openDraft(base);
      if (!resumed) {
        await store.setMeta(draftBaseKey, base);
        // A fresh draft holds no earlier write's deletions.
        if ((earlier?.deleting.length ?? 0) > 0) state.setWriteRecord((started = record = startedWriteRecord(session.holder, generation, [], writeOptions.deleting)));
      }
      return draftWriteSession(store, { generation, resumed, record, now, resumedFrom: earlier?.generation === generation ? earlier : undefined }, {
        async publish(draft) {
          await draftSynced();
          await store.setMeta(draftBaseKey, null);
          // Marked (durably) before the log is folded in without a sync, and the file synced once before the rename:
          // a crash in between leaves a draft that may miss pages, which the marker keeps from being resumed (the
          // draft base cleared above says the same, but sits in one of the pages that may be missing).
          writeFileSync(sealingPath, '');
          syncFile(sealingPath);
          syncFile(dirname(path));
          sealSqliteStore(store, { unsynced: true });
          draft.closed();
          syncFile(draftPath);
          renameSync(draftPath, path);
          syncFile(dirname(path));
          rmSync(syncedPath, { force: true });
          rmSync(bootPath, { force: true });
        },
        async published() {
          rmSync(sealingPath, { force: true });
          state.setWriteRecord(undefined);
        },
        async discard() {
          removeDraft();
          state.setWriteRecord(undefined);
        },
        async saveRecord(current) {
          state.setWriteRecord(current);
        },
        async recordEnd(ended) {
          if (ended) state.setWriteRecord(ended);
        },
        release: () => releaseAfterSync(session),
      });
    } catch (error) {
      return failedWriteSetup(error, { started, now, recordEnd: async (ended) => state.setWriteRecord(ended), release: () => releaseAfterSync(session) });
    }
  };

  const queryCache = layeredQueryCache(
    {
      get: (key) => state.getCached(key),
      set(key, value, createdAt) {
        state.setCached(key, value, createdAt);
      },
    },
    now,
  );

  const clearQueryCache = async (): Promise<number> => {
    const inMemory = queryCache.clearMemory();
    try {
      // The process's copies are a subset of the file's, unless the file could not be written when they were made.
      return Math.max(inMemory, state.clearCached());
    } catch (error) {
      throw new KgragError(`cannot clear the query cache of the workspace: ${(error as Error).message}`, {
        code: 'STORE_QUERY_CACHE_CLEAR_FAILED',
        category: 'store',
        hint: 'deleting documents needs write access to the workspace folder; check its permissions and free disk space',
        details: { path: state.path },
        cause: error,
      });
    }
  };

  return {
    location: path,
    snapshot,
    beginWrite,
    queryCache,
    clearQueryCache,
    async status(): Promise<WorkspaceStatus> {
      const published = fileIdentity() === undefined ? undefined : await snapshot();
      published?.release();
      let writer: WriterHolder | undefined;
      let unpublished: UnpublishedRun | undefined;
      try {
        writer = state.writer();
        unpublished = unpublishedRunOf(state.writeRecord(), published?.generation, isProcessRunning);
        // A writer that ended its write just after the record was read: its process may be gone, its record replaced.
        if (unpublished?.processGone) unpublished = unpublishedRunOf(state.writeRecord(), published?.generation, isProcessRunning);
      } catch {
        // A state file that cannot be read says nothing about other processes.
      }
      return { generation: published?.generation, publishedAt: published?.publishedAt ?? null, writer, unpublished };
    },
    async close() {
      generations.retire();
      state.close();
    },
  };
}

/**
 * What names this boot of the machine: Linux's boot id, else the boot time in seconds (the clock less the uptime), which
 * {@link sameBoot} compares within a few seconds. A draft copied in this boot is in the page cache or on the disk.
 */
function currentBoot(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return `boot-time:${Math.round(Date.now() / 1000 - uptime())}`;
  }
}

/** Whether two {@link currentBoot} values name one boot. */
function sameBoot(recorded: string, current: string): boolean {
  if (recorded.trim() === current) return true;
  const [earlier, now] = [recorded.trim(), current].map((boot) => /^boot-time:(-?\d+)$/.exec(boot)?.[1]);
  return earlier !== undefined && now !== undefined && Math.abs(Number(earlier) - Number(now)) <= 5;
}

/** The background sync of a fresh draft (see `syncInBackground`): what failed it, if anything, once done. */
interface DraftSync {
  done: Promise<unknown>;
  /** The draft was removed: its marker is not written. */
  cancelled: boolean;
}

function syncFile(path: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, 'r');
    fsyncSync(descriptor);
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic, only its durability is weaker.
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}
