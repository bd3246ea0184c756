import { cjkLetterClass, hasCjkLetter } from './cjk-letters.js';
import { bm25Stopwords } from './stopwords.js';

const wordPattern = /[\p{L}\p{N}]+/gu;
/** Combining marks but the kana voicing marks: "で" is not "て" (NFC puts them back on their kana). */
const combiningMarks = /[^\P{M}\u3099\u309a]+/gu;
/** A run of CJK letters, or a run of other letters and digits. */
const mixedWordPattern = new RegExp(`[${cjkLetterClass}]+|(?:(?![${cjkLetterClass}])[\\p{L}\\p{N}])+`, 'gu');

/**
 * Lower-cased letter/digit runs with diacritics removed — the same word boundaries as SQLite FTS5's
 * `unicode61 remove_diacritics 2` tokenizer, so query terms match what the BM25 index holds.
 *
 * Chinese, Japanese and Korean text has no spaces between words (Korean glues particles to them), so a run of
 * their letters would be one token per clause and match nothing: such runs become overlapping character
 * bigrams instead ("東京都" → "東京", "京都"; a lone character stays a unigram), the indexing unit of CJK
 * search engines (Lucene's CJKAnalyzer). Bigrams need no dictionary, so tokens do not depend on the ICU data
 * of the Node build, as `Intl.Segmenter`'s would. Text without CJK letters is tokenized as before.
 */
export function wordTokens(text: string): string[] {
  const folded = text.normalize('NFD').replace(combiningMarks, '').toLowerCase();
  if (!hasCjkLetter(folded)) return folded.match(wordPattern) ?? [];
  // NFD split Hangul syllables into jamo and voiced kana into kana and mark; compose them again.
  const tokens: string[] = [];
  for (const run of folded.normalize('NFC').match(mixedWordPattern) ?? []) {
    if (!hasCjkLetter(run)) {
      tokens.push(run);
      continue;
    }
    const characters = Array.from(run);
    if (characters.length === 1) tokens.push(run);
    for (let index = 0; index + 1 < characters.length; index++) tokens.push(`${characters[index]}${characters[index + 1]}`);
  }
  return tokens;
}

/** Distinct query terms without stopwords (by default the BM25 index's list), in first-seen order. */
export function queryTerms(text: string, stopwords: ReadonlySet<string> = bm25Stopwords): string[] {
  return [...new Set(wordTokens(text).filter((token) => !stopwords.has(token)))];
}
