import type { ByteBudgetLru } from '../../core/byte-budget-lru.js';
import { hasCjkLetter } from '../../text/cjk-letters.js';
import { wordTokens } from '../../text/word-tokens.js';
import { snakeCase, type AnyTableSpec } from '../schema.js';
import { fullTextIndexText } from '../core/full-text-index-text.js';
import type { ScoredId } from '../store.js';
import { termTableOf } from './postgres-migrations.js';
import { lockForWrite, quoteIdentifier, quoteLiteral, type SqlRunner } from './postgres-sql.js';
import { retireOlder, visibleAt } from './postgres-row-versions.js';
import { decodeTermPostings, encodeTermPostings, type TermPostings } from '../postings-codec.js';

/*
 * BM25 exactly as SQLite's FTS5 `bm25()` computes it, over statistics kept in tables: per term, the rows that hold
 * it with the term's frequency and the row's length (`<table>_postings`, one blob of varints per term), and the collection's
 * row and token counts (`full_text_totals`). A row's text is indexed as the SQLite backend indexes it
 * (`fullTextIndexText`), so both backends rank the same rows with the same scores. Postings read for a query stay in
 * memory for later queries in a least-recently-used cache with a byte budget (`store.postingsCacheMb`), keyed by
 * table, the index's revision (bumped by every write) and term, so an entry of an older revision is never read again
 * and ages out first.
 */

/** FTS5's constants. */
const k1 = 1.2;
const b = 0.75;
/** A row's indexed terms: how often each occurs, and how many tokens the row has (BM25's document length). */
export interface IndexedTerms {
  frequencies: Map<string, number>;
  length: number;
}

type Postings = TermPostings;

/** What a full-text index keeps in memory for one revision besides its postings: filled as queries need it. */
export interface FullTextCache {
  revision: number;
  /** The collection's row and token counts at that revision. */
  rows: number;
  tokens: number;
  /** Row ids by hid: at most one short string per row of the table, read for the rows queries returned. */
  ids: Map<number, string>;
}

/** Postings in memory, shared by a store's full-text indexes: keys from {@link postingsKey}. */
export type PostingsCache = ByteBudgetLru<string, Postings>;

/**
 * What one cached postings list holds: its three arrays (8 + 4 + 4 bytes an entry), its key (at most 2 bytes a
 * character), and 730 bytes of objects around them (three typed arrays and their buffers, the records, the map's
 * entry): heap and array buffers grew by 745 bytes a list when 200,000 lists of one entry were cached
 * (`process.memoryUsage()` after a full collection, keys made beforehand).
 */
export function postingsBytes(postings: Postings, key: string): number {
  return postings.hids.byteLength + postings.frequencies.byteLength + postings.lengths.byteLength + 2 * key.length + 730;
}

/** Where one full-text index lives: the table spec, the quoted schema, workspace and generation, and the caches. */
export interface FullTextScope {
  spec: AnyTableSpec;
  schema: string;
  scope: readonly [string, number];
  caches: Map<string, FullTextCache>;
  postings: PostingsCache;
  /** A published generation: a cache, once made, holds for good (no revision check). */
  frozen: boolean;
}

/** The cache key of a term's (or, with a leading space, a phrase's) postings in one revision of one table's index. */
function postingsKey(index: FullTextScope, cache: FullTextCache, term: string): string {
  return `${index.spec.sqlName}\u0000${cache.revision}\u0000${term}`;
}

const noPostings: Postings = { hids: new Float64Array(0), frequencies: new Uint32Array(0), lengths: new Uint32Array(0) };

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

function termTable(index: FullTextScope): string {
  return `${index.schema}.${quoteIdentifier(termTableOf(index.spec))}`;
}

/** Terms in one parameter: index tokens hold no spaces, and one long string is far cheaper to send than a text[]. */
function joinedTerms(terms: readonly string[]): string {
  return terms.join(' ');
}

/**
 * The postings of `terms` (an absent term has none): those in memory, the others read and kept there. Returned
 * apart from the cache, which may drop some of them again before the query has used them.
 */
