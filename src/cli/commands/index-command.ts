import { resolve } from 'node:path';
import { appendAll } from '../../core/append-all.js';
import { KgragError } from '../../core/errors.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import type { StepCostEstimate } from '../../pipeline/estimate-index-cost.js';
import type { IndexDryRun } from '../../pipeline/estimate/dry-run-index.js';
import type { PipelineWarning } from '../../pipeline/pipeline-step.js';
import { openWorkspace } from '../open-workspace.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { interruptedError } from '../interrupted-error.js';
import { createProgressRenderer } from '../progress-renderer.js';
import { createRetryReporter } from '../retry-reporter.js';
import { renderTextTable } from '../text-table.js';
import { formatRunCost, type RunPrice, type StepRunCost } from '../format-run-cost.js';
import { priceSettings, resolveModelPrice } from '../../providers/llm/model-prices.js';
import { formatPerMillion, formatUsd, integerFormat as integer } from '../number-format.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';
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
 * to date, with progress on stderr. Ctrl-C stops after the current step; running again resumes.
 */
export async function indexCommand(paths: string[], options: IndexCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  if (options.dryRun) {
    await dryRunCommand(paths, options, global, io);
    return;
  }
  const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true });
  const retries = createRetryReporter((line) => renderer.log(line));
  const kgrag = await openWorkspace({ ...workspaceOptions(global, io, options.mode ? { index: { mode: options.mode } } : {}), onRetry: retries.onRetry }, io);
  // Ctrl-C is the user stopping the run, not a failure: the first lets the step in progress finish and keeps
  // it, the second cancels that step now, a third (for a step that does not check) exits at once. Every way
  // leaves a draft the next run resumes, and the command exits 130 like any interrupted program.
  const stopAfterStep = new AbortController();
  const stopNow = new AbortController();
  let interrupts = 0;
  let runningStep: string | undefined;
  const onInterrupt = (): void => {
    interrupts++;
    if (interrupts === 1) {
      stopAfterStep.abort();
      const step = runningStep === undefined ? 'the current step' : `step "${runningStep}"`;
      writeLine(io.stderr, `\ninterrupted: finishing ${step} and keeping its work, then stopping (Ctrl-C again to stop now; run the same command again to resume)`);
    } else if (interrupts === 2) {
      stopNow.abort();
      writeLine(io.stderr, '\ninterrupted again: stopping now (Ctrl-C once more to exit without waiting for the step to notice)');
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onInterrupt);
  const warnings: PipelineWarning[] = [];
  const steps: StepRunCost[] = [];
  try {
    const summary = await kgrag.index(
      paths.map((path) => resolve(io.cwd, path)),
      {
        ...writerLockOptions(['kgrag index', ...paths].join(' '), options.wait, io),
        ...(options.methods === undefined ? {} : { methods: methodList(options.methods) ?? [] }),
        signal: stopNow.signal,
        stopAfterStep: stopAfterStep.signal,
        onEvent: (event) => {
          if (event.type === 'step-start') runningStep = event.step;
          if (event.type === 'step-end') runningStep = undefined;
          if (event.type === 'step-start') retries.setScope(event.step);
          if (event.type === 'warning') warnings.push(event.warning);
          if (event.type === 'step-end') steps.push({ step: event.step, durationMs: Math.round(event.durationMs), usage: event.usage });
          renderer.onEvent(event);
        },
      },
    );
    retries.stop();
    renderer.stop();
    const counts = await kgrag.stats();
    const usage = kgrag.usage();
    const run: RunPrice = { modelId: kgrag.llm?.modelId ?? '(none)', price: kgrag.llm ? resolveModelPrice(kgrag.llm.modelId, priceSettings(kgrag.config)) : undefined };
    if (global.quiet !== true) for (const line of formatRunCost(steps, usage, run)) writeLine(io.stderr, line);
    if (options.json) {
      const cache = { calls: usage.cachedCalls, inputTokens: usage.cachedInputTokens, outputTokens: usage.cachedOutputTokens, savedUsd: usage.savedUsd };
      const json = {
        workspace: kgrag.workspace,
        ...counts,
        warnings: warnings.map(warningJson),
        ran: summary.ran,
        skipped: summary.skipped,
        durationMs: Math.round(summary.durationMs),
        // A cost of 0 with `priced: false` means unknown, not free.
        usage: { ...summary.usage, priced: run.price !== undefined, failedCalls: usage.failedCalls, cache },
        steps,
      };
      writeLine(io.stdout, JSON.stringify(json, null, 2));
    } else {
      writeLine(
        io.stdout,
        `${counts.documents} documents, ${counts.chunks} chunks, ${counts.entities} entities, ${counts.relations} relations, ${counts.communities} communities in ${sanitizeForTerminal(kgrag.workspace)}${warnings.length > 0 ? ` (${warnings.length} warnings)` : ''}`,
      );
    }
    if (options.strict && warnings.length > 0) throw strictError(warnings.length);
  } catch (error) {
    // Whatever the interrupted work threw (a cancelled request, a lock wait given up) is the interrupt.
    if (interrupts > 0) throw interruptedError(error, steps.map((step) => step.step), runningStep);
    throw error;
  } finally {
    retries.stop();
    renderer.stop();
    process.off('SIGINT', onInterrupt);
    await kgrag.close();
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
  const renderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true });
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

