import { sourceList } from '../answer/source-list.js';
import { sanitizeForTerminal } from '../core/sanitize-for-terminal.js';
import type { QueryResult } from '../methods/query-engine.js';

/** Text from the index or a model, on its own lines. */
const block = (text: string): string => sanitizeForTerminal(text, { multiline: true });
/** A title or source inside one line. */
const line = (text: string): string => sanitizeForTerminal(text);

/**
 * Human-readable rendering of a query result: the answer, its sources, and how it was made. Everything that
 * came from documents or a model is escaped for the terminal (see `sanitizeForTerminal`); `--json` keeps it. `priced`:
 * whether the model has a known price (else the cost is shown as unknown).
 */
export function formatQueryResult(result: QueryResult, options: { showAnswer?: boolean; priced: boolean }): string {
  const lines: string[] = [];
  const method = result.variant ? `${result.method}:${result.variant}` : result.method;
  if (result.answer.kind === 'none') {
    lines.push(block(result.context.text), '', `(${result.context.tokens} context tokens, method ${method})`);
    return lines.join('\n');
  }
  if (result.answer.label) lines.push(`[${line(result.answer.label)}]`);
  if (options.showAnswer !== false) lines.push(block(result.answer.text));
  const sources = sourceList(result.citations, line);
  if (sources.length > 0) {
    lines.push('', 'Sources:');
    for (const source of sources) lines.push(`  ${source}`);
  }
  const usage = result.usage;
  // A cost of 0 for a model without a known price is unknown, not free.
  const cost = options.priced ? `$${usage.costUsd.toFixed(4)}` : 'cost unknown';
  const llm = usage.llmCalls > 0 ? ` · ${usage.inputTokens + usage.outputTokens} tokens · ${cost}` : '';
  lines.push('', `method ${method} · ${usage.latencyMs.toFixed(0)} ms${llm}`);
  return lines.join('\n');
}
