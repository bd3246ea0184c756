/*
 * The exact-merge key of an entity name (SPEC §4.3, first stage of entity resolution). GraphRAG merges
 * extracted entities by their upper-cased title only (microsoft/graphrag `index/workflows/extract_graph.py`, `index/operations/extract_graph/graph_extractor.py`), so "Sherlock
 * Holmes", "SHERLOCK HOLMES." and "Sherlock  Holmes" are three nodes there when a model varies spelling
 * (microsoft/graphrag#401). The key below removes only differences that never change *which* thing is
 * named; everything riskier is left to the candidate stage, where embeddings and the LLM decide.
 */

/**
 * Titles dropped in front of a full name. Only abbreviations and words that are titles in every context:
 * "General", "Captain", "Lord" or "Lady" are left alone because they start names of other things
 * ("General Motors", "Captain America", "Lady Gaga").
 */
export const honorifics: ReadonlySet<string> = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'professor',
  'sir',
  'dame',
  'rev',
  'revd',
  'reverend',
  'hon',
]);

/** Quote and sentence punctuation stripped from both ends of a word; `#`, `+`, `&`, `'` inside words stay. */
const edgePunctuation = /^['"`´«»‹›.,;:!?*_~]+|['"`´«»‹›.,;:!?*_~]+$/gu;

/** Single letters with dots, "u.s.a." or "j.r.r", become "usa" / "jrr". */
const dottedInitials = /^(?:\p{L}\.){2,}$|^(?:\p{L}\.)+\p{L}$/u;

/**
 * The key under which two extracted names are the same entity without further evidence:
 *
 * 1. Unicode NFKC (full-width letters, ligatures), typographic quotes to ASCII, lower case.
 * 2. Dashes become spaces ("Jean-Luc" = "Jean Luc"); a spaced `&` becomes "and" ("Procter & Gamble");
 *    brackets, quotes, commas and other separators become spaces; whitespace is collapsed.
 * 3. Quotes and sentence punctuation are stripped from the ends of every word ("Holmes." = "Holmes"),
 *    while symbols that are part of names stay ("C++", "C#", "AT&T", "O'Brien", "McDonald's"); dotted
 *    initials lose their dots ("U.S.A." = "USA").
 * 4. A leading "the" is dropped when something remains ("The Beatles" = "Beatles").
 * 5. Leading {@link honorifics} are dropped only when at least two words remain — "Dr. John Watson" =
 *   "John Watson". Before a bare surname they are kept ("Mr. Holmes" stays "mr holmes"): "Mr. Smith" and
 *    "Mrs. Smith" are usually two people, and "Mr. Holmes" may be Sherlock or Mycroft, so merging those
 *    is the candidate stage's job, with evidence. "Mrs" is never dropped: "Mrs Leonard Cotterill" is
 *    Leonard's wife, named the old way after her husband.
 *
 * Deliberately *not* done: stripping possessives ("McDonald's" ≠ "McDonald"), company suffixes ("Apple
 * Inc." ≠ "Apple", the fruit), "Jr."/"Sr." (father ≠ son), reordering words ("Holmes, Sherlock"), stemming.
 * An empty result means the name had no usable characters.
 */
export function normalizeEntityName(name: string): string {
  const tokens = nameWords(name);
  if (tokens[0] === 'the' && tokens.length > 1) tokens.shift();
  while (tokens.length > 2 && startsWithHonorific(tokens) && tokens[0] !== 'mrs') tokens.shift();
  return tokens.join(' ');
}

/**
 * Whether the first word is an honorific that titles the words after it; not in "Mr. and Mrs. Smith",
 * where dropping "Mr." would leave "and Mrs. Smith".
 */
export function startsWithHonorific(words: readonly string[]): boolean {
  return honorifics.has(words[0] ?? '') && words[1] !== 'and' && words[1] !== 'or';
}

/** Steps 1–3 of {@link normalizeEntityName}: the cleaned, lower-case words of a name. */
export function nameWords(name: string): string[] {
  const text = name
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u201a\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033]/g, '"')
    .toLowerCase()
    .replace(/[\p{Pd}]/gu, ' ')
    .replace(/\s&\s/g, ' and ')
    .replace(/[()[\]{}<>"|/\\,;:]/g, ' ');
  const words: string[] = [];
  for (const raw of text.split(/\s+/)) {
    const word = dottedInitials.test(raw) ? raw.replaceAll('.', '') : raw.replace(edgePunctuation, '');
    if (word.length > 0) words.push(word);
  }
  return words;
}
