import { resolve } from 'node:path';
import type { KgragConfigInput } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import { INTERRUPTED_CODE } from '../interrupted-error.js';
import { cliErrorLine } from '../cli-error-line.js';
import { watchPaths } from '../../core/watch-paths.js';
import type { IndexedDocument, Kgrag } from '../../api/kgrag.js';
import type { PipelineWarning } from '../../pipeline/pipeline-step.js';
import { openWorkspace } from '../open-workspace.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { handleInterrupts } from '../handle-interrupts.js';
import { formatDryRun } from '../format-dry-run.js';
import { llmPriceOf } from '../llm-price-of.js';
import { createProgressRenderer, type ProgressRenderer } from '../progress-renderer.js';
import { createRetryReporter, type RetryReporter } from '../retry-reporter.js';
import { formatRunCost, type RunPrice, type StepRunCost } from '../format-run-cost.js';

import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';
import { watchDebounceMs } from '../watch-debounce-ms.js';
import { writerLockOptions } from '../writer-lock-options.js';

/** Options of `kgrag index`. */
export interface IndexCommandOptions {
  mode?: 'fast' | 'standard';
  strict?: boolean;
  json?: boolean;
  /** Estimate LLM calls, tokens and cost instead of indexing. */
  dryRun?: boolean;
  /** `--no-wait`: fail at once when another process is writing the workspace. */
  wait?: boolean;
  /** `--methods a,b`: the methods to build the index for. */
  methods?: string;
  /** Remove the indexed documents under the given paths whose files or records are gone. */
  prune?: boolean;
  /** `--refresh`: refit the corpus statistics in this run. */
  refresh?: boolean;
  /** `--workers n`: local worker processes for the LLM calls. */
  workers?: string;
  /** `--remote-workers`: hand LLM calls to `kgrag worker` processes elsewhere too. */
  remoteWorkers?: boolean;
  /** `--watch`: after the run, follow the paths and update the index once per quiet period (implies prune). */
  watch?: boolean;
  /** `--debounce <ms>`: the quiet period of `--watch`. @default 500 (`defaultWatchDebounceMs`) */
  debounce?: string;
}

/** The configuration an index command's flags set. */
function indexOverrides(options: IndexCommandOptions): KgragConfigInput {
  const workers = options.workers === undefined ? undefined : Number(options.workers);
  if (workers !== undefined && !(Number.isInteger(workers) && workers >= 0)) {
    throw new KgragError(`--workers ${options.workers} is not a number of processes`, { code: 'CLI_BAD_WORKERS', category: 'input', hint: 'pass a whole number, e.g. --workers 3 (0: no worker processes)' });
  }
  return {
    ...(options.mode ? { index: { mode: options.mode } } : {}),
    ...(workers !== undefined || options.remoteWorkers ? { workers: { ...(workers === undefined ? {} : { local: workers }), ...(options.remoteWorkers ? { remote: true } : {}) } } : {}),
  };
}

/** `--methods basic,local` as a list. */
function methodList(option: string | undefined): string[] | undefined {
  return option === undefined ? undefined : option.split(',').map((name) => name.trim()).filter((name) => name.length > 0);
}

/** A warning in `--json` output: every input skipped or read with a problem, and why (the file under its true name). */
function warningJson({ source, step, code, message }: PipelineWarning): { file?: string; step: string; code: string; message: string } {
  return { ...(source === undefined ? {} : { file: source }), step, code, message };
}

function strictError(warnings: number): KgragError {
  return new KgragError(`${warnings} input problems (see the warnings above)`, {
    code: 'INDEX_WARNINGS_STRICT',
    category: 'input',
    hint: 'fix or exclude those files, or drop --strict to index the rest without failing',
  });
}

/**
 * `kgrag index <paths…>`: loads files and folders into the workspace and brings every index step up
 * to date, with progress on stderr. Ctrl-C stops after the current step; running again resumes. With `--watch` it
 * then follows the paths and runs one update per quiet period (see {@link watchAndIndex}).
 */
