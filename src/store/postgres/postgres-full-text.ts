import { hasCjkLetter } from '../../text/cjk-letters.js';
import { wordTokens } from '../../text/word-tokens.js';
import { snakeCase, type AnyTableSpec } from '../schema.js';
import { fullTextIndexText } from '../sqlite/sqlite-store.js';
import type { ScoredId } from '../store.js';
import { fullTextLengthColumn, termTableOf } from './postgres-migrations.js';
import { quoteIdentifier, type SqlRunner } from './postgres-sql.js';

/*
 * BM25 exactly as SQLite's FTS5 `bm25()` computes it, over term statistics kept in tables: the rows' term
 * frequencies (`<table>_terms`), their lengths (`fts_length`) and the collection's row and token counts
 * (`full_text_totals`). A row's text is indexed as the SQLite backend indexes it (`fullTextIndexText`), so both
 * backends rank the same rows with the same scores.
 */

/** FTS5's constants. */
const k1 = 1.2;
const b = 0.75;

/** A row's indexed terms: how often each occurs, and how many tokens the row has (BM25's document length). */
export interface IndexedTerms {
  frequencies: Map<string, number>;
  length: number;
}

/** The tokens of a row's full-text columns as the index holds them, column by column. */
function columnTokens(spec: AnyTableSpec, row: Record<string, unknown>): string[][] {
  return (spec.fullText ?? []).map((column) => {
    const value = row[column];
    const text = fullTextIndexText(typeof value === 'string' ? value : null);
    return text === '' ? [] : text.split(' ');
  });
}

/**
 * What a row adds to the index. FTS5 with its default column weights of 1 sums a term's hits over the columns
 * and the row's length over the columns, so the columns' tokens pool.
 */
export function indexedTermsOf(spec: AnyTableSpec, row: Record<string, unknown>): IndexedTerms {
  const frequencies = new Map<string, number>();
  let length = 0;
  for (const tokens of columnTokens(spec, row)) {
    length += tokens.length;
    for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
  }
  return { frequencies, length };
}

/**
 * The tokens FTS5 reads from one quoted query term: its unicode61 tokenizer folds case and diacritics and splits at
 * anything but letters and digits, without the CJK bigrams of `wordTokens` (a CJK run is one token).
 */
