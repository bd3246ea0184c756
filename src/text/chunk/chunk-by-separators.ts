import { finishTask, type CooperativeTask } from '../../core/cooperative-task.js';
import { nextTokenNeutralBoundary } from '../encoding-blocks.js';
import type { Tokenizer } from '../tokenizer.js';
import { assertValidChunkOptions } from './chunk-options.js';
import type { TextSlice } from './text-slice.js';

/** AutoKG's separators, coarsest first (wispcarey/AutoKG `utils.py`: `my_text_splitter`). */
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
  return finishTask(chunkBySeparatorsTask(text, tokenizer, options));
}

/** {@link chunkBySeparators} as a task that pauses between pieces of the text (see {@link CooperativeTask}). */
export function* chunkBySeparatorsTask(text: string, tokenizer: Tokenizer, options: SeparatorChunkOptions): CooperativeTask<TextSlice[]> {
  assertValidChunkOptions({ size: options.size, overlap: 0 });
  const { size } = options;
  const separators = (options.separators ?? autokgSeparators).filter((separator) => separator.length > 0);
  const slices: TextSlice[] = [];
  const emit = (start: number, end: number, nTokens: number): void => {
    if (/\S/u.test(text.slice(start, end))) slices.push({ text: text.slice(start, end), start, end, nTokens });
  };
  const count = (start: number, end: number): CooperativeTask<number> => tokenizer.countTask(text.slice(start, end));
  const growing = new GrowingSpanCounter(text, tokenizer);

  /**
   * Token windows over `[start, end)`, which has no separator left, each shortened until its own text fits: a
   * character split across tokens (CJK, emoji) can make a window's text alone count more tokens than the window had.
   */
  function* windows(start: number, end: number): CooperativeTask<void> {
    const { tokens, offsets } = yield* tokenizer.tokenizeTask(text.slice(start, end));
    let first = 0;
    for (let cursor = start; cursor < end; ) {
      while (first < tokens.length && start + offsets[first]! < cursor) first++;
      let stop = first + size >= tokens.length ? end : start + offsets[first + size]!;
      // Only tokens of one character split across tokens: the window is that whole character.
      for (let next = first + size; stop <= cursor; next++) stop = next >= tokens.length ? end : start + offsets[next]!;
      let stopTokens = yield* count(cursor, stop);
      while (stopTokens > size) {
        const previous = stop - (isLowSurrogate(text.charCodeAt(stop - 1)) ? 2 : 1);
        if (previous <= cursor) break;
        stop = previous;
        stopTokens = yield* count(cursor, stop);
      }
      emit(cursor, stop, stopTokens);
      cursor = stop;
    }
  }

  /** Splits `[start, end)`, which is over `size` tokens, with the separators from `level` on. */
  function* split(start: number, end: number, level: number): CooperativeTask<void> {
    let found = level;
    while (found < separators.length && !text.slice(start, end).includes(separators[found]!)) found++;
    const separator = separators[found];
    if (separator === undefined) {
      yield* windows(start, end);
      return;
    }
    let chunkStart = -1;
    let chunkEnd = -1;
    let chunkTokens = 0;
    for (const [pieceStart, pieceEnd] of piecesOf(text, separator, start, end)) {
      if (chunkStart >= 0) {
        const merged = yield* growing.count(chunkStart, pieceEnd);
        if (merged <= size) {
          chunkEnd = pieceEnd;
          chunkTokens = merged;
          continue;
        }
        emit(chunkStart, chunkEnd, chunkTokens);
        chunkStart = -1;
      }
      const pieceTokens = yield* count(pieceStart, pieceEnd);
      if (pieceTokens > size) {
        yield* split(pieceStart, pieceEnd, found + 1);
        continue;
      }
      chunkStart = pieceStart;
      chunkEnd = pieceEnd;
      chunkTokens = pieceTokens;
    }
    if (chunkStart >= 0) emit(chunkStart, chunkEnd, chunkTokens);
  }

  const total = yield* count(0, text.length);
  if (total <= size) emit(0, text.length, total);
  else yield* split(0, text.length, 0);
  return slices;
}

/**
 * Exact token counts of spans that share a start and grow, as the chunk being packed does, in time linear in
 * the growth: the count up to the last token-neutral boundary (see {@link nextTokenNeutralBoundary}) is kept and
 * only the text after it is counted again.
 */
class GrowingSpanCounter {
  private start = -1;
  /** A token-neutral boundary (or `start`) and the tokens of `[start, settled)`. */
  private settled = -1;
  private settledTokens = 0;
  /** Boundaries before this position were looked for. */
  private scanned = -1;

  constructor(
    private readonly text: string,
    private readonly tokenizer: Tokenizer,
  ) {}

  *count(start: number, end: number): CooperativeTask<number> {
    if (start !== this.start || end < this.scanned) {
      this.start = start;
      this.settled = start;
      this.settledTokens = 0;
      this.scanned = start + 2;
    }
    let boundary = this.settled;
    for (let next = nextTokenNeutralBoundary(this.text, this.scanned, end); next < end; next = nextTokenNeutralBoundary(this.text, next + 1, end)) {
      boundary = next;
    }
    this.scanned = Math.max(this.scanned, end - 1);
    if (boundary > this.settled) {
      this.settledTokens += yield* this.tokenizer.countTask(this.text.slice(this.settled, boundary));
      this.settled = boundary;
    }
    return this.settledTokens + (yield* this.tokenizer.countTask(this.text.slice(this.settled, end)));
  }
}

/** `[start, end)` cut after each occurrence of `separator`: the pieces tile the span, each keeping its separator. */
function piecesOf(text: string, separator: string, start: number, end: number): Array<[number, number]> {
  // Searched in the span only: a search of the whole text would run past `end` to the next occurrence, once per span.
  const span = text.slice(start, end);
  const pieces: Array<[number, number]> = [];
  let pieceStart = 0;
  for (let at = span.indexOf(separator); at >= 0; at = span.indexOf(separator, at + separator.length)) {
    pieces.push([start + pieceStart, start + at + separator.length]);
    pieceStart = at + separator.length;
  }
  if (pieceStart < span.length) pieces.push([start + pieceStart, end]);
  return pieces;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