export async function indexCommand(paths: string[], options: IndexCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  if (options.dryRun) {
    if (options.watch) throw new KgragError('--watch and --dry-run cannot be combined', { code: 'CLI_WATCH_DRY_RUN', category: 'input', hint: 'estimate once with --dry-run, then follow the folder with --watch' });
    await dryRunCommand(paths, options, global, io);
    return;
  }
  const debounceMs = options.watch ? watchDebounceMs(options.debounce) : 0;
  if (options.watch && paths.length === 0) {
    throw new KgragError('--watch needs the files or folders to follow', { code: 'CLI_WATCH_NO_PATHS', category: 'input', hint: 'name them: kgrag index ./docs --watch' });
  }
  // The renderer reports retries while the workspace opens, before its model's price is known; each run gets its own.
  let run: RunPrice | undefined;
  const newRenderer = (): ProgressRenderer => createProgressRenderer(io.stderr, { quiet: global.quiet === true, priced: () => run?.price !== undefined });
  let renderer = newRenderer();
  const retries = createRetryReporter((line) => renderer.log(line));
  const kgrag = await openWorkspace({ ...workspaceOptions(global, io, indexOverrides(options)), onRetry: retries.onRetry }, io);
  run = llmPriceOf(kgrag);
  const price = run;
  let printed = new Set<string>();
  const once = async (runOptions: IndexCommandOptions): Promise<void> => {
    renderer = newRenderer();
    const repeated = options.watch ? { before: printed, now: new Set<string>() } : undefined;
    // Under --watch every run prunes: a deleted or renamed file is a change like any other.
    await indexOnce(kgrag, paths, options.watch ? { ...runOptions, prune: true } : runOptions, { global, io, renderer, retries, run: price, ...(repeated ? { repeated } : {}) });
    if (repeated) printed = repeated.now;
  };
  try {
    await once(options);
    // --refresh refits once, in the first run; the watched updates then keep the statistics until they drift.
    const { refresh: _refresh, ...updateOptions } = options;
    if (options.watch) await watchAndIndex(kgrag, paths, debounceMs, io, () => once(updateOptions));
  } finally {
    retries.stop();
    renderer.stop();
    await kgrag.close();
  }
}

/**
 * Follows `paths` and brings the index up to date once per quiet period of `debounceMs`: a burst of file events (a
 * checkout, a copy of a thousand files) is one update, and events during an update wait for the next. Ctrl-C between
 * updates stops watching at once (exit 0); during an update it is the ordinary interrupt of `kgrag index` (the step
 * in progress is kept, exit 130, the next run resumes), and an update that completes anyway stops watching after it.
 * The workspace's own index files, when they lie inside a watched folder, are not changes.
 */
