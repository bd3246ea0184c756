import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { openWorkspace } from '../open-workspace.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/** At most one line about an unreachable database in this long. */
const storeLineEveryMs = 30_000;

/**
 * `kgrag worker`: takes shards of LLM work from the index runs of this workspace's Postgres database and makes their
 * calls, one shard at a time, until Ctrl-C (or SIGTERM). Stopping is normal: the shard in progress goes back to
 * the queue after its lease, and its finished calls stay cached. A database that is away is waited for, not a reason
 * to exit; a shard the worker refuses (its settings differ from the run's) is said on stderr.
 */
export async function workerCommand(global: GlobalOptions, io: CliIo): Promise<void> {
  const kgrag = await openWorkspace(workspaceOptions(global, io), io);
  const stop = new AbortController();
  const onSignal = (): void => {
    if (!stop.signal.aborted) writeLine(io.stderr, '\nstopping: the shard in progress goes back to the queue');
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
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
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await kgrag.close();
  }
}
