import { createKgrag } from '../../api/create-kgrag.js';
import { KgragError } from '../../core/errors.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { jobProcessRunner } from '../../server/serve-workspaces.js';
import { createWorkspaceRegistry } from '../../server/workspace-registry.js';
import { servedWorkspaceOptions } from '../served-workspace-options.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { openWorkspace } from '../open-workspace.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/** At most one line about an unreachable database in this long. */
const storeLineEveryMs = 30_000;

/** Options of `kgrag worker`. */
export interface WorkerCommandOptions {
  /** `shards` (LLM calls of running index runs) or `indexer` (whole index jobs). @default 'shards' */
  role?: 'shards' | 'indexer';
  /** With `--role indexer`: a folder of workspaces. */
  workspaces?: string;
}

/** How often an indexer worker of a folder of workspaces looks for new ones. */
const workspaceScanMs = 10_000;

/**
 * `kgrag worker --role indexer`: runs the index and delete jobs that `kgrag serve` queued in the Postgres database —
 * each in a process of its own, as the server would — so that query servers (`server.indexJobs: workers`) only read.
 * Several workers share the queue: each job runs once, under a lease the worker renews, and a job whose worker died is
 * taken over by another after the lease. Ctrl-C (or SIGTERM) gives the running job back, to be resumed.
 */
async function indexerWorker(options: WorkerCommandOptions, global: GlobalOptions, io: CliIo, signals: NodeJS.EventEmitter): Promise<void> {
  const { folder, directory, loaded, opened, stores } = await servedWorkspaceOptions(options.workspaces, {}, global, io);
  const config = loaded.config.server;
  const say = (line: string): void => {
    if (global.quiet !== true) writeLine(io.stderr, `kgrag worker: ${line}`);
  };
  let lastStoreLine = Number.NEGATIVE_INFINITY;
  const registry = createWorkspaceRegistry({
    layout: folder === undefined ? 'single' : 'folder',
    directory,
    openKgrag: (workspace) => createKgrag({ workspace, ...opened, stores }),
    jobRunner: jobProcessRunner(opened, config, false),
    onJobEvent: (name, job, event) => {
      if (event.type === 'pipeline-start') say(`${name}: ${job.id} running (${job.kind}${job.resumed > 0 ? `, resumed ${job.resumed}×` : ''})`);
    },
    onJobEnded: (name, job) => {
      const error = job.error === null ? '' : `: ${sanitizeForTerminal(job.error.message)}`;
      writeLine(io.stderr, `kgrag worker: ${name}: ${job.id} ${job.status}${error}`);
    },
    sharedJobs: {
      runsJobs: true,
      command: 'kgrag worker',
      leaseSeconds: config.jobLeaseSeconds,
      onError: (name, error) => {
        if (performance.now() - lastStoreLine < storeLineEveryMs) return;
        lastStoreLine = performance.now();
        writeLine(io.stderr, `kgrag worker: ${name}: ${sanitizeForTerminal(error instanceof Error ? error.message : String(error))}; retrying (Ctrl-C stops)`);
      },
      refuseUnshared: { reason: 'a worker runs the jobs that servers queue in a Postgres database', hint: 'set store.backend: postgres, or let kgrag serve run the jobs (server.indexJobs: here)' },
    },
  });
  const opening = new Set<string>();
  const openAll = async (): Promise<void> => {
    for (const name of registry.names()) {
      if (opening.has(name)) continue;
      opening.add(name);
      await registry.open(name);
    }
  };
  try {
    await openAll();
    say(`running the index jobs of ${sanitizeForTerminal(directory)}${folder === undefined ? '' : ` (${opening.size} workspaces)`} (Ctrl-C stops)`);
    await new Promise<void>((resolveStop) => {
      const scan = folder === undefined ? undefined : setInterval(() => void openAll().catch((error: unknown) => say(sanitizeForTerminal(String(error)))), workspaceScanMs);
      const stop = (signal: string): void => {
        clearInterval(scan);
        say(`${signal}: giving the running job back, to be resumed`);
        resolveStop();
      };
      signals.once('SIGTERM', () => stop('SIGTERM'));
      signals.once('SIGINT', () => stop('SIGINT'));
    });
  } finally {
    await registry.close();
  }
}

/**
 * `kgrag worker`: takes shards of LLM work from the index runs of this workspace's Postgres database and makes their
 * calls, one shard at a time, until Ctrl-C (or SIGTERM). Stopping is normal: the shard in progress goes back to
 * the queue after its lease, and its finished calls stay cached. A database that is away is waited for, not a reason
 * to exit; a shard the worker refuses (its settings differ from the run's) is said on stderr.
 */
export async function workerCommand(options: WorkerCommandOptions, global: GlobalOptions, io: CliIo, signals: NodeJS.EventEmitter = process): Promise<void> {
  if (options.role === 'indexer') return indexerWorker(options, global, io, signals);
  if (options.workspaces !== undefined) {
    throw new KgragError('--workspaces is for --role indexer: a shards worker works for the index runs of one workspace', {
      code: 'CLI_WORKER_WORKSPACES',
      category: 'input',
      hint: 'add --role indexer, or give the workspace with -w',
    });
  }
  const kgrag = await openWorkspace(workspaceOptions(global, io), io);
  const stop = new AbortController();
  const onSignal = (): void => {
    if (!stop.signal.aborted) writeLine(io.stderr, '\nstopping: the shard in progress goes back to the queue');
    stop.abort();
  };
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);
  // The database's errors come from every poll while it is away: one line per outage, or per half-minute of one.
  let lastStoreLine = Number.NEGATIVE_INFINITY;
  try {
    if (global.quiet !== true) writeLine(io.stderr, `kgrag worker: waiting for index runs on ${sanitizeForTerminal(kgrag.workspace)} (Ctrl-C stops)`);
    const summary = await kgrag.work({
      signal: stop.signal,
      onStoreError: (error, retryInSeconds) => {
        if (performance.now() - lastStoreLine < storeLineEveryMs) return;
        lastStoreLine = performance.now();
        const retry = retryInSeconds === undefined ? 'retrying' : `retrying in ${retryInSeconds} s`;
        writeLine(io.stderr, `kgrag worker: ${sanitizeForTerminal(error.message)}; ${retry} (Ctrl-C stops)`);
      },
      onRefused: (refusal) => {
        writeLine(io.stderr, `kgrag worker: refused ${refusal.step} shard ${refusal.index + 1}/${refusal.count}: ${sanitizeForTerminal(refusal.error.message)}${refusal.error.hint ? ` — ${refusal.error.hint}` : ''}`);
      },
      onShard: (shard) => {
        if (global.quiet !== true) {
          const round = shard.round > 0 ? `, round ${shard.round + 1}` : '';
          writeLine(io.stderr, `${shard.step}: shard ${shard.index + 1}/${shard.count}${round}: ${shard.items} items, ${shard.calls} calls`);
        }
      },
    });
    writeLine(io.stdout, `${summary.shards} shards, ${summary.calls} calls`);
  } finally {
    signals.off('SIGINT', onSignal);
    signals.off('SIGTERM', onSignal);
    await kgrag.close();
  }
}
