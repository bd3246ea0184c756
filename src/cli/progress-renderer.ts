import cliProgress from 'cli-progress';
import type { PipelineEvent, StepName } from '../pipeline/pipeline-step.js';
import type { RunUsage } from '../core/types.js';
import { sanitizeForTerminal } from '../core/sanitize-for-terminal.js';
import { writeLine } from './cli-io.js';

/** Renders pipeline events on stderr: live bars on a terminal, plain periodic lines otherwise. */
export interface ProgressRenderer {
  onEvent(event: PipelineEvent): void;
  /** Writes a line of its own (a retry notice) without breaking the live bars; nothing when quiet. */
  log(line: string): void;
  stop(): void;
}

function formatAmount(value: number, unit: string): string {
  if (unit === 'bytes') return `${(value / 1e6).toFixed(1)} MB`;
  if (unit === 'characters') return `${(value / 1e6).toFixed(1)}M chars`;
  return `${value} ${unit}`;
}

function formatUsageAt(usage: RunUsage, priced: boolean): string {
  if (usage.llmCalls === 0 && usage.inputTokens === 0) return '';
  // A cost of 0 for a model without a known price is unknown, not free (the closing cost table says so too).
  return ` · ${usage.llmCalls} LLM calls · ${usage.inputTokens + usage.outputTokens} tokens · ${priced ? `$${usage.costUsd.toFixed(4)}` : 'cost unknown'}`;
}

/** Options of {@link createProgressRenderer}. */
export interface ProgressRendererOptions {
  /** Only warnings are shown. */
  quiet?: boolean;
  /**
   * Whether the model's costs are known (it has a price); asked when a line is written, since the renderer is made
   * before the workspace that knows is opened. Without a price the cost is shown as unknown.
   */
  priced: () => boolean;
}

/**
 * A step's counts for a person: the first (what the step is about) always, the others only when not zero, named in
 * words ("hubEntitiesSkipped" is "hub entities skipped"); timings of a step's internals (`…Ms`) are for `--json`.
 */
function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .filter(([name, value], index) => !/Ms$/.test(name) && (index === 0 || value !== 0))
    .map(([name, value]) => `${value} ${name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()}`)
    .join(', ');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
}

/** Creates a renderer on `stream`; with `quiet`, only warnings are shown. */
export function createProgressRenderer(stream: NodeJS.WritableStream & { isTTY?: boolean }, options: ProgressRendererOptions): ProgressRenderer {
  const quiet = options.quiet === true;
  const formatUsage = (usage: RunUsage): string => formatUsageAt(usage, options.priced());
  if (stream.isTTY && !quiet) {
    const bars = new cliProgress.MultiBar(
      {
        stream,
        format: ' {step} |{bar}| {percentage}% {amount}{usage}',
        barsize: 30,
        hideCursor: true,
        clearOnComplete: false,
        fps: 8,
      },
      cliProgress.Presets.shades_classic,
    );
    let current: { bar: cliProgress.SingleBar; step: StepName } | undefined;
    const label = (step: StepName): string => step.padEnd(14);
    return {
      onEvent(event) {
        switch (event.type) {
          case 'step-start':
            current = { bar: bars.create(1, 0, { step: label(event.step), amount: '', usage: '' }), step: event.step };
            break;
          case 'step-progress':
            if (current?.step === event.step) {
              current.bar.setTotal(Math.max(1, event.total));
              current.bar.update(event.done, { amount: formatAmount(event.done, event.unit), usage: formatUsage(event.usage) });
            }
            break;
          case 'step-end':
            if (current?.step === event.step) {
              current.bar.setTotal(1);
              current.bar.update(1, { amount: `${formatCounts(event.counts)} in ${seconds(event.durationMs)}`, usage: formatUsage(event.usage) });
            }
            break;
          case 'step-skip':
            bars.log(` ${label(event.step)} up to date\n`);
            break;
          case 'warning':
            bars.log(`warning: ${sanitizeForTerminal(event.warning.message)}\n`);
            break;
          case 'pipeline-end':
            bars.stop();
            writeLine(stream, `indexed in ${seconds(event.durationMs)}${formatUsage(event.usage)}`);
            break;
          default:
            break;
        }
      },
      log: (line) => bars.log(`${line}\n`),
      stop: () => bars.stop(),
    };
  }

  let lastLine = 0;
  return {
    onEvent(event) {
      if (event.type === 'warning') {
        writeLine(stream, `warning: ${sanitizeForTerminal(event.warning.message)}`);
        return;
      }
      if (quiet) return;
      switch (event.type) {
        case 'step-progress': {
          const now = performance.now();
          if (now - lastLine > 2000) {
            lastLine = now;
            writeLine(stream, `${event.step}: ${formatAmount(event.done, event.unit)} of ${formatAmount(event.total, event.unit)}${formatUsage(event.usage)}`);
          }
          break;
        }
        case 'step-end':
          writeLine(stream, `${event.step}: ${formatCounts(event.counts)} in ${seconds(event.durationMs)}${formatUsage(event.usage)}`);
          break;
        case 'step-skip':
          writeLine(stream, `${event.step}: up to date`);
          break;
        case 'pipeline-end':
          writeLine(stream, `indexed in ${seconds(event.durationMs)}${formatUsage(event.usage)}`);
          break;
        default:
          break;
      }
    },
    log(line) {
      if (!quiet) writeLine(stream, line);
    },
    stop: () => undefined,
  };
}
