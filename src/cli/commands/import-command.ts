import { resolve } from 'node:path';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { handleInterrupts } from '../handle-interrupts.js';
import { openWorkspace } from '../open-workspace.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { integerFormat as integer } from '../number-format.js';
import { llmPriceOf } from '../llm-price-of.js';
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
  const priced = llmPriceOf(kgrag).price !== undefined;
  const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true, priced: () => priced });
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

/** Options of `kgrag import graphrag`. */
export interface ImportGraphragCommandOptions {
  json?: boolean;
  /** `--no-wait`: fail at once when another process is writing the workspace. */
  wait?: boolean;
}

/** GraphRAG's tables in the order the summary lists them, with the names kgrag gives what they became. */
const graphragTableLines = [
  ['documents', 'documents', 'documents'],
  ['textUnits', 'text units', 'chunks'],
  ['entities', 'entities', 'entities'],
  ['relationships', 'relationships', 'relations'],
  ['communities', 'communities', 'communities'],
  ['communityReports', 'community reports', 'reports'],
  ['covariates', 'covariates', 'claims'],
] as const;

/**
 * `kgrag import graphrag <output-dir>`: imports a Microsoft GraphRAG index into the workspace and builds what kgrag
 * adds, so every method answers over it. Progress and the rows left out (with why) go to stderr; the summary (or
 * `--json`) to stdout.
 */
export async function importGraphragCommand(directory: string, options: ImportGraphragCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  const kgrag = await openWorkspace(workspaceOptions(global, io, {}), io);
  const priced = llmPriceOf(kgrag).price !== undefined;
  const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true, priced: () => priced });
  const interrupts = handleInterrupts(io);
  const finished: string[] = [];
  try {
    const summary = await kgrag.importGraphrag(resolve(io.cwd, directory), {
      ...writerLockOptions(`kgrag import graphrag ${directory}`, options.wait, io),
      ...interrupts.signals,
      onEvent: (event) => {
        interrupts.onEvent(event);
        if (event.type === 'step-end') finished.push(event.step);
        renderer.onEvent(event);
      },
    });
    renderer.stop();
    for (const [table, accounting] of Object.entries(summary.tables)) {
      for (const reason of accounting.leftOut.slice(0, listedProblems)) writeLine(io.stderr, `warning: ${sanitizeForTerminal(reason)}`);
      if (accounting.leftOut.length > listedProblems) writeLine(io.stderr, `warning: ${accounting.leftOut.length - listedProblems} more rows of ${table} were left out`);
    }
    for (const note of summary.notes) writeLine(io.stderr, `note: ${sanitizeForTerminal(note)}`);
    if (options.json) {
      const { indexed, ...rest } = summary;
      writeLine(io.stdout, JSON.stringify({ workspace: kgrag.workspace, ...rest, ran: indexed.ran, skipped: indexed.skipped }, null, 2));
      return;
    }
    const lines = [`Imported the GraphRAG ${summary.generation} index ${sanitizeForTerminal(summary.directory)} into ${sanitizeForTerminal(kgrag.workspace)}${summary.changed ? '' : ' (already imported, nothing changed)'}:`];
    for (const [key, name, kgragName] of graphragTableLines) {
      const accounting = summary.tables[key];
      if (accounting === undefined || accounting.rows === 0) continue;
      let line = `  ${name}: ${integer.format(accounting.rows)} rows → ${integer.format(accounting.records)} ${kgragName}`;
      if (key === 'relationships') {
        const merged = summary.mergedRelationshipRows;
        const parts = [
          ...(merged > 0 ? [`${integer.format(merged)} rows share their entity pair with another row (A→B and B→A): one relation holds both descriptions and their summed weight`] : []),
          ...(accounting.leftOut.length > 0 ? [`${integer.format(accounting.leftOut.length)} left out of the graph`] : []),
        ];
        if (parts.length > 0) line += ` (${parts.join('; ')})`;
      } else if (accounting.leftOut.length > 0) {
        line += ` (${integer.format(accounting.leftOut.length)} left out)`;
      }
      lines.push(line);
    }
    lines.push(`Vectors were made with the workspace's embedder ${summary.embedder}; GraphRAG's own embeddings were not read. Every row left out is kept for \`kgrag export --format graphrag\`.`);
    writeLine(io.stdout, lines.join('\n'));
  } catch (error) {
    throw interrupts.translate(error, finished);
  } finally {
    renderer.stop();
    interrupts.dispose();
    await kgrag.close();
  }
}
