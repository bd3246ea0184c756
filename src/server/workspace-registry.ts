import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, type Stats } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import type { Kgrag } from '../api/create-kgrag.js';
import { KgragError } from '../core/errors.js';
import { httpError } from './http-problem.js';
import type { PipelineEvent } from '../pipeline/pipeline-step.js';
import { type IndexJobQueue, type JobView, openIndexJobQueue } from './index-job-queue.js';
import { inProcessJobRunner, type JobRunner, uploadSource } from './job-runner.js';
import { openSharedIndexJobQueue } from './shared-index-job-queue.js';
import { writeUpload } from './write-upload.js';

/** What is at `path` itself (a link is not followed), or undefined when nothing is. */
function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Refuses a workspace whose uploads or jobs folder is a link or a file: the server writes and deletes files there,
 * and through a link it would do so outside the workspace.
 */
function checkServerFolders(name: string, directory: string): void {
  for (const folder of [uploadsFolder, jobsFolder]) {
    const entry = entryAt(join(directory, folder));
    if (entry === undefined || (entry.isDirectory() && !entry.isSymbolicLink())) continue;
    throw httpError(
      500,
      'SERVER_UNSAFE_WORKSPACE_FOLDER',
      `the ${folder} folder of workspace "${name}" is ${entry.isSymbolicLink() ? 'a link' : 'not a folder'}: the server writes and deletes files there, so it must be a folder inside the workspace`,
      `replace ${folder} in the workspace by a plain folder (move what it holds into it)`,
    );
  }
}

/** One workspace as the server holds it: one open `Kgrag` shared by every request, and its job queue. */
export interface ServedWorkspace {
  readonly name: string;
  readonly directory: string;
  readonly kgrag: Kgrag;
  readonly jobs: IndexJobQueue;
  /** Where uploaded files are stored (and indexed from). */
  readonly uploads: string;
}

/** The workspaces a server serves: one (`-w dir`) or every folder of a parent (`--workspaces dir`). */
export interface WorkspaceRegistry {
  /** `single`: endpoints at `/v1/…`; `folder`: at `/v1/workspaces/{name}/…`. */
  readonly layout: 'single' | 'folder';
  /** Names of the workspaces (folder layout: sub-folders with a valid name; single: the one). */
  names(): string[];
  /** The workspaces whose opening has finished (asking opens none and waits for none). */
  loaded(): ServedWorkspace[];
  /** Opens (once) and returns a workspace; a 404 problem for an unknown name, 400 for an invalid one. */
  open(name: string): Promise<ServedWorkspace>;
  /** Creates a workspace folder (folder layout only) and opens it. */
  create(name: string): Promise<ServedWorkspace>;
  /** Stops taking jobs and interrupts the running ones (kept for the next start); resolves when they have stopped. */
  stopJobs(): Promise<void>;
  /** Interrupts running jobs (kept for the next start) and closes every workspace. */
  close(): Promise<void>;
}

/** The one workspace of the single layout, for routes that carry no name. */
export const singleWorkspaceName = 'default';

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Folders the server keeps inside a workspace. */
export const jobsFolder = '.kgrag-jobs';
export const uploadsFolder = 'uploads';

/** Options of {@link createWorkspaceRegistry}. */
export interface WorkspaceRegistryOptions {
  /** `single` with the workspace folder, or `folder` with the parent of the workspaces. */
  layout: 'single' | 'folder';
  directory: string;
  /** Opens a workspace folder (createKgrag with the server's settings). */
  openKgrag: (directory: string) => Promise<Kgrag>;
  /** Called when a workspace is opened and after each of its jobs that published a new index. */
  onIndexReady?: (workspace: ServedWorkspace) => void;
  /** How a workspace's jobs run. @default in this process, on the workspace's open `Kgrag` */
  jobRunner?: (directory: string, kgrag: Kgrag) => JobRunner;
  /** Hears every pipeline event of a workspace's jobs (metrics). */
  onJobEvent?: (workspace: string, job: JobView, event: PipelineEvent) => void;
  /** Hears every job that ended, with how (metrics). */
  onJobEnded?: (workspace: string, job: JobView) => void;
  /**
   * Jobs of workspaces whose store shares them (Postgres): whether this process runs them or only queues and reads
   * them (query servers beside indexer workers), how it names itself in a job's writer, and its lease.
   */
  sharedJobs?: {
    runsJobs?: boolean;
    command?: string;
    leaseSeconds?: number;
    onError?: (workspace: string, error: unknown) => void;
    /** Why a workspace whose jobs are one server's files cannot be served so (a worker, or a server that runs no job), and the fix. */
    refuseUnshared?: { reason: string; hint: string };
  };
}

