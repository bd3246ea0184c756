import { KgragError } from './errors.js';

/** What kgrag was doing when the system refused, for the message. */
export interface EnvironmentErrorContext {
  /** A phrase that completes "while …", e.g. `writing the index database`, `reading kgrag.yaml`. */
  doing?: string;
  /** The file or folder involved; else the one the error names, if any. */
  path?: string;
}

interface Classified {
  code: string;
  /** What happened, as a sentence start; the path and the activity are appended. */
  what: string;
  hint: (place: string) => string;
  category?: KgragError['category'];
}

const diskFull: Classified = {
  code: 'ENV_DISK_FULL',
  what: 'the disk is full',
  hint: (place) => `free space on the disk that holds ${place} (df -h shows how much is left) or raise the disk quota, then run the command again`,
};
const readOnly: Classified = {
  code: 'ENV_READ_ONLY',
  what: 'the file or its file system is read-only',
  hint: (place) =>
    `make ${place} and its folder writable (chmod u+w, or remount the file system read-write), or copy the workspace to a writable folder and use that`,
};
const permissionDenied: Classified = {
  code: 'ENV_PERMISSION_DENIED',
  what: 'permission was denied',
  hint: (place) => `check the owner and permissions of ${place} and its folder (ls -l), or use a workspace this user may read and write`,
};
const locked: Classified = {
  code: 'ENV_DATABASE_LOCKED',
  what: 'the index database is locked by another process',
  hint: () => 'another kgrag command that writes this workspace (an index run, for one) holds the lock; wait for it to finish, then run the command again',
};
const tooManyFiles: Classified = {
  code: 'ENV_TOO_MANY_OPEN_FILES',
  what: 'the process has too many open files',
  hint: () => 'raise the open-file limit (e.g. ulimit -n 8192) or lower llm.concurrency and embeddings.concurrency, then run the command again',
};
const nameTooLong: Classified = {
  code: 'ENV_NAME_TOO_LONG',
  what: 'the path is too long for the file system',
  hint: () => 'use a shorter workspace path or shorter file and folder names',
};
const ioError: Classified = {
  code: 'ENV_IO_ERROR',
  what: 'the disk reported an input/output error',
  hint: (place) => `check the drive that holds ${place} (dmesg, df -h) and that it is still mounted, then run the command again`,
};
const cannotOpen: Classified = {
  code: 'ENV_CANNOT_OPEN',
  what: 'the file cannot be opened',
  hint: (place) => `check that the folder of ${place} exists and this user may create and write files in it`,
};
const corrupt: Classified = {
  code: 'STORE_CORRUPT',
  category: 'store',
  what: 'the file is damaged or is not an SQLite database',
  hint: (place) =>
    `check that store.path names a kgrag index (not another file); to build a fresh index keep ${place} aside and point store.path or -w at a new location, or restore the file from a backup`,
};

const moduleMissing: Classified = {
  code: 'ENV_MODULE_MISSING',
  what: 'a package kgrag needs is not installed',
  hint: () =>
    'reinstall kgrag with its dependencies (npm install kgrag; an install with --omit=dev keeps them); in a checkout of kgrag run npm ci',
};

const byCode: ReadonlyMap<string, Classified> = new Map([
  ['ENOSPC', diskFull],
  ['EDQUOT', diskFull],
  ['EFBIG', diskFull],
  ['SQLITE_FULL', diskFull],
  ['EROFS', readOnly],
  ['EACCES', permissionDenied],
  ['EPERM', permissionDenied],
  ['SQLITE_PERM', permissionDenied],
  ['SQLITE_AUTH', permissionDenied],
  ['EMFILE', tooManyFiles],
  ['ENFILE', tooManyFiles],
  ['ENAMETOOLONG', nameTooLong],
  ['EIO', ioError],
  ['SQLITE_CANTOPEN', cannotOpen],
  ['SQLITE_CORRUPT', corrupt],
  ['SQLITE_NOTADB', corrupt],
  ['ERR_MODULE_NOT_FOUND', moduleMissing],
]);

/** The SQLite result code families whose extended codes (`SQLITE_READONLY_DBMOVED`, `SQLITE_BUSY_SNAPSHOT`…) mean the same. */
const byCodePrefix: ReadonlyArray<readonly [string, Classified]> = [
  ['SQLITE_READONLY', readOnly],
  ['SQLITE_BUSY', locked],
  ['SQLITE_LOCKED', locked],
  ['SQLITE_IOERR', ioError],
  ['SQLITE_CANTOPEN', cannotOpen],
  ['SQLITE_CORRUPT', corrupt],
  ['SQLITE_FULL', diskFull],
];

/**
 * Turns an error raised by the machine rather than by kgrag or its input — a full disk, a read-only or
 * unwritable file, a locked database, too many open files, a path too long, an I/O error, a package missing from the
 * install — into a
 * {@link KgragError} of category `environment` that says what happened, where, and what to do; `undefined`
 * for any other error. Node errors are matched by their `code` (`ENOSPC`…), SQLite errors by theirs
 * (`SQLITE_FULL`…), through the `cause` chain. Used where files and the database are written, and by the CLI
 * as a last resort so that such failures are never reported as bugs. No hint ever suggests deleting an index.
 */
export function toEnvironmentError(error: unknown, context: EnvironmentErrorContext = {}): KgragError | undefined {
  if (KgragError.isInstance(error)) return undefined;
  for (const candidate of causeChain(error)) {
    const code = (candidate as { code?: unknown }).code;
    const classified = typeof code === 'string' ? classify(code) : /database is locked/i.test(messageOf(candidate)) ? locked : undefined;
    if (classified === undefined) continue;
    const path = context.path ?? pathOf(candidate);
    const place = path === undefined ? 'the workspace' : `"${path}"`;
    const where = path === undefined ? '' : ` (${path})`;
    const doing = context.doing === undefined ? '' : ` while ${context.doing}`;
    return new KgragError(`${capitalize(classified.what)}${doing}${where}: ${messageOf(candidate)}`, {
      code: classified.code,
      category: classified.category ?? 'environment',
      hint: classified.hint(place),
      details: { systemCode: code, ...(path === undefined ? {} : { path }) },
      cause: error,
    });
  }
  return undefined;
}

function classify(code: string): Classified | undefined {
  return byCode.get(code) ?? byCodePrefix.find(([prefix]) => code.startsWith(prefix))?.[1];
}

function* causeChain(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  for (let current = error; typeof current === 'object' && current !== null && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    yield current;
  }
}

function pathOf(error: unknown): string | undefined {
  const path = (error as { path?: unknown }).path;
  return typeof path === 'string' ? path : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