async function readPostings(run: SqlRunner, index: FullTextScope, cache: FullTextCache, terms: readonly string[]): Promise<Map<string, Postings>> {
  const found = new Map<string, Postings>();
  const missing: string[] = [];
  for (const term of terms) {
    const known = index.postings.get(postingsKey(index, cache, term));
    if (known) found.set(term, known);
    else missing.push(term);
  }
  if (missing.length === 0) return found;
  const rows = await run.rows<{ term: string; postings: Buffer }>(
    `SELECT term, postings FROM ${termTable(index)} WHERE workspace = $1 AND ${visibleAt()} AND term = ANY(string_to_array($3, ' '))`,
    [...index.scope, joinedTerms(missing)],
  );
  const read = new Map(rows.map((row) => [row.term, decodeTermPostings(row.postings)]));
  for (const term of missing) {
    const postings = read.get(term) ?? noPostings;
    found.set(term, postings);
    index.postings.set(postingsKey(index, cache, term), postings);
  }
  return found;
}

/**
 * BM25 search of one table: `terms` are FTS5 query phrases (usually one word each), OR-ed. FTS5's formula:
 * score = Σ_phrases idf · (f · (k1 + 1)) / (f + k1 · (1 − b + b · D / avgdl)), idf = ln((N − n + 0.5) / (n + 0.5))
 * or 1e-6 when that is not positive, summed in phrase order, as FTS5 sums it, so that rows score the same doubles.
 */
export async function searchFullText(run: SqlRunner, index: FullTextScope, terms: readonly string[], k: number): Promise<ScoredId[]> {
  const unique = [...new Set(terms.map((term) => term.trim()).filter((term) => term.length > 0))];
  if (unique.length === 0 || k <= 0) return [];
  let cache = index.caches.get(index.spec.sqlName);
  if (!index.frozen || !cache) {
    const [totals] = await run.rows<{ rows: number; tokens: number; revision: number }>(
      `SELECT rows, tokens, revision FROM ${index.schema}.full_text_totals WHERE workspace = $1 AND ${visibleAt()} AND table_name = $3`,
      [...index.scope, index.spec.sqlName],
    );
    // An index never written has no totals: revision -1, which no write gives.
    const current = totals ?? { rows: 0, tokens: 0, revision: -1 };
    if (cache?.revision !== current.revision) {
      cache = { revision: current.revision, rows: current.rows, tokens: current.tokens, ids: new Map() };
      index.caches.set(index.spec.sqlName, cache);
    }
  }
  const totals = cache;
  if (totals.rows === 0) return [];
  const phrases = unique.map(phraseTokens);
  const words = await readPostings(run, index, cache, [...new Set(phrases.flat())]);
  const postingsOf = await Promise.all(phrases.map((tokens) => phrasePostings(run, index, cache, words, tokens)));
  const averageLength = totals.tokens / totals.rows;
  const scores = new Map<number, number>();
  for (const postings of postingsOf) {
    const hits = postings.hids.length;
    if (hits === 0) continue;
    const logarithm = Math.log((totals.rows - hits + 0.5) / (hits + 0.5));
    const idf = logarithm <= 0 ? 1e-6 : logarithm;
    for (let entry = 0; entry < hits; entry++) {
      const frequency = postings.frequencies[entry] as number;
      const length = postings.lengths[entry] as number;
      const hid = postings.hids[entry] as number;
      scores.set(hid, (scores.get(hid) ?? 0) + idf * ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + (b * length) / averageLength))));
    }
  }
  const ranked = [...scores].sort((left, right) => right[1] - left[1] || left[0] - right[0]).slice(0, k);
  const unknown = ranked.filter(([hid]) => !cache.ids.has(hid)).map(([hid]) => hid);
  if (unknown.length > 0) {
    const key = quoteIdentifier(snakeCase(index.spec.key[0] as string));
    const rows = await run.rows<{ hid: number; id: string }>(
      `SELECT hid, ${key} AS id FROM ${index.schema}.${quoteIdentifier(index.spec.sqlName)} WHERE workspace = $1 AND ${visibleAt()} AND hid = ANY($3::bigint[])`,
      [...index.scope, unknown],
    );
    for (const row of rows) cache.ids.set(row.hid, row.id);
  }
  return ranked.map(([hid, score]) => ({ id: cache.ids.get(hid) as string, score }));
}

/**
 * The postings of one query phrase: a word's own (from `words`, the query's words' postings); for several words, the
 * rows holding all of them where they follow each other within one column, counted by reading those rows' text (kept
 * in the cache, like a word's).
 */
