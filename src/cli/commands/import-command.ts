import { resolve } from 'node:path';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { openWorkspace } from '../open-workspace.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { integerFormat as integer } from '../number-format.js';
import { createProgressRenderer } from '../progress-renderer.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';
import { writerLockOptions } from '../writer-lock-options.js';

/** Options of `kgrag import openie`. */
export interface ImportOpenieCommandOptions {
  mode?: 'fast' | 'standard';
  json?: boolean;
  /** `--no-wait`: fail at once when another process is writing the workspace. */
  wait?: boolean;
}

/** Problems listed one by one before the rest are summed up. */
const listedProblems = 5;

/**
 * `kgrag import openie <file>`: stores a HippoRAG OpenIE file in the workspace, so that the chunks of the
 * documents it covers take its triples, and brings the index up to date. Progress and warnings go to stderr,
 * one summary line (or `--json`) to stdout.
 */
export async function importOpenieCommand(file: string, options: ImportOpenieCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  const kgrag = await openWorkspace(workspaceOptions(global, io, options.mode ? { index: { mode: options.mode } } : {}), io);
  const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true });
  try {
    const summary = await kgrag.importOpenie(resolve(io.cwd, file), {
      ...writerLockOptions(`kgrag import openie ${file}`, options.wait, io),
      onEvent: (event) => renderer.onEvent(event),
    });
    renderer.stop();
    const shownFile = sanitizeForTerminal(file);
    for (const record of summary.skipped.slice(0, listedProblems)) {
      writeLine(io.stderr, `warning: docs[${record.index}] of ${shownFile} was skipped: ${sanitizeForTerminal(record.problem)}`);
    }
    if (summary.skipped.length > listedProblems) writeLine(io.stderr, `warning: ${summary.skipped.length - listedProblems} more records of ${shownFile} were skipped`);
    if (summary.droppedTriples + summary.droppedEntities > 0) {
      writeLine(io.stderr, `warning: ${summary.droppedTriples} triples that were not three strings and ${summary.droppedEntities} entities that were not strings were dropped`);
    }
    if (summary.indexed === undefined && summary.matched === 0) {
      writeLine(io.stderr, 'note: the workspace has no indexed documents yet; the import is kept and used when you index the corpus it was made from');
    } else if (summary.unmatched > 0) {
      const examples = summary.unmatchedDocs.slice(0, 3).map((doc) => `docs[${doc.index}] "${sanitizeForTerminal(doc.title)}"`);
      writeLine(
        io.stderr,
        `warning: ${summary.unmatched} passages match no indexed document (${examples.join(', ')}${summary.unmatched > 3 ? ', …' : ''}); index the corpus the file was made from, with the same titles and texts`,
      );
    }
    if (options.json) {
      const { indexed, ...counts } = summary;
      writeLine(io.stdout, JSON.stringify({ workspace: kgrag.workspace, ...counts, ran: indexed?.ran ?? [] }, null, 2));
    } else {
      writeLine(
        io.stdout,
        `${integer.format(summary.matched)} of ${integer.format(summary.docs)} OpenIE passages matched, ${integer.format(summary.triples)} triples and ${integer.format(summary.entities)} entities imported into ${sanitizeForTerminal(kgrag.workspace)}${summary.changed ? '' : ' (already imported)'}`,
      );
    }
  } finally {
    renderer.stop();
    await kgrag.close();
  }
}
