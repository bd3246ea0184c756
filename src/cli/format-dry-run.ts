import { appendAll } from '../core/append-all.js';
import type { StepCostEstimate } from '../pipeline/estimate-index-cost.js';
import type { IndexDryRun } from '../pipeline/estimate/dry-run-index.js';
import { formatPerMillion, formatUsd, integerFormat as integer } from './number-format.js';
import { renderTextTable } from './text-table.js';

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

/**
 * A dry run (`kgrag index --dry-run`, `kgrag delete --dry-run`) as a table: one row per LLM step and the totals, then
 * how each row was obtained. A deletion's (`deleting`, after the list of what goes) says what the index keeps and skips
 * the notes on how an index is built.
 */
export function formatDryRun(estimate: IndexDryRun, options: { deleting?: boolean } = {}): string {
  const lines: string[] = [];
  const { documents, chunks } = estimate;
  if (options.deleting) {
    lines.push(`the index would keep ${count(documents.total, 'document')}, ${count(chunks.total, 'chunk')} of ${count(chunks.tokens, 'token')}`);
    if (estimate.mode === 'fast') {
      lines.push('fast mode: 0 LLM calls, 0 tokens, $0');
      return lines.join('\n');
    }
  }
  const changes = [
    documents.added > 0 ? `${integer.format(documents.added)} new` : '',
    documents.replaced > 0 ? `${integer.format(documents.replaced)} replacing older versions` : '',
    documents.removed > 0 ? `${integer.format(documents.removed)} removed` : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (!options.deleting) lines.push(`${count(documents.total, 'document')}${changes ? ` (${changes})` : ''}, ${count(chunks.total, 'chunk')} of ${count(chunks.tokens, 'token')}`);
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