async function phrasePostings(run: SqlRunner, index: FullTextScope, cache: FullTextCache, words: ReadonlyMap<string, Postings>, tokens: readonly string[]): Promise<Postings> {
  if (tokens.length === 0) return noPostings;
  if (tokens.length === 1) return words.get(tokens[0] as string) ?? noPostings;
  const key = postingsKey(index, cache, ` ${tokens.join(' ')}`);
  const known = index.postings.get(key);
  if (known) return known;
  const lists = [...new Set(tokens)].map((token) => words.get(token) ?? noPostings);
  const shortest = lists.reduce((best, list) => (list.hids.length < best.hids.length ? list : best));
  const others = lists.filter((list) => list !== shortest).map((list) => new Set(list.hids));
  const candidates: number[] = [];
  const lengths = new Map<number, number>();
  shortest.hids.forEach((hid, entry) => {
    if (!others.every((set) => set.has(hid))) return;
    candidates.push(hid);
    lengths.set(hid, shortest.lengths[entry] as number);
  });
  const hits: Array<[number, number]> = [];
  if (candidates.length > 0) {
    const columns = (index.spec.fullText ?? []).map((column) => `${quoteIdentifier(snakeCase(column))} AS ${quoteIdentifier(column)}`);
    const rows = await run.rows<Record<string, unknown> & { hid: number }>(
      `SELECT hid, ${columns.join(', ')} FROM ${index.schema}.${quoteIdentifier(index.spec.sqlName)} WHERE workspace = $1 AND ${visibleAt()} AND hid = ANY($3::bigint[]) ORDER BY hid`,
      [...index.scope, candidates],
    );
    for (const row of rows) {
      const count = columnTokens(index.spec, row).reduce((sum, words) => sum + occurrences(words, tokens), 0);
      if (count > 0) hits.push([row.hid, count]);
    }
  }
  const postings: Postings = {
    hids: Float64Array.from(hits, ([hid]) => hid),
    frequencies: Uint32Array.from(hits, ([, count]) => count),
    lengths: Uint32Array.from(hits, ([hid]) => lengths.get(hid) as number),
  };
  index.postings.set(key, postings);
  return postings;
}

/**
 * How the index changes when rows change: per term the rows to take out, and the entries to add as flat triples
 * (hid, frequency, length: a few hundred thousand entries for a corpus, too many for an array each), and the counts.
 */
export interface TermChanges {
  removed: Map<string, Set<number>>;
  added: Map<string, number[]>;
  rows: number;
  tokens: number;
}

export function emptyTermChanges(): TermChanges {
  return { removed: new Map(), added: new Map(), rows: 0, tokens: 0 };
}

/** Records that row `hid` went from `before` (undefined: it is new) to `after` (undefined: it is deleted). */
export function recordTermChange(changes: TermChanges, hid: number, before: IndexedTerms | undefined, after: IndexedTerms | undefined): void {
  if (before) {
    changes.rows -= 1;
    changes.tokens -= before.length;
    for (const term of before.frequencies.keys()) {
      let rows = changes.removed.get(term);
      if (!rows) changes.removed.set(term, (rows = new Set()));
      rows.add(hid);
    }
  }
  if (after) {
    changes.rows += 1;
    changes.tokens += after.length;
    for (const [term, frequency] of after.frequencies) {
      let entries = changes.added.get(term);
      if (!entries) changes.added.set(term, (entries = []));
      entries.push(hid, frequency, after.length);
    }
  }
}

/** Blobs in one binary parameter and their byte lengths: a `bytea[]` goes as hex text, twice the bytes, parsed. */
export function concatenated(blobs: readonly Uint8Array[]): { bytes: Buffer; lengths: number[] } {
  return { bytes: Buffer.concat(blobs), lengths: blobs.map((blob) => blob.byteLength) };
}

/** SQL of the blobs passed by {@link concatenated}: `$bytes` the bytes, `$lengths` an integer[]; yields (ordinal, blob). */
export function splitBlobs(bytes: string, lengths: string): string {
  return `(SELECT s.ordinal, substring(${bytes}::bytea FROM (s.start - s.length + 1)::integer FOR s.length) AS blob
     FROM (SELECT l.ordinal, l.length, sum(l.length) OVER (ORDER BY l.ordinal) AS start FROM unnest(${lengths}::integer[]) WITH ORDINALITY AS l(length, ordinal)) s)`;
}

/**
 * Applies term changes: reads the postings of the terms concerned, merges, and writes them back with the new
 * totals and a new revision, in two statements.
 */
