import { bm25Stopwords } from '../../text/stopwords.js';
import { wordTokens } from '../../text/word-tokens.js';

/**
 * Text as the BM25 index sees it, in every backend: the same words FTS5's unicode61 tokenizer finds, minus the BM25
 * stop list. Queries drop the same words, so keeping them in documents would only inflate document lengths and move
 * the ranking away from a textbook BM25's (docs/BENCHMARKS.md, "Harness validation").
 */
export function fullTextIndexText(text: string | null): string {
  return text === null ? '' : wordTokens(text).filter((token) => !bm25Stopwords.has(token)).join(' ');
}
