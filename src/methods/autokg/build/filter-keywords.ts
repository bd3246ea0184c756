/*
 * The text filters AutoKG applies to keyword lists (wispcarey/AutoKG
 * `autoKG_full.py`): `process_strings` (deduplicate by a key without case, whitespace and punctuation, keep
 * the first occurrence) and `sub_entry_filter` (drop every keyword that contains another keyword, so the
 * shorter, more general one stays). Two deliberate differences from the reference: the substring test is
 * case-insensitive ("Recycling" removes "plastic recycling"), and every keyword is trimmed of whitespace,
 * quotes, bullets and trailing punctuation (the reference saved its final list with leading spaces and
 * embedded them that way).
 */

/** Options of {@link filterKeywords}. */
export interface FilterKeywordsOptions {
  /** Keywords with more words than this are dropped (AutoKG `max_length`, l2). @default no limit */
  maxWords?: number;
  /** Run the substring filter. @default true */
  substringFilter?: boolean;
}

/** AutoKG's comparison key (`process_strings`): lower case with whitespace and punctuation removed. */
export function keywordCompareKey(text: string): string {
  return text.toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, '');
}

/** A keyword as written by a model, without surrounding whitespace, quotes, bullets or trailing punctuation. */
export function trimKeyword(text: string): string {
  return text
    .replace(/^\s*(?:[-*•·]|\d+[.)])\s+/u, '')
    .replace(/^[\s"'`“”‘’<>«»[\](){}]+|[\s"'`“”‘’<>«»[\](){}.,;:!?]+$/gu, '')
    .replace(/\s+/gu, ' ');
}

/**
 * Trims, drops empty and over-long keywords, deduplicates by {@link keywordCompareKey} (first occurrence
 * wins) and removes every keyword that contains another one as a case-insensitive substring. Order is kept.
 */
export function filterKeywords(keywords: Iterable<string>, options: FilterKeywordsOptions = {}): string[] {
  const maxWords = options.maxWords ?? Number.POSITIVE_INFINITY;
  const seen = new Set<string>();
  const unique: string[] = [];
  for (const raw of keywords) {
    const keyword = trimKeyword(raw);
    const key = keywordCompareKey(keyword);
    if (key === '' || seen.has(key) || keyword.split(' ').length > maxWords) continue;
    seen.add(key);
    unique.push(keyword);
  }
  return options.substringFilter === false ? unique : removeSuperstrings(unique);
}

/**
 * `sub_entry_filter` without case: a keyword goes when another (distinct) keyword occurs inside it. The
 * reference's forward and backward passes reach the same fixed point as this one test against every
 * other keyword, since containment is transitive. Shortest keywords are checked first so the scan over
 * candidates stops early; O(K² · length) for the few hundred keywords AutoKG makes.
 */
function removeSuperstrings(keywords: readonly string[]): string[] {
  const lower = keywords.map((keyword) => keyword.toLowerCase());
  const byLength = lower.map((_, index) => index).sort((left, right) => (lower[left] as string).length - (lower[right] as string).length || left - right);
  return keywords.filter((_, index) => {
    const text = lower[index] as string;
    for (const other of byLength) {
      const candidate = lower[other] as string;
      if (candidate.length >= text.length) break;
      if (text.includes(candidate)) return false;
    }
    return true;
  });
}
