import type { Tokenizer } from '../text/tokenizer.js';
import type { ContextChunk } from './answer-types.js';
import { packTable, tableCell } from './pack-table.js';

/** A context table packed under a token budget. */
export interface PackedContext {
  /** The rendered table, ready for the prompt. */
  text: string;
  /** Tokens of `text`, counted with the workspace tokenizer. */
  tokens: number;
  /** The chunks that fit, in order. */
  included: ContextChunk[];
}

/**
 * GraphRAG's basic-search context: a `-----Sources-----` table of `id|title|text` rows (id = the chunk's
 * human-readable id), filled in rank order while the whole table stays within `maxTokens`. A chunk that
 * does not fit is skipped and smaller ones after it may still fit.
 */
export function packSourcesTable(chunks: readonly ContextChunk[], tokenizer: Tokenizer, maxTokens: number): PackedContext {
  const rows = chunks.map((chunk) => ({ row: `${chunk.hid}|${tableCell(chunk.documentTitle)}|${tableCell(chunk.text)}`, item: chunk }));
  return packTable('Sources', 'id|title|text', rows, tokenizer, maxTokens);
}