function phraseTokens(term: string): string[] {
  if (!hasCjkLetter(term)) return wordTokens(term);
  const folded = term.normalize('NFD').replace(/[^\P{M}\u3099\u309a]+/gu, '').toLowerCase().normalize('NFC');
  return folded.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** How often `phrase` occurs in `tokens` (overlapping occurrences count, as FTS5's phrase instances do). */
function occurrences(tokens: readonly string[], phrase: readonly string[]): number {
  let count = 0;
  for (let start = 0; start + phrase.length <= tokens.length; start++) {
    let matches = true;
    for (let offset = 0; offset < phrase.length && matches; offset++) matches = tokens[start + offset] === phrase[offset];
    if (matches) count++;
  }
  return count;
}

/**
 * BM25 search of one table: `terms` are FTS5 query phrases (usually one word each), OR-ed. FTS5's formula:
 * score = Σ_phrases idf · (f · (k1 + 1)) / (f + k1 · (1 − b + b · D / avgdl)), idf = ln((N − n + 0.5) / (n + 0.5))
 * or 1e-6 when that is not positive; summed in phrase order so that the same rows score the same doubles.
 */
export async function searchFullText(
  run: SqlRunner,
  schema: string,
  scope: readonly [string, number],
  spec: AnyTableSpec,
  terms: readonly string[],
  k: number,
): Promise<ScoredId[]> {
  const unique = [...new Set(terms.map((term) => term.trim()).filter((term) => term.length > 0))];
  if (unique.length === 0 || k <= 0) return [];
  const table = `${schema}.${quoteIdentifier(spec.sqlName)}`;
  const termTable = `${schema}.${quoteIdentifier(termTableOf(spec))}`;
  const words: string[] = [];
  const wordOrdinals: number[] = [];
  const phraseRows: number[] = [];
  const phraseFrequencies: number[] = [];
  const phraseOrdinals: number[] = [];
  for (const [ordinal, term] of unique.entries()) {
    const tokens = phraseTokens(term);
    if (tokens.length === 1) {
      words.push(tokens[0] as string);
      wordOrdinals.push(ordinal);
    } else if (tokens.length > 1) {
      // A phrase: the rows that hold all its words, then where the words follow each other in one column.
      const distinct = [...new Set(tokens)];
      const candidates = await run.rows<Record<string, unknown> & { hid: number }>(
        `SELECT t.hid, ${(spec.fullText ?? []).map((column) => `t.${quoteIdentifier(snakeCase(column))} AS ${quoteIdentifier(column)}`).join(', ')}
         FROM ${table} t JOIN (SELECT hid FROM ${termTable} WHERE workspace = $1 AND generation = $2 AND term = ANY($3::text[]) GROUP BY hid HAVING count(*) = $4) m
           ON t.hid = m.hid WHERE t.workspace = $1 AND t.generation = $2`,
        [scope[0], scope[1], distinct, distinct.length],
      );
      for (const candidate of candidates) {
        const hits = columnTokens(spec, candidate).reduce((sum, columnWords) => sum + occurrences(columnWords, tokens), 0);
        if (hits === 0) continue;
        phraseRows.push(candidate.hid);
        phraseFrequencies.push(hits);
        phraseOrdinals.push(ordinal);
      }
    }
  }
  if (words.length === 0 && phraseRows.length === 0) return [];
  const key = quoteIdentifier(snakeCase(spec.key[0] as string));
  const idf = 'ln((totals.n - w.hits + 0.5::float8) / (w.hits + 0.5::float8))';
  const rows = await run.rows<{ id: string; score: number }>(
    `WITH totals AS (
       SELECT rows::float8 AS n, tokens::float8 AS tokens FROM ${schema}.full_text_totals WHERE workspace = $1 AND generation = $2 AND table_name = $3
     ), postings AS (
       SELECT p.hid, p.tf::float8 AS tf, q.ordinal FROM unnest($4::text[], $5::integer[]) AS q(term, ordinal)
         JOIN ${termTable} p ON p.workspace = $1 AND p.generation = $2 AND p.term = q.term
       UNION ALL
       SELECT x.hid, x.tf, x.ordinal FROM unnest($6::bigint[], $7::float8[], $8::integer[]) AS x(hid, tf, ordinal)
     ), weighted AS (
       SELECT hid, tf, ordinal, count(*) OVER (PARTITION BY ordinal)::float8 AS hits FROM postings
     ), scored AS (
       SELECT w.hid, d.${key} AS id, sum(
           (CASE WHEN ${idf} <= 0 THEN 1e-6::float8 ELSE ${idf} END)
           * ((w.tf * ($9::float8 + 1.0::float8)) / (w.tf + $9::float8 * (1.0::float8 - $10::float8 + $10::float8 * d.${fullTextLengthColumn}::float8 / (totals.tokens / totals.n))))
           ORDER BY w.ordinal) AS score
       FROM weighted w CROSS JOIN totals JOIN ${table} d ON d.workspace = $1 AND d.generation = $2 AND d.hid = w.hid
       GROUP BY w.hid, d.${key}
     )
     SELECT id, score FROM scored ORDER BY score DESC, hid LIMIT $11`,
    [scope[0], scope[1], spec.sqlName, words, wordOrdinals, phraseRows, phraseFrequencies, phraseOrdinals, k1, b, k],
  );
  return rows.map((row) => ({ id: row.id, score: row.score }));
}

/** Term rows to take out and to write, and the change of the collection's counts, after rows changed. */
export interface TermChanges {
  removedTerms: string[];
  removedRows: number[];
  addedTerms: string[];
  addedRows: number[];
  addedFrequencies: number[];
  rows: number;
  tokens: number;
}

export function emptyTermChanges(): TermChanges {
  return { removedTerms: [], removedRows: [], addedTerms: [], addedRows: [], addedFrequencies: [], rows: 0, tokens: 0 };
}

/** Records that row `hid` went from `before` (undefined: it is new) to `after` (undefined: it is deleted). */
export function recordTermChange(changes: TermChanges, hid: number, before: IndexedTerms | undefined, after: IndexedTerms | undefined): void {
  changes.rows += (after ? 1 : 0) - (before ? 1 : 0);
  changes.tokens += (after?.length ?? 0) - (before?.length ?? 0);
  for (const term of before?.frequencies.keys() ?? []) {
    if (after?.frequencies.has(term)) continue;
    changes.removedTerms.push(term);
    changes.removedRows.push(hid);
  }
  for (const [term, frequency] of after?.frequencies ?? []) {
    if (before?.frequencies.get(term) === frequency) continue;
    changes.addedTerms.push(term);
    changes.addedRows.push(hid);
    changes.addedFrequencies.push(frequency);
  }
}

/** Applies term changes in one statement (the removed and the written term rows never overlap). */
export async function applyTermChanges(run: SqlRunner, schema: string, scope: readonly [string, number], spec: AnyTableSpec, changes: TermChanges): Promise<void> {
  if (changes.removedTerms.length === 0 && changes.addedTerms.length === 0 && changes.rows === 0 && changes.tokens === 0) return;
  const termTable = `${schema}.${quoteIdentifier(termTableOf(spec))}`;
  await run.rows(
    `WITH removed AS (
       DELETE FROM ${termTable} t USING unnest($4::text[], $5::bigint[]) AS r(term, hid)
       WHERE t.workspace = $1 AND t.generation = $2 AND t.term = r.term AND t.hid = r.hid
     ), added AS (
       INSERT INTO ${termTable} (workspace, generation, term, hid, tf) SELECT $1, $2, a.term, a.hid, a.tf FROM unnest($6::text[], $7::bigint[], $8::integer[]) AS a(term, hid, tf)
       ON CONFLICT (workspace, generation, term, hid) DO UPDATE SET tf = excluded.tf
     )
     INSERT INTO ${schema}.full_text_totals (workspace, generation, table_name, rows, tokens) VALUES ($1, $2, $3, $9, $10)
     ON CONFLICT (workspace, generation, table_name) DO UPDATE SET rows = full_text_totals.rows + excluded.rows, tokens = full_text_totals.tokens + excluded.tokens`,
    [scope[0], scope[1], spec.sqlName, changes.removedTerms, changes.removedRows, changes.addedTerms, changes.addedRows, changes.addedFrequencies, changes.rows, changes.tokens],
  );
}
