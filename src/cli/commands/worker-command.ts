import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { openWorkspace } from '../open-workspace.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/**
 * `kgrag worker`: takes shards of LLM work from the index runs of this workspace's Postgres database and makes their
 * calls, one shard at a time, until Ctrl-C (or SIGTERM). Stopping is normal: the shard in progress goes back to
 * the queue after its lease, and its finished calls stay cached.
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
  try {
    if (global.quiet !== true) writeLine(io.stderr, `kgrag worker: waiting for index runs on ${sanitizeForTerminal(kgrag.workspace)} (Ctrl-C stops)`);
    const summary = await kgrag.work({
      signal: stop.signal,
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
