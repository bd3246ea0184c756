import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import type { IndexedDocument } from '../../api/create-kgrag.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { formatDryRun } from '../format-dry-run.js';
import { handleInterrupts } from '../handle-interrupts.js';
import { integerFormat as integer } from '../number-format.js';
import { openWorkspace } from '../open-workspace.js';
import { llmPriceOf } from '../llm-price-of.js';
import { createProgressRenderer } from '../progress-renderer.js';
import { createRetryReporter } from '../retry-reporter.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';
import { writerLockOptions } from '../writer-lock-options.js';

/** Options of `kgrag delete`. */
export interface DeleteCommandOptions {
  mode?: 'fast' | 'standard';
  dryRun?: boolean;
  keepCache?: boolean;
  json?: boolean;
  /** `--no-wait`: fail at once when another process is writing the workspace. */
  wait?: boolean;
}

function documentLine(document: IndexedDocument): string {
  return `  ${document.id.slice(0, 12)}  ${sanitizeForTerminal(document.title)}  ${sanitizeForTerminal(document.source)}`;
}

/**
 * `kgrag delete <selectors…>`: removes the chosen documents and everything derived only from them, brings the index
 * up to date and publishes it; says which documents went and whether their cached LLM replies went too. With
 * `--dry-run`, lists the documents and the LLM cost of the update, changing nothing. Ctrl-C stops like `kgrag index`.
 */
export async function deleteCommand(selectors: string[], options: DeleteCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  const kgrag = await openWorkspace(workspaceOptions(global, io, options.mode ? { index: { mode: options.mode } } : {}), io);
  const priced = llmPriceOf(kgrag).price !== undefined;
  const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true, priced: () => priced });
  try {
    if (options.dryRun) {
      const estimate = await kgrag.estimateDelete(selectors, {
        cwd: io.cwd,
        onEvent: (event) => {
          if (event.type === 'warning' || event.type === 'step-start' || event.type === 'step-progress') renderer.onEvent(event);
        },
      });
      renderer.stop();
      if (options.json) {
        writeLine(io.stdout, JSON.stringify({ workspace: kgrag.workspace, dryRun: true, ...estimate }, null, 2));
        return;
      }
      writeLine(io.stdout, `would delete ${integer.format(estimate.deleting.length)} document${estimate.deleting.length === 1 ? '' : 's'}:`);
      for (const document of estimate.deleting) writeLine(io.stdout, documentLine(document));
      writeLine(io.stdout, formatDryRun(estimate, { deleting: true }));
      return;
    }
    await deleteNow(kgrag, selectors, options, io, renderer);
  } finally {
    renderer.stop();
    await kgrag.close();
  }
}

async function deleteNow(
  kgrag: Awaited<ReturnType<typeof openWorkspace>>,
  selectors: string[],
  options: DeleteCommandOptions,
  io: CliIo,
  renderer: ReturnType<typeof createProgressRenderer>,
): Promise<void> {
  const retries = createRetryReporter((line) => renderer.log(line));
  const interrupts = handleInterrupts(io);
  const finished: string[] = [];
  try {
    const summary = await kgrag.delete(selectors, {
      ...writerLockOptions(['kgrag delete', ...selectors].join(' '), options.wait, io),
      ...(options.keepCache === undefined ? {} : { keepCache: options.keepCache }),
      cwd: io.cwd,
      ...interrupts.signals,
      onEvent: (event) => {
        interrupts.onEvent(event);
        if (event.type === 'step-start') retries.setScope(event.step);
        if (event.type === 'step-end') finished.push(event.step);
        renderer.onEvent(event);
      },
    });
    retries.stop();
    renderer.stop();
    const counts = await kgrag.stats();
    if (options.json) {
      writeLine(
        io.stdout,
        JSON.stringify(
          { workspace: kgrag.workspace, deleted: summary.deleted, cache: summary.cache, ran: summary.run.ran, usage: summary.run.usage, durationMs: Math.round(summary.run.durationMs), ...counts },
          null,
          2,
        ),
      );
      return;
    }
    writeLine(io.stdout, `deleted ${integer.format(summary.deleted.length)} document${summary.deleted.length === 1 ? '' : 's'}:`);
    for (const document of summary.deleted) writeLine(io.stdout, documentLine(document));
    writeLine(
      io.stdout,
      summary.cache.kept
        ? 'their cached LLM replies were kept (--keep-cache): indexing them again costs no LLM call'
        : `their cached LLM replies were deleted (${integer.format(summary.cache.removedEntries)} entries); --keep-cache keeps them`,
    );
    writeLine(io.stdout, `${counts.documents} documents, ${counts.chunks} chunks, ${counts.entities} entities, ${counts.relations} relations, ${counts.communities} communities remain in ${sanitizeForTerminal(kgrag.workspace)}`);
  } catch (error) {
    throw interrupts.translate(error, finished);
  } finally {
    retries.stop();
    interrupts.dispose();
  }
}
