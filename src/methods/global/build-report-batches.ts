import { packTable, tableCell } from '../../answer/pack-table.js';
import { createRandom } from '../../core/random.js';
import type { Tokenizer } from '../../text/tokenizer.js';
import type { GlobalReport } from './global-lookups.js';

/** Title and columns of a map batch: GraphRAG's community context table (microsoft/graphrag `query/structured_search/global_search/search.py`). */
export const reportsTableTitle = 'Reports';
export const reportsTableHeader = 'id|title|occurrence weight|content|rank';

/** A report offered to the map, with its normalized occurrence weight. */
export interface WeightedReport {
  report: GlobalReport;
  /** Distinct text units of the community's entities divided by the largest such count of the selection (0–1). */
  weight: number;
}

/** One map batch: a complete Reports table within the token budget. */
export interface ReportBatch {
  text: string;
  tokens: number;
  /** The reports of the table, in row order. */
  reports: GlobalReport[];
}

/** The batches of one selection, and how many rows had to be cut to fit a batch on their own. */
export interface ReportBatches {
  batches: ReportBatch[];
  truncated: number;
}

/** Normalizes raw occurrence counts by the selection's largest (GraphRAG `normalize=True`). */
export function weightReports(reports: readonly GlobalReport[], occurrences: ReadonlyMap<string, number>): WeightedReport[] {
  const max = reports.reduce((best, report) => Math.max(best, occurrences.get(report.communityId) ?? 0), 0);
  return reports.map((report) => ({ report, weight: max > 0 ? (occurrences.get(report.communityId) ?? 0) / max : 0 }));
}

function formatWeight(weight: number): string {
  return String(Math.round(weight * 1e4) / 1e4);
}

function rowText(item: WeightedReport, content: string): string {
  const { report } = item;
  return `${report.hid}|${tableCell(report.title)}|${formatWeight(item.weight)}|${content}|${report.rating}`;
}

/**
 * A row that would not fit an otherwise empty table gets its content cut, token-exactly, until it does:
 * GraphRAG would send such a batch over budget, but budgets here are hard limits.
 */
function fitAlone(item: WeightedReport, content: string, tokenizer: Tokenizer, maxTokens: number, headTokens: number): PreparedRow | undefined {
  const head = `-----${reportsTableTitle}-----\n${reportsTableHeader}`;
  const encoded = tokenizer.encode(content);
  let keep = Math.max(0, maxTokens - headTokens - tokenizer.count(`\n${rowText(item, '')}`));
  for (;;) {
    const row = rowText(item, tokenizer.decode(encoded.slice(0, keep)).trim());
    if (tokenizer.count(`${head}\n${row}`) <= maxTokens) return { item, row, tokens: tokenizer.count(`\n${row}`) };
    if (keep === 0) break;
    keep = Math.max(0, keep - Math.max(1, Math.ceil(keep / 20)));
  }
  return undefined;
}

/** Fisher–Yates with the seeded generator, so that a seed always gives the same order. */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  const random = createRandom(seed);
  const shuffled = [...items];
  for (let index = shuffled.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [shuffled[index], shuffled[other]] = [shuffled[other] as T, shuffled[index] as T];
  }
  return shuffled;
}

/** A report's row, formatted and counted once (the costly part, memoized per selection by the method). */
export interface PreparedRow {
  item: WeightedReport;
  row: string;
  /** Tokens of `\n` + the row, as the packer counts a row. */
  tokens: number;
}

/** Formats and counts the rows of `reports`. */
export function prepareReportRows(reports: readonly WeightedReport[], tokenizer: Tokenizer): PreparedRow[] {
  return reports.map((item) => {
    const row = rowText(item, tableCell(item.report.fullContent));
    return { item, row, tokens: tokenizer.count(`\n${row}`) };
  });
}

/**
 * GraphRAG's global-search context (microsoft/graphrag `query/structured_search/global_search/search.py`): the reports, shuffled with `seed`, fill
 * batches in that order; a batch is closed when the next row would overflow `maxTokens`, and its rows are then
 * sorted by occurrence weight and rank (both descending, stable) and packed with {@link packTable}. Every
 * report lands in exactly one batch. The packer re-counts the whole table, so a row it drops (a BPE merge
 * across rows can add a token) opens the next batch instead of being lost.
 */
export function buildReportBatches(rows: readonly PreparedRow[], tokenizer: Tokenizer, maxTokens: number, seed: number): ReportBatches {
  const headTokens = tokenizer.count(`-----${reportsTableTitle}-----\n${reportsTableHeader}`);
  if (headTokens >= maxTokens) return { batches: [], truncated: 0 };
  let truncated = 0;
  const fit = (row: PreparedRow): PreparedRow | undefined => {
    truncated += 1;
    return fitAlone(row.item, tableCell(row.item.report.fullContent), tokenizer, maxTokens, headTokens);
  };
  const queue: PreparedRow[] = [];
  for (const row of shuffle(rows, seed)) {
    const fitted = headTokens + row.tokens <= maxTokens ? row : fit(row);
    if (fitted) queue.push(fitted);
  }

  const batches: ReportBatch[] = [];
  let carried: PreparedRow[] = [];
  let next = 0;
  while (next < queue.length || carried.length > 0) {
    const current = carried;
    carried = [];
    let tokens = headTokens + current.reduce((sum, row) => sum + row.tokens, 0);
    while (next < queue.length) {
      const row = queue[next] as PreparedRow;
      if (current.length > 0 && tokens + row.tokens > maxTokens) break;
      current.push(row);
      tokens += row.tokens;
      next += 1;
    }
    const ordered = current
      .map((row, position) => ({ row, position }))
      .sort(
        (left, right) =>
          right.row.item.weight - left.row.item.weight || right.row.item.report.rating - left.row.item.report.rating || left.position - right.position,
      )
      .map(({ row }) => row);
    const packed = packTable(
      reportsTableTitle,
      reportsTableHeader,
      ordered.map((row) => ({ row: row.row, item: row })),
      tokenizer,
      maxTokens,
    );
    if (packed.included.length === 0) {
      // Only a first row whose whole table is a token over (its own count was within) ends up here: cut it to fit.
      const [first, ...rest] = ordered;
      const fitted = first ? fit(first) : undefined;
      carried = fitted ? [fitted, ...rest] : rest;
      continue;
    }
    const included = new Set(packed.included);
    carried = ordered.filter((row) => !included.has(row));
    batches.push({ text: packed.text, tokens: packed.tokens, reports: packed.included.map((row) => row.item.report) });
  }
  return { batches, truncated };
}
