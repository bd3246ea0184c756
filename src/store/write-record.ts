import type { ProcessIdentity } from '../core/process-identity.js';
import type { RunDocument, UnpublishedEnd, UnpublishedRun, WriterHolder } from './workspace-storage.js';

/**
 * What a workspace keeps about its last write, from the moment the write starts until it publishes or its draft is
 * discarded. A write records `running` before it touches the draft, so that a process killed with SIGKILL (which
 * records nothing more) leaves a record that readers can tell from a write still in progress: its process is gone.
 */
export interface WriteRecord extends Pick<UnpublishedRun, 'step' | 'error' | 'command' | 'startedAt' | 'deleting'> {
  status: 'running' | UnpublishedRun['status'];
  /** When it ended, or when it started while it runs. */
  at: string;
  /** The generation its draft publishes as: a record of a generation already published is stale (null: not known). */
  generation: number | null;
  /** The writer's process, while it runs (null once it ended the write, and in records of older kgrag versions). */
  process: ProcessIdentity | null;
}

/**
 * The record of a write by `holder` that starts now, to publish as `generation`, replacing any earlier one; `kept` are
 * the deletions of an earlier write whose draft it may resume, `planned` the documents it is to delete
 * (`BeginWriteOptions.deleting`).
 */
export function startedWriteRecord(holder: WriterHolder, generation: number, kept: readonly RunDocument[] = [], planned: readonly RunDocument[] = []): WriteRecord {
  const { command, startedAt, ...identity } = holder;
  return withDeletions({ status: 'running', step: null, error: null, at: startedAt, command, startedAt, deleting: [...kept], generation, process: identity }, planned);
}

/** `record` with `documents` added to what it deletes (each once, in the order first recorded). */
export function withDeletions(record: WriteRecord, documents: readonly RunDocument[]): WriteRecord {
  const deleting = [...record.deleting];
  const known = new Set(deleting.map((document) => document.id));
  for (const { id, title } of documents) {
    if (known.has(id)) continue;
    known.add(id);
    deleting.push({ id, title });
  }
  return { ...record, deleting };
}

/** `record` of a write that ended at `at` without publishing, as its writer said (interrupted when it said nothing). */
export function endedWriteRecord(record: WriteRecord, end: UnpublishedEnd | undefined, at: string): WriteRecord {
  return { ...record, status: end?.status ?? 'interrupted', step: end?.step ?? null, error: end?.error ?? null, at, process: null };
}

/**
 * What readers are told of `record`: nothing while its writer runs (`running` says whether it does) or once its
 * generation is published (a writer killed between publishing and clearing its record), else how it ended — a
 * running record whose process is gone was interrupted by that process stopping.
 */
export function unpublishedRunOf(
  record: WriteRecord | undefined,
  published: number | undefined,
  running: (process: ProcessIdentity) => boolean,
): UnpublishedRun | undefined {
  if (record === undefined) return undefined;
  if (record.generation !== null && published !== undefined && published >= record.generation) return undefined;
  const { status, step, error, at, command, startedAt, deleting } = record;
  if (status !== 'running') return { status, step, error, at, command, startedAt, deleting, processGone: false };
  if (record.process === null || running(record.process)) return undefined;
  return { status: 'interrupted', step, error, at, command, startedAt, deleting, processGone: true };
}

/**
 * A record as a storage read it back (JSON from a database, or a row of an older state file, which knew only how a
 * run ended): missing fields get their empty values.
 */
export function readWriteRecord(value: unknown): WriteRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Partial<WriteRecord>;
  if (stored.status !== 'running' && stored.status !== 'failed' && stored.status !== 'interrupted') return undefined;
  return {
    status: stored.status,
    step: stored.step ?? null,
    error: stored.error ?? null,
    at: stored.at ?? stored.startedAt ?? '',
    command: stored.command ?? null,
    startedAt: stored.startedAt ?? null,
    deleting: Array.isArray(stored.deleting) ? stored.deleting : [],
    generation: typeof stored.generation === 'number' ? stored.generation : null,
    process: stored.process ?? null,
  };
}