/**
 * Keeps one open workspace per name. A name is letters, digits, `_` and `-` (no dots, no separators), and its
 * folder must be a folder directly inside the parent, not a link, so no name can reach a path outside it (or open
 * another workspace a second time).
 */
export function createWorkspaceRegistry(options: WorkspaceRegistryOptions): WorkspaceRegistry {
  const root = resolve(options.directory);
  const open = new Map<string, Promise<ServedWorkspace>>();
  /** The workspaces whose opening finished, for readers that must not wait or open (metrics). */
  const ready = new Map<string, ServedWorkspace>();
  let closing = false;

  const directoryOf = (name: string): string => {
    if (options.layout === 'single') {
      if (name !== singleWorkspaceName) throw httpError(404, 'SERVER_UNKNOWN_WORKSPACE', `no workspace named "${name}": this server serves one workspace`, 'use the endpoints under /v1/ without a workspace name');
      return root;
    }
    if (!namePattern.test(name)) {
      throw httpError(400, 'SERVER_INVALID_WORKSPACE_NAME', `invalid workspace name "${name.slice(0, 80)}"`, 'use 1–64 letters, digits, "_" or "-", starting with a letter or digit');
    }
    const directory = resolve(root, name);
    if (!directory.startsWith(root + sep)) throw httpError(400, 'SERVER_INVALID_WORKSPACE_NAME', `invalid workspace name "${name}"`, 'use letters, digits, "_" or "-"');
    return directory;
  };

  const load = (name: string, directory: string): Promise<ServedWorkspace> => {
    let pending = open.get(name);
    if (!pending) {
      pending = (async () => {
        checkServerFolders(name, directory);
        const kgrag = await options.openKgrag(directory);
        const runner = options.jobRunner?.(directory, kgrag) ?? inProcessJobRunner(async () => kgrag);
        const onEvent = options.onJobEvent === undefined ? {} : { onEvent: (job: JobView, event: PipelineEvent) => options.onJobEvent?.(name, job, event) };
        const ended = (job: JobView): void => {
          options.onJobEnded?.(name, job);
          // A job ends long after the workspace opened: its entry is there.
          if (job.status === 'succeeded') void open.get(name)?.then((workspace) => options.onIndexReady?.(workspace));
        };
        const shared = kgrag.sharedJobs();
        const refusal = options.sharedJobs?.refuseUnshared;
        if (shared === undefined && refusal !== undefined) {
          await kgrag.close();
          throw new KgragError(`workspace "${name}" keeps its index in SQLite, whose jobs are files of the one server that serves it: ${refusal.reason}`, {
            code: 'SERVER_JOBS_NOT_SHARED',
            category: 'config',
            hint: refusal.hint,
          });
        }
        const jobs: IndexJobQueue = shared
          ? openSharedIndexJobQueue({
              store: shared,
              runner,
              runsJobs: options.sharedJobs?.runsJobs ?? true,
              ...(options.sharedJobs?.command === undefined ? {} : { command: options.sharedJobs.command }),
              ...(options.sharedJobs?.leaseSeconds === undefined ? {} : { leaseSeconds: options.sharedJobs.leaseSeconds }),
              ...onEvent,
              onError: (error) => options.sharedJobs?.onError?.(name, error),
              onEnded: async (job) => ended(job),
            })
          : openIndexJobQueue({
              directory: join(directory, jobsFolder),
              runner,
              ...onEvent,
              storeUploads: (files) => files.map((file) => writeUpload(join(directory, uploadsFolder), file)),
              onEnded: async (job, request) => {
                ended(job);
                // An uploaded file is a copy of its document: deleting the document deletes it; a file from which no
                // indexed document comes when its job ends goes too — the job failed or was cancelled, or skipped the
                // file (binary, too large, unreadable) — unless a job still waiting names it (a later upload of that name).
                if (request.kind === 'delete' && job.status === 'succeeded') for (const path of request.files) rmSync(path, { force: true });
                if (request.kind === 'index' && request.paths.length > 0) {
                  const sources = new Set((await kgrag.documents()).map((document) => document.source.split('#')[0]));
                  const waitingFiles = new Set(
                    (await jobs.list())
                      .filter((other) => other.id !== job.id && (other.status === 'queued' || other.status === 'running'))
                      .flatMap((other) => other.input.files),
                  );
                  for (const path of request.paths) if (!sources.has(uploadSource(path)) && !sources.has(path) && !waitingFiles.has(basename(path))) rmSync(path, { force: true });
                }
              },
            });
        const workspace: ServedWorkspace = { name, directory, kgrag, jobs, uploads: join(directory, uploadsFolder) };
        options.onIndexReady?.(workspace);
        return workspace;
      })();
      open.set(name, pending);
      pending.then((workspace) => ready.set(name, workspace)).catch(() => open.delete(name));
    }
    return pending;
  };

  /** The workspaces that opened (one that failed to open has nothing to stop or close). */
  const opened = async (): Promise<ServedWorkspace[]> =>
    (await Promise.allSettled([...open.values()])).flatMap((settled) => (settled.status === 'fulfilled' ? [settled.value] : []));
  const stopJobs = async (): Promise<void> => {
    await Promise.all((await opened()).map((workspace) => workspace.jobs.shutdown()));
  };

  return {
    layout: options.layout,
    loaded() {
      return [...ready.values()];
    },
    names() {
      if (options.layout === 'single') return [singleWorkspaceName];
      if (!existsSync(root)) return [];
      return readdirSync(root, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && namePattern.test(entry.name))
        .map((entry) => entry.name)
        .sort();
    },
    async open(name) {
      if (closing) throw httpError(503, 'SERVER_SHUTTING_DOWN', 'the server is shutting down', 'retry once it is back', 5);
      const directory = directoryOf(name);
      if (options.layout === 'folder') {
        const entry = entryAt(directory);
        if (entry?.isSymbolicLink()) {
          throw httpError(404, 'SERVER_UNKNOWN_WORKSPACE', `no workspace named "${name}": it is a link, and a workspace must be a folder inside the served folder`, 'replace the link by a folder, or serve the folder it leads to with its own kgrag serve');
        }
        if (entry === undefined || !entry.isDirectory()) {
          throw httpError(404, 'SERVER_UNKNOWN_WORKSPACE', `no workspace named "${name}"`, 'create it with POST /v1/workspaces {"name": …}, or list them with GET /v1/workspaces');
        }
      }
      return load(name, directory);
    },
    async create(name) {
      if (options.layout === 'single') throw httpError(405, 'SERVER_SINGLE_WORKSPACE', 'this server serves one workspace and cannot create others', 'start it with --workspaces <dir> to serve a folder of workspaces');
      const directory = directoryOf(name);
      if (entryAt(directory) !== undefined) throw httpError(409, 'SERVER_WORKSPACE_EXISTS', `workspace "${name}" exists already`, 'choose another name, or use the existing one');
      mkdirSync(directory, { recursive: true });
      return load(name, directory);
    },
    stopJobs,
    async close() {
      closing = true;
      await stopJobs();
      for (const workspace of await opened()) await workspace.kgrag.close();
    },
  };
}
