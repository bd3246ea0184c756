import { appendAll } from '../core/append-all.js';
import type { RunUsage } from '../core/types.js';
import type { StepName } from '../pipeline/pipeline-step.js';
import type { UsageSnapshot } from '../providers/llm/usage-meter.js';
import type { ResolvedModelPrice } from '../providers/llm/model-prices.js';
import { formatPerMillion, formatUsd, integerFormat } from './number-format.js';
import { renderTextTable } from './text-table.js';

/** What one step of an indexing run spent. */
export interface StepRunCost {
  step: StepName;
  durationMs: number;
  usage: RunUsage;
}

/** The price the run's costs were computed with, or `undefined` when the model has none. */
export interface RunPrice {
  modelId: string;
  price: ResolvedModelPrice | undefined;
}

function calls(value: number): string {
  return `${integerFormat.format(value)} ${value === 1 ? 'call' : 'calls'}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
}

/**
 * The cost summary printed after `kgrag index`: one row per step that called the model, the totals, and
 * what the cache, retries and servers without usage reports did to those numbers. Empty when the run made
 * no LLM call and reused none.
 */
export function formatRunCost(steps: readonly StepRunCost[], usage: UsageSnapshot, run: RunPrice): string[] {
  const paid = steps.filter((step) => step.usage.llmCalls > 0);
  if (paid.length === 0 && usage.cachedCalls === 0) return [];
  const cost = (value: number): string => formatUsd(run.price ? value : null);
  const lines: string[] = [];
  const priced = run.price
    ? `at $${formatPerMillion(run.price.input)} / $${formatPerMillion(run.price.output)} per million input / output tokens (${run.price.source === 'built-in' ? 'built-in price' : run.price.source})`
    : '(no price known: add it under llm.prices in kgrag.yaml)';
  lines.push(`LLM usage of this run, model ${run.modelId} ${priced}`);
  const header = ['step', 'calls', 'input tokens', 'output tokens', 'cost (USD)', 'time'];
  const rows = paid.map((step) => [
    step.step,
    integerFormat.format(step.usage.llmCalls),
    integerFormat.format(step.usage.inputTokens),
    integerFormat.format(step.usage.outputTokens),
    cost(step.usage.costUsd),
    seconds(step.durationMs),
  ]);
  const total = (key: 'llmCalls' | 'inputTokens' | 'outputTokens' | 'costUsd'): number => paid.reduce((sum, step) => sum + step.usage[key], 0);
  rows.push([
    'total',
    integerFormat.format(total('llmCalls')),
    integerFormat.format(total('inputTokens')),
    integerFormat.format(total('outputTokens')),
    cost(total('costUsd')),
    seconds(paid.reduce((sum, step) => sum + step.durationMs, 0)),
  ]);
  appendAll(lines, renderTextTable(header, rows, { totalRow: true }));
  if (usage.cachedCalls > 0) {
    const saved = run.price ? ` (saved $${formatUsd(usage.savedUsd)})` : '';
    lines.push(`cached: ${calls(usage.cachedCalls)} answered from the workspace's LLM cache, not counted above${saved}`);
  }
  if (usage.failedCalls > 0) lines.push(`failed: ${calls(usage.failedCalls)} (retried, or the item recorded as failed; not counted above)`);
  if (usage.estimatedCalls > 0) {
    lines.push(`estimated: ${calls(usage.estimatedCalls)} without usage from the server (tokens counted with the tokenizer)`);
  }
  return lines;
}