export async function applyTermChanges(run: SqlRunner, index: FullTextScope, changes: TermChanges): Promise<void> {
  if (changes.removed.size === 0 && changes.added.size === 0 && changes.rows === 0 && changes.tokens === 0) return;
  await lockForWrite(run, JSON.stringify([index.schema, ...index.scope, 'full-text', index.spec.sqlName]));
  const terms = [...new Set([...changes.removed.keys(), ...changes.added.keys()])].sort();
  const stored = new Map(
    (
      await run.rows<{ term: string; postings: Buffer }>(
        `SELECT term, postings FROM ${termTable(index)} WHERE workspace = $1 AND ${visibleAt()} AND term = ANY(string_to_array($3, ' '))`,
        [...index.scope, joinedTerms(terms)],
      )
    ).map((row) => [row.term, decodeTermPostings(row.postings)]),
  );
  const emptied: string[] = [];
  const written: string[] = [];
  const blobs: Buffer[] = [];
  for (const term of terms) {
    const removed = changes.removed.get(term);
    const added = changes.added.get(term) ?? [];
    const old = stored.get(term);
    const hids: number[] = [];
    const frequencies: number[] = [];
    const lengths: number[] = [];
    if (old) {
      for (let entry = 0; entry < old.hids.length; entry++) {
        const hid = old.hids[entry] as number;
        if (removed?.has(hid)) continue;
        hids.push(hid);
        frequencies.push(old.frequencies[entry] as number);
        lengths.push(old.lengths[entry] as number);
      }
    }
    let ascending = true;
    for (let at = 0; at < added.length; at += 3) {
      const hid = added[at] as number;
      if (hids.length > 0 && hid < (hids[hids.length - 1] as number)) ascending = false;
      hids.push(hid);
      frequencies.push(added[at + 1] as number);
      lengths.push(added[at + 2] as number);
    }
    if (hids.length === 0) {
      if (old) emptied.push(term);
      continue;
    }
    written.push(term);
    if (ascending) {
      blobs.push(encodeTermPostings(hids, frequencies, lengths));
    } else {
      const order = [...hids.keys()].sort((left, right) => (hids[left] as number) - (hids[right] as number));
      blobs.push(encodeTermPostings(order.map((at) => hids[at] as number), order.map((at) => frequencies[at] as number), order.map((at) => lengths[at] as number)));
    }
  }
  const { bytes, lengths } = concatenated(blobs);
  // New versions of the terms written and of the totals, in place of what the generation itself wrote, retiring
  // older ones; emptied terms deleted or retired.
  const changedTerms = "string_to_array($4, ' ') || string_to_array($5, ' ')";
  await run.rows(
    `WITH own AS (
       DELETE FROM ${termTable(index)} WHERE workspace = $1 AND generation = $2 AND retired IS NULL AND term = ANY(string_to_array($4, ' '))
     ), older AS (
       ${retireOlder(termTable(index), `term = ANY(${changedTerms})`)}
     ), written AS (
       INSERT INTO ${termTable(index)} (workspace, generation, term, postings)
       SELECT $1, $2, t.term, b.blob FROM unnest(string_to_array($5, ' ')) WITH ORDINALITY AS t(term, ordinal) JOIN ${splitBlobs('$6', '$7')} b ON b.ordinal = t.ordinal
       ORDER BY t.ordinal
       ON CONFLICT (workspace, term, generation) DO UPDATE SET postings = excluded.postings
     ), totals AS (
       ${retireOlder(`${index.schema}.full_text_totals`, 'table_name = $3')}
     )
     INSERT INTO ${index.schema}.full_text_totals (workspace, generation, table_name, rows, tokens, revision)
     SELECT $1, $2, $3, coalesce(o.rows, 0) + $8, coalesce(o.tokens, 0) + $9, nextval(${quoteLiteral(`${index.schema}.revisions`)})
     FROM (SELECT 1) one LEFT JOIN (SELECT rows, tokens FROM ${index.schema}.full_text_totals WHERE workspace = $1 AND ${visibleAt()} AND table_name = $3) o ON true
     ON CONFLICT (workspace, table_name, generation) DO UPDATE SET rows = excluded.rows, tokens = excluded.tokens, revision = excluded.revision`,
    [...index.scope, index.spec.sqlName, joinedTerms(emptied), joinedTerms(written), bytes, lengths, changes.rows, changes.tokens],
  );
}