/** `1 chunk`, `35 chunks`, `1,200 chunks`. */
function count(value: number, noun: string): string {
  return `${integer.format(value)} ${noun}${value === 1 ? '' : 's'}`;
}

function callsCell(step: Pick<StepCostEstimate, 'calls' | 'minCalls'>): string {
  return step.minCalls === undefined ? integer.format(step.calls) : `${integer.format(step.minCalls)}–${integer.format(step.calls)}`;
}

function kind(step: Pick<StepCostEstimate, 'exact' | 'minCalls'>): string {
  if (step.minCalls !== undefined) return 'exact range';
  return step.exact ? 'exact' : 'estimated';
}

/** The dry run as a table: one row per LLM step and the totals, then how each row was obtained. */
function formatDryRun(estimate: IndexDryRun): string {
  const lines: string[] = [];
  const { documents, chunks } = estimate;
  const changes = [documents.added > 0 ? `${integer.format(documents.added)} new` : '', documents.replaced > 0 ? `${integer.format(documents.replaced)} replacing older versions` : '']
    .filter(Boolean)
    .join(', ');
  lines.push(
    `${count(documents.total, 'document')}${changes ? ` (${changes})` : ''}, ${count(chunks.total, 'chunk')} of ${count(chunks.tokens, 'token')}`,
  );
  if (estimate.mode === 'fast') {
    lines.push('fast mode: 0 LLM calls, 0 tokens, $0');
    for (const note of estimate.notes) lines.push(`note: ${note}`);
    return lines.join('\n');
  }
  const { price } = estimate;
  const priced = price
    ? ` at $${formatPerMillion(price.input)} / $${formatPerMillion(price.output)} per million input / output tokens (${price.source === 'built-in' ? 'built-in price' : price.source})`
    : ' (price unknown)';
  lines.push(`standard mode, model ${estimate.model ?? '(none)'}${priced}; ${count(chunks.toExtract, 'chunk')} to extract, ${integer.format(chunks.alreadyExtracted)} already extracted`);
  lines.push('');
  const header = ['step', 'calls', 'input tokens', 'output tokens', 'cost (USD)', 'calls are'];
  const rows = estimate.steps.map((step) => [step.step, callsCell(step), integer.format(step.inputTokens), integer.format(step.outputTokens), formatUsd(step.costUsd), kind(step)]);
  const { totals } = estimate;
  const totalCalls = totals.minCalls === totals.calls ? integer.format(totals.calls) : `${integer.format(totals.minCalls)}–${integer.format(totals.calls)}`;
  rows.push(['total', totalCalls, integer.format(totals.inputTokens), integer.format(totals.outputTokens), formatUsd(totals.costUsd), totals.exact ? 'exact' : 'estimated']);
  appendAll(lines, renderTextTable(header, rows, { totalRow: true }));
  lines.push('');
  for (const step of estimate.steps) lines.push(`${step.step}: ${step.basis}`);
  lines.push('exact: counted from the chunks and settings; estimated: from ratios calibrated on the sample corpus (see estimateIndexCost)');
  for (const note of estimate.notes) lines.push(`note: ${note}`);
  return lines.join('\n');
}
