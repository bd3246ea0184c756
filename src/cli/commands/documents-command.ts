import type { StatisticsDrift } from '../../api/kgrag.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { integerFormat as integer } from '../number-format.js';
import { openWorkspace } from '../open-workspace.js';
import { renderTextTable } from '../text-table.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/**
 * `kgrag documents`: the documents of the published index, one per line (id prefix, chunks, when indexed, title
 * and source, and a mark when the source file is gone), or `--json`. The id prefix is what `kgrag delete` takes.
 */
export async function documentsCommand(options: { json?: boolean }, global: GlobalOptions, io: CliIo): Promise<void> {
  const kgrag = await openWorkspace(workspaceOptions(global, io, {}), io);
  try {
    const documents = await kgrag.documents();
    const { statistics } = await kgrag.stats();
    if (options.json) {
      writeLine(io.stdout, JSON.stringify({ workspace: kgrag.workspace, documents, ...(statistics ? { statistics } : {}) }, null, 2));
      return;
    }
    if (documents.length === 0) {
      writeLine(io.stderr, `no documents are indexed in ${sanitizeForTerminal(kgrag.workspace)}; add some with \`kgrag index <paths>\``);
      return;
    }
    const rows = documents.map((document) => [
      document.id.slice(0, 12),
      integer.format(document.chunks),
      document.indexedAt.slice(0, 16).replace('T', ' '),
      `${sanitizeForTerminal(document.title)}  ${sanitizeForTerminal(document.source)}${document.status === 'source-missing' ? '  [source file missing]' : ''}`,
    ]);
    for (const line of renderTextTable(['id', 'chunks', 'indexed (UTC)', 'title  source'], rows)) writeLine(io.stdout, line);
    if (statistics) writeLine(io.stderr, statisticsLine(statistics));
    const missing = documents.filter((document) => document.status === 'source-missing').length;
    if (missing > 0) writeLine(io.stderr, `${missing} source files are gone; \`kgrag index <folder> --prune\` or \`kgrag delete <id>\` removes their documents`);
  } finally {
    await kgrag.close();
  }
}

/** "statistics from 6,058 documents (2026-12-02 11:20 UTC); 3.1 % changed since, refit past 20 %". */
function statisticsLine(statistics: StatisticsDrift): string {
  const percent = (share: number): string => `${(share * 100).toFixed(1).replace(/\.0$/, '')} %`;
  return `statistics from ${integer.format(statistics.documents)} documents (${statistics.fittedAt.slice(0, 16).replace('T', ' ')} UTC); ${percent(statistics.changedShare)} changed since, refit past ${percent(statistics.refreshShare)} (kgrag index --refresh refits now)`;
}
