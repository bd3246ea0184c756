import { topIndices } from '../../math/top-indices.js';
import type { SearchNumbers } from './config.js';

/** Why a text was retrieved; a text found several ways keeps every reason, in the order found. */
export type RetrievalReason =
  | { kind: 'query' }
  | { kind: 'keyword'; keyword: number }
  | { kind: 'adjacent-keyword'; keyword: number; from: number[] };

/** A keyword reached through the keyword graph, with the similar keywords it is adjacent to. */
export interface AdjacentKeyword {
  keyword: number;
  /** Similar keywords it was found from, in search order, with the weight of the edge to each. */
  from: Array<{ keyword: number; weight: number }>;
}

/** What the search reads: scores against the query and lookups into the keyword graph (rows are indices). */
export interface HybridSearchInput {
  /** Cosine similarity of the query with each text; the smallest angle is the largest cosine. */
  textScores: ArrayLike<number>;
  /** Cosine similarity of the query with each keyword. */
  keywordScores: ArrayLike<number>;
  /** The `count` texts of a keyword, best first (by angle, or by Laplace score u). */
  keywordTexts(keyword: number, count: number): number[];
  /** A keyword's neighbours in the keyword graph, heaviest edge first, ties by lower keyword index. */
  neighbours(keyword: number): ReadonlyArray<{ keyword: number; weight: number }>;
  numbers: SearchNumbers;
}

/** The texts found, deduplicated, and the keywords that led to them. */
export interface HybridSearchResult {
  texts: Array<{ text: number; reasons: RetrievalReason[] }>;
  similarKeywords: number[];
  adjacentKeywords: AdjacentKeyword[];
}

/**
 * AutoKG's hybrid search (`KG_prompt`, wispcarey/AutoKG `autoKG_full.py`):
 *
 * 1. the `s0t` texts nearest the query;
 * 2. the `s1k` keywords nearest the query, and for each in rank order its `s1t` texts;
 * 3. for each similar keyword its `s2k` heaviest neighbours in the keyword graph; the adjacent keywords are
 *    deduplicated keeping first occurrences (their sources merged), and those that are themselves similar
 *    keywords are dropped;
 * 4. the `s2t` texts of each adjacent keyword.
 *
 * Texts are deduplicated in that order — query texts by rank, then each similar keyword's, then each
 * adjacent keyword's — and keep every reason they were found for. Ranks break ties by lower index everywhere
 * (the reference's `argpartition` left them arbitrary).
 */
export function hybridSearch(input: HybridSearchInput): HybridSearchResult {
  const { numbers } = input;
  const found = new Map<number, RetrievalReason[]>();
  const add = (text: number, reason: RetrievalReason): void => {
    const reasons = found.get(text);
    if (reasons) reasons.push(reason);
    else found.set(text, [reason]);
  };
  for (const text of topIndices(input.textScores, numbers.s0t)) add(text, { kind: 'query' });

  const similarKeywords = topIndices(input.keywordScores, numbers.s1k);
  const similar = new Set(similarKeywords);
  const adjacent = new Map<number, AdjacentKeyword>();
  for (const keyword of similarKeywords) {
    for (const text of input.keywordTexts(keyword, numbers.s1t)) add(text, { kind: 'keyword', keyword });
    for (const neighbour of input.neighbours(keyword).slice(0, numbers.s2k)) {
      if (similar.has(neighbour.keyword)) continue;
      const entry = adjacent.get(neighbour.keyword) ?? { keyword: neighbour.keyword, from: [] };
      entry.from.push({ keyword, weight: neighbour.weight });
      adjacent.set(neighbour.keyword, entry);
    }
  }
  const adjacentKeywords = [...adjacent.values()];
  for (const { keyword, from } of adjacentKeywords) {
    for (const text of input.keywordTexts(keyword, numbers.s2t)) add(text, { kind: 'adjacent-keyword', keyword, from: from.map((source) => source.keyword) });
  }
  return { texts: [...found].map(([text, reasons]) => ({ text, reasons })), similarKeywords, adjacentKeywords };
}
