import type { Tokenizer } from '../../text/tokenizer.js';
import type { AnalystPoint } from './map-report-batches.js';

/** The reduce input: analyst blocks within the token budget. */
export interface PackedPoints {
  text: string;
  tokens: number;
  /** The points whose blocks are in `text`, in order. */
  included: AnalystPoint[];
  /** Points scoring above 0 before packing. */
  relevant: number;
}

function block(point: AnalystPoint): string {
  return `----Analyst ${point.analyst}----\nImportance Score: ${point.score}\n${point.description}`;
}

/**
 * GraphRAG's reduce input (microsoft/graphrag `query/structured_search/global_search/search.py`, `prompts/query/global_search_reduce_system_prompt.py`): points scoring 0 are dropped, the rest sorted by
 * score, highest first (stable, so ties keep batch order), and added as `----Analyst k----` blocks separated by
 * blank lines until the next one would overflow `maxTokens` (GraphRAG stops there rather than skipping). The
 * budget is exact: the joined text is re-counted whole.
 */
export function packAnalystPoints(points: readonly AnalystPoint[], tokenizer: Tokenizer, maxTokens: number): PackedPoints {
  const ranked = points
    .map((point, position) => ({ point, position }))
    .filter(({ point }) => point.score > 0)
    .sort((left, right) => right.point.score - left.point.score || left.position - right.position)
    .map(({ point }) => point);
  const blocks: string[] = [];
  const included: AnalystPoint[] = [];
  let tokens = 0;
  for (const point of ranked) {
    const text = block(point);
    const cost = tokenizer.count(blocks.length === 0 ? text : `\n\n${text}`);
    if (tokens + cost > maxTokens) break;
    blocks.push(text);
    included.push(point);
    tokens += cost;
  }
  let text = blocks.join('\n\n');
  let total = tokenizer.count(text);
  while (total > maxTokens && blocks.length > 0) {
    blocks.pop();
    included.pop();
    text = blocks.join('\n\n');
    total = tokenizer.count(text);
  }
  return { text, tokens: total, included, relevant: ranked.length };
}
