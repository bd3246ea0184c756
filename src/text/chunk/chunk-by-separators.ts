import type { Tokenizer } from '../tokenizer.js';
import { assertValidChunkOptions } from './chunk-options.js';
import { chunkByTokens } from './chunk-by-tokens.js';
import type { TextSlice } from './text-slice.js';

/** AutoKG's separators, coarsest first (reference/seed-methods.md §A.2: `my_text_splitter`). */
export const autokgSeparators: readonly string[] = ['\n\n', '\n', '. ', ' '];

/** Options of {@link chunkBySeparators}. */
export interface SeparatorChunkOptions {
  /** Most tokens per chunk; a positive integer. AutoKG: 200. */
  size: number;
  /** Separators tried coarsest first. @default {@link autokgSeparators} */
  separators?: readonly string[];
}

/**
 * AutoKG's recursive separator splitter (LangChain's `RecursiveCharacterTextSplitter` as the reference code
 * reimplements it): cut the text after every occurrence of the coarsest separator it contains, pack the
 * pieces greedily into chunks of at most `size` tokens, and split a piece that alone is over `size` with the
 * next separators, emitting its sub-chunks as they are. Two bugs of the reference are fixed:
 *
 * - no separator is lost: each piece keeps the separator that ends it (". " stays with its sentence), so the
 *   chunks tile the text and every chunk is the exact substring `text.slice(start, end)`;
 * - a piece with no separator left (one "word" over `size` tokens) is cut into token windows instead of
 *   vanishing; only a single character that alone takes more than `size` tokens can exceed it.
 *
 * Token counts are exact counts of each chunk's text, separators included (the reference did not count the
 * separators, so its chunks could exceed 200 slightly). A chunk of only whitespace is dropped, so the chunks
 * cover every other character of the text exactly once. No overlap: AutoKG has none.
 * @throws KgragError `CHUNKING_INVALID_OPTIONS` when `size` is not a positive integer.
 */
export function chunkBySeparators(text: string, tokenizer: Tokenizer, options: SeparatorChunkOptions): TextSlice[] {
  assertValidChunkOptions({ size: options.size, overlap: 0 });
  const separators = (options.separators ?? autokgSeparators).filter((separator) => separator.length > 0);
  const slices: TextSlice[] = [];
  const emit = (start: number, end: number, nTokens: number): void => {
    if (/\S/u.test(text.slice(start, end))) slices.push({ text: text.slice(start, end), start, end, nTokens });
  };
  const count = (start: number, end: number): number => tokenizer.count(text.slice(start, end));

  /** Splits `[start, end)`, which is over `size` tokens, with the separators from `level` on. */
  const split = (start: number, end: number, level: number): void => {
    let found = level;
    while (found < separators.length && !occursIn(text, separators[found]!, start, end)) found++;
    const separator = separators[found];
    if (separator === undefined) {
      // Token windows, each shortened until its own text fits: a character split across tokens (CJK, emoji) can
      // make a window's text alone count more tokens than the window had.
      for (let cursor = start; cursor < end; ) {
        const [window] = chunkByTokens(text.slice(cursor, end), tokenizer, { size: options.size, overlap: 0 });
        let stop = cursor + (window?.end ?? end - cursor);
        while (count(cursor, stop) > options.size) {
          const previous = stop - (isLowSurrogate(text.charCodeAt(stop - 1)) ? 2 : 1);
          if (previous <= cursor) break;
          stop = previous;
        }
        emit(cursor, stop, count(cursor, stop));
        cursor = stop;
      }
      return;
    }
    let chunkStart = -1;
    let chunkEnd = -1;
    let chunkTokens = 0;
    for (const [pieceStart, pieceEnd] of piecesOf(text, separator, start, end)) {
      if (chunkStart >= 0) {
        const merged = count(chunkStart, pieceEnd);
        if (merged <= options.size) {
          chunkEnd = pieceEnd;
          chunkTokens = merged;
          continue;
        }
        emit(chunkStart, chunkEnd, chunkTokens);
        chunkStart = -1;
      }
      const pieceTokens = count(pieceStart, pieceEnd);
      if (pieceTokens > options.size) {
        split(pieceStart, pieceEnd, found + 1);
        continue;
      }
      chunkStart = pieceStart;
      chunkEnd = pieceEnd;
      chunkTokens = pieceTokens;
    }
    if (chunkStart >= 0) emit(chunkStart, chunkEnd, chunkTokens);
  };

  const total = count(0, text.length);
  if (total <= options.size) emit(0, text.length, total);
  else split(0, text.length, 0);
  return slices;
}

function occursIn(text: string, separator: string, start: number, end: number): boolean {
  const at = text.indexOf(separator, start);
  return at >= 0 && at + separator.length <= end;
}

/** `[start, end)` cut after each occurrence of `separator`: the pieces tile the span, each keeping its separator. */
function piecesOf(text: string, separator: string, start: number, end: number): Array<[number, number]> {
  const pieces: Array<[number, number]> = [];
  let pieceStart = start;
  for (let at = text.indexOf(separator, start); at >= 0 && at + separator.length <= end; at = text.indexOf(separator, at + separator.length)) {
    pieces.push([pieceStart, at + separator.length]);
    pieceStart = at + separator.length;
  }
  if (pieceStart < end) pieces.push([pieceStart, end]);
  return pieces;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
