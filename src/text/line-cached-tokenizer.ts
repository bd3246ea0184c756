import { isTokenNeutralLineStart } from './encoding-blocks.js';
import type { Tokenizer } from './tokenizer.js';

/** Line groups whose counts are remembered, at most; the oldest are forgotten first. */
const defaultCapacity = 50_000;

/**
 * A tokenizer whose `count` remembers what it counted, line group by line group. A query's context is rows of
 * records (reports, entities, relationships, text units) joined by line breaks, and the same rows come back in
 * query after query, each counted several times (packing a table, then the table, then the whole context). The
 * text is cut where a line starts with a letter or digit after a non-space, a boundary that changes no token
 * (`isTokenNeutralLineStart`), and the pieces' remembered counts are summed: exactly `tokenizer.count(text)`,
 * without encoding a known row again. Everything else is the wrapped tokenizer's.
 */
export function lineCachedTokenizer(tokenizer: Tokenizer, capacity = defaultCapacity): Tokenizer {
  const counts = new Map<string, number>();
  const countPiece = (piece: string): number => {
    let count = counts.get(piece);
    if (count === undefined) {
      count = tokenizer.count(piece);
      if (counts.size >= capacity) counts.delete(counts.keys().next().value as string);
      counts.set(piece, count);
    }
    return count;
  };
  const count = (text: string): number => {
    let total = 0;
    let start = 0;
    // A cut needs two characters on each side of it.
    for (let line = text.indexOf('\n', 1); line !== -1 && line + 3 <= text.length; line = text.indexOf('\n', line + 1)) {
      const cut = line + 1;
      if (cut - start < 2 || !isTokenNeutralLineStart(text, cut)) continue;
      total += countPiece(text.slice(start, cut));
      start = cut;
    }
    return total + countPiece(text.slice(start));
  };
  return {
    encoding: tokenizer.encoding,
    encode: (text) => tokenizer.encode(text),
    decode: (tokens) => tokenizer.decode(tokens),
    count,
    tokenize: (text) => tokenizer.tokenize(text),
    tokenizeTask: (text) => tokenizer.tokenizeTask(text),
    // Remembered counts make a pause pointless: the count is returned at the first step.
    countTask: function* (text) {
      return count(text);
    },
  };
}