async function watchAndIndex(kgrag: Kgrag, paths: readonly string[], debounceMs: number, io: CliIo, update: () => Promise<void>): Promise<void> {
  const stop = new AbortController();
  let updating = false;
  // One listener for the whole watch. Swapping listeners between phases let the count touch zero, and Node then closes
  // its signal handle: a Ctrl-C already caught by libuv for the closed handle was dropped, and kgrag kept watching.
  const onInterrupt = (): void => {
    // During an update Ctrl-C is also the index run's own interrupt (its listener stops the run); the watch ends once
    // the update returns, since the update may already have printed its result when the signal comes.
    if (!updating && !stop.signal.aborted) writeLine(io.stderr, '\nstopped watching');
    stop.abort();
  };
  const storeFiles = kgrag.config.store.backend === 'sqlite' ? resolve(kgrag.workspace, kgrag.config.store.path) : undefined;
  const roots = paths.map((path) => resolve(io.cwd, path));
  // Said once the watchers are in place, so that what a reader changes after the line is seen.
  const onWatching = (): void =>
    writeLine(io.stderr, `watching ${roots.map((root) => sanitizeForTerminal(root)).join(', ')} (updates ${debounceMs / 1000} s after the last change; Ctrl-C stops)`);
  process.on('SIGINT', onInterrupt);
  try {
    for await (const batch of watchPaths(roots, { debounceMs, signal: stop.signal, onWatching, ...(storeFiles === undefined ? {} : { ignore: (path: string) => path.startsWith(storeFiles) }) })) {
      writeLine(io.stderr, `${batch.paths.length} path${batch.paths.length === 1 ? '' : 's'} changed (${batch.events} event${batch.events === 1 ? '' : 's'}): updating`);
      updating = true;
      try {
        await update();
      } catch (error) {
        if (stop.signal.aborted || !failedUpdate(error)) throw error;
        writeLine(io.stderr, cliErrorLine(error));
        writeLine(io.stderr, 'still watching: the next change updates again (and resumes what this update finished)');
      } finally {
        updating = false;
      }
      if (stop.signal.aborted) writeLine(io.stderr, '\nstopped watching');
    }
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/**
 * Whether an update's error ends that update only, not the watch: what the files, the model or the machine did (a
 * watched folder deleted, which would empty the index; --strict's input problems; a model that does not answer; a
 * full disk) is reported, and the next change updates again. A bug, a configuration error and Ctrl-C end the watch.
 */
function failedUpdate(error: unknown): boolean {
  return KgragError.isInstance(error) && error.code !== INTERRUPTED_CODE && ['input', 'provider', 'store', 'environment'].includes(error.category);
}

/**
 * The documents whose sources a run with prune no longer holds, told apart: removed, or moved — a renamed or moved file
 * keeps its document (the same title and text are the same id) under its new source. An edited file keeps its source.
 */
function sourcesGone(before: readonly IndexedDocument[], after: readonly IndexedDocument[]): { pruned: IndexedDocument[]; moved: Array<{ document: IndexedDocument; to: string }> } {
  const sources = new Set(after.map((document) => document.source));
  const sourceOf = new Map(after.map((document) => [document.id, document.source]));
  const gone = before.filter((document) => !sources.has(document.source));
  return {
    pruned: gone.filter((document) => !sourceOf.has(document.id)),
    moved: gone.flatMap((document) => {
      const to = sourceOf.get(document.id);
      return to === undefined ? [] : [{ document, to }];
    }),
  };
}

/** What one run of the index command reports to. */
interface IndexRunSurroundings {
  global: GlobalOptions;
  io: CliIo;
  renderer: ProgressRenderer;
  retries: RetryReporter;
  run: RunPrice;
  /**
   * Under --watch: the warnings the previous update printed, by {@link warningKey}. One of them is not printed again —
   * every update reads the whole folder, and a binary file left in it warned on every update — though the summary
   * line and the JSON still count and list it. The run adds the warnings it printed or held back.
   */
  repeated?: { before: ReadonlySet<string>; now: Set<string> };
}

/** What tells a warning from another, for {@link IndexRunSurroundings.repeated}. */
function warningKey({ step, code, source, message }: PipelineWarning): string {
  return JSON.stringify([step, code, source ?? null, message]);
}

/** One index run of the command: progress, the summary line (or JSON), the pruned sources, the cost. */
async function indexOnce(kgrag: Kgrag, paths: readonly string[], options: IndexCommandOptions, { global, io, renderer, retries, run, repeated }: IndexRunSurroundings): Promise<void> {
  const interrupts = handleInterrupts(io);
  const warnings: PipelineWarning[] = [];
  let heldBack = 0;
  const steps: StepRunCost[] = [];
  try {
    // What --prune removes is named afterwards: the sources the index held before and no longer holds.
    const before = options.prune ? await kgrag.documents() : [];
    const summary = await kgrag.index(
      paths.map((path) => resolve(io.cwd, path)),
      {
        ...writerLockOptions(['kgrag index', ...paths].join(' '), options.wait, io),
        ...(options.methods === undefined ? {} : { methods: methodList(options.methods) ?? [] }),
        ...(options.prune === undefined ? {} : { prune: options.prune }),
        ...(options.refresh === undefined ? {} : { refresh: options.refresh }),
        ...interrupts.signals,
        onEvent: (event) => {
          interrupts.onEvent(event);
          if (event.type === 'step-start') retries.setScope(event.step);
          if (event.type === 'warning') {
            warnings.push(event.warning);
            const key = warningKey(event.warning);
            repeated?.now.add(key);
            if (repeated?.before.has(key) === true) {
              heldBack++;
              return;
            }
          }
          if (event.type === 'step-end') steps.push({ step: event.step, durationMs: Math.round(event.durationMs), usage: event.usage });
          renderer.onEvent(event);
        },
      },
    );
    retries.stop();
    renderer.stop();
    const counts = await kgrag.stats();
    const { pruned, moved } = sourcesGone(before, options.prune ? await kgrag.documents() : []);
    for (const document of pruned) writeLine(io.stderr, `removed (--prune): ${sanitizeForTerminal(document.source)} "${sanitizeForTerminal(document.title)}"`);
    for (const { document, to } of moved) writeLine(io.stderr, `moved: ${sanitizeForTerminal(document.source)} → ${sanitizeForTerminal(to)} "${sanitizeForTerminal(document.title)}"`);
    const usage = kgrag.usage();
    if (global.quiet !== true) for (const line of formatRunCost(steps, usage, run)) writeLine(io.stderr, line);
    if (options.json) {
      const cache = { calls: usage.cachedCalls, inputTokens: usage.cachedInputTokens, outputTokens: usage.cachedOutputTokens, savedUsd: usage.savedUsd };
      const json = {
        workspace: kgrag.workspace,
        ...counts,
        warnings: warnings.map(warningJson),
        ...(options.prune ? { pruned: pruned.map(({ id, title, source }) => ({ id, title, source })), moved: moved.map(({ document, to }) => ({ id: document.id, title: document.title, from: document.source, to })) } : {}),
        ran: summary.ran,
        skipped: summary.skipped,
        durationMs: Math.round(summary.durationMs),
        // A cost of 0 with `priced: false` means unknown, not free.
        usage: { ...summary.usage, priced: run.price !== undefined, failedCalls: usage.failedCalls, cache },
        steps,
      };
      // Under --watch each update prints one JSON line (JSON Lines), so that a reader can take them one by one.
      writeLine(io.stdout, options.watch ? JSON.stringify(json) : JSON.stringify(json, null, 2));
    } else {
      writeLine(
        io.stdout,
        `${counts.documents} documents, ${counts.chunks} chunks, ${counts.entities} entities, ${counts.relations} relations, ${counts.communities} communities in ${sanitizeForTerminal(kgrag.workspace)}${warnings.length > 0 ? ` (${warnings.length} warning${warnings.length === 1 ? '' : 's'}${heldBack > 0 ? `, ${heldBack} repeated from the last update` : ''})` : ''}`,
      );
    }
    if (options.strict && warnings.length > 0) throw strictError(warnings.length);
  } catch (error) {
    // Whatever the interrupted work threw (a cancelled request, a lock wait given up) is the interrupt.
    throw interrupts.translate(error, steps.map((step) => step.step));
  } finally {
    interrupts.dispose();
  }
}

/**
 * `kgrag index <paths…> --dry-run`: loads and chunks the inputs in memory, reads which chunks the workspace
 * has already extracted, and prints the LLM calls, tokens and cost each step would take. No model is called
 * and the workspace is not written (its index is opened read-only).
 */
async function dryRunCommand(paths: string[], options: IndexCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  // Opening a workspace writes nothing, and the estimate reads the published index only.
  const kgrag = await openWorkspace(workspaceOptions(global, io, options.mode ? { index: { mode: options.mode } } : {}), io);
  const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true, priced: () => llmPriceOf(kgrag).price !== undefined });
  try {
    const estimate = await kgrag.estimateIndex(
      paths.map((path) => resolve(io.cwd, path)),
      {
        ...(options.methods === undefined ? {} : { methods: methodList(options.methods) ?? [] }),
        // Loading and chunking progress, and warnings; not their end lines, which read like a finished index.
        onEvent: (event) => {
          if (event.type === 'warning' || event.type === 'step-start' || event.type === 'step-progress') renderer.onEvent(event);
        },
      },
    );
    renderer.stop();
    if (options.json) writeLine(io.stdout, JSON.stringify({ workspace: kgrag.workspace, dryRun: true, ...estimate, warnings: estimate.warnings.map(warningJson) }, null, 2));
    else writeLine(io.stdout, formatDryRun(estimate));
    if (options.strict && estimate.warnings.length > 0) throw strictError(estimate.warnings.length);
  } finally {
    renderer.stop();
    await kgrag.close();
  }
}
