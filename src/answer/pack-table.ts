import type { Tokenizer } from '../text/tokenizer.js';

/** One record offered to a context table: its row (cells already joined with `|`) and what it stands for. */
export interface TableRow<T> {
  row: string;
  item: T;
}

/** A GraphRAG context table packed under a token budget. */
export interface PackedTable<T> {
  /** `-----Title-----`, the column header, then the rows that fit; empty when not even the header fits. */
  text: string;
  /** Tokens of `text`, counted with the tokenizer given. */
  tokens: number;
  /** The items whose rows are in `text`, in order. */
  included: T[];
}

/** Flattens a cell so that a `|`-separated table stays one row per record. */
export function tableCell(text: string): string {
  return text.replace(/\s+/g, ' ').replaceAll('|', '/').trim();
}

/**
 * GraphRAG's context tables (`-----Entities-----`, `-----Sources-----`, …): a title line, a header of `|`-separated
 * columns, then one row per record in the order given, added while the whole table stays within `maxTokens`.
 * A row that does not fit is skipped and smaller ones after it may still fit (`stopAtFirstMiss` stops instead, as
 * GraphRAG's builders do when order must be kept). The budget is exact: the returned text is re-counted whole,
 * since BPE merges across row boundaries can shift the sum of the rows by a token.
 */
export function packTable<T>(
  title: string,
  header: string,
  rows: Iterable<TableRow<T>>,
  tokenizer: Tokenizer,
  maxTokens: number,
  options: { stopAtFirstMiss?: boolean } = {},
): PackedTable<T> {
  const head = `-----${title}-----\n${header}`;
  let tokens = tokenizer.count(head);
  if (tokens > maxTokens) return { text: '', tokens: 0, included: [] };
  const lines = [head];
  const included: T[] = [];
  for (const { row, item } of rows) {
    const rowTokens = tokenizer.count(`\n${row}`);
    if (tokens + rowTokens > maxTokens) {
      if (options.stopAtFirstMiss) break;
      continue;
    }
    lines.push(row);
    tokens += rowTokens;
    included.push(item);
  }
  let text = lines.join('\n');
  let total = tokenizer.count(text);
  while (total > maxTokens && included.length > 0) {
    lines.pop();
    included.pop();
    text = lines.join('\n');
    total = tokenizer.count(text);
  }
  return { text, tokens: total, included };
}
