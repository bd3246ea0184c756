/**
 * Longest run of one character class that reaches the byte-pair encoder in one piece. Byte-pair merging is
 * quadratic in the length of a pre-tokenized piece, and a piece never spans more than one run of each of
 * these classes (plus a character or a line break before or after it), so cutting longer runs bounds it.
 * Ordinary text has no such runs; one that has (a Markdown rule of 200 `-`) may get other tokens in it.
 */
export const maxRunLength = 128;

/** A block is ended at the first boundary that leaves tokens unchanged after this many characters. */
const blockLength = 16_384;

/*
 * Character classes, as bits. A pre-tokenizer piece stays within one run of letters with their combining marks
 * (o200k's words), of digits (r50k's numbers), of symbols with marks (the punctuation pieces: neither space,
 * letter nor digit) or of whitespace, plus a character or a line break before or after it; runs of each of these
 * four classes longer than maxRunLength are cut.
 */
const letter = 1;
const mark = 2;
const digit = 4;
const space = 8;

const letterPattern = /\p{L}/u;
const markPattern = /\p{M}/u;
const digitPattern = /\p{N}/u;
const spacePattern = /\s/u;
/** Classes of the BMP code points seen so far; 255 until first seen. A fixed 64 KiB memo of a pure function. */
const bmpClasses = new Uint8Array(0x10000).fill(255);

function classOf(codePoint: number): number {
  if (codePoint < 0x10000) {
    const known = bmpClasses[codePoint]!;
    if (known !== 255) return known;
  }
  const character = String.fromCodePoint(codePoint);
  const classes =
    (letterPattern.test(character) ? letter : 0) |
    (markPattern.test(character) ? mark : 0) |
    (digitPattern.test(character) ? digit : 0) |
    (spacePattern.test(character) ? space : 0);
  if (codePoint < 0x10000) bmpClasses[codePoint] = classes;
  return classes;
}

/**
 * The first token-neutral boundary `q` with `from <= q` and `q + 1 < to`, or `to` when there is none: a position
 * where every supported encoding (o200k, cl100k, p50k, r50k) starts a pre-tokenizer piece and whose previous
 * piece does not end in whitespace, so that encoding `text.slice(a, q)` and `text.slice(q, b)` separately gives
 * exactly the tokens of `text.slice(a, b)` for any `a <= q - 2` and `b >= q + 2`. Two kinds qualify: a space
 * before a letter after a non-space ("word|␣next"), and a letter or digit at the start of a line after a
 * non-space ("end.\n|Next"). "\n\n" and "/" are left out: the pre-tokenizers treat them differently at the end
 * of a text.
 */
export function nextTokenNeutralBoundary(text: string, from: number, to: number = text.length): number {
  const last = Math.min(to, text.length) - 1;
  for (let index = Math.max(from, 2); index < last; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x20) {
      if ((classOf(text.charCodeAt(index - 1)) & space) === 0 && (classOf(text.codePointAt(index + 1)!) & letter) !== 0) return index;
    } else if (text.charCodeAt(index - 1) === 0x0a && (classOf(text.charCodeAt(index - 2)) & space) === 0 && (classOf(text.codePointAt(index)!) & (letter | digit)) !== 0) {
      return index;
    }
  }
  return to;
}

/**
 * Whether `index` is a token-neutral line start (the second kind of {@link nextTokenNeutralBoundary}): a letter or
 * digit right after a line break that follows a non-space, so that `text.slice(a, index)` and `text.slice(index, b)`
 * encode separately to exactly the tokens of `text.slice(a, b)` for any `a <= index - 2` and `b >= index + 2`.
 */
export function isTokenNeutralLineStart(text: string, index: number): boolean {
  return (
    index >= 2 &&
    index < text.length &&
    text.charCodeAt(index - 1) === 0x0a &&
    (classOf(text.charCodeAt(index - 2)) & space) === 0 &&
    (classOf(text.codePointAt(index)!) & (letter | digit)) !== 0
  );
}

/**
 * The blocks `[start, end)` in which the tokenizer hands `text` to the byte-pair encoder, in order and
 * covering it: cut inside runs longer than {@link maxRunLength} (on code-point boundaries) and, for long
 * texts, at token-neutral boundaries about every 16,000 characters so that work can pause between blocks.
 */
export function encodingBlocks(text: string): Array<[number, number]> {
  if (text.length <= maxRunLength) return text.length === 0 ? [] : [[0, text.length]];
  const cuts = longRunCuts(text);
  cuts.push(text.length);
  const blocks: Array<[number, number]> = [];
  let start = 0;
  let boundary = -1;
  for (const cut of cuts) {
    while (cut - start > blockLength) {
      if (boundary < start + blockLength) boundary = nextTokenNeutralBoundary(text, start + blockLength);
      if (boundary >= cut) break;
      blocks.push([start, boundary]);
      start = boundary;
    }
    if (cut > start) blocks.push([start, cut]);
    start = cut;
  }
  return blocks;
}

/** Positions inside runs longer than {@link maxRunLength}, every that many characters (one less before a low surrogate), sorted. */
function longRunCuts(text: string): number[] {
  const cuts: number[] = [];
  const cutRun = (start: number, end: number): void => {
    for (let position = start; end - position > maxRunLength; ) {
      position += maxRunLength;
      if (isLowSurrogate(text.charCodeAt(position))) position -= 1;
      cuts.push(position);
    }
  };
  // Where the current run of each class started, or -1 outside one.
  let words = -1;
  let digits = -1;
  let symbols = -1;
  let spaces = -1;
  let index = 0;
  while (index < text.length) {
    const codePoint = text.codePointAt(index)!;
    const classes = classOf(codePoint);
    if ((classes & (letter | mark)) !== 0) {
      if (words < 0) words = index;
    } else if (words >= 0) {
      cutRun(words, index);
      words = -1;
    }
    if ((classes & digit) !== 0) {
      if (digits < 0) digits = index;
    } else if (digits >= 0) {
      cutRun(digits, index);
      digits = -1;
    }
    if ((classes & (space | letter | digit)) === 0) {
      if (symbols < 0) symbols = index;
    } else if (symbols >= 0) {
      cutRun(symbols, index);
      symbols = -1;
    }
    if ((classes & space) !== 0) {
      if (spaces < 0) spaces = index;
    } else if (spaces >= 0) {
      cutRun(spaces, index);
      spaces = -1;
    }
    index += codePoint > 0xffff ? 2 : 1;
  }
  for (const start of [words, digits, symbols, spaces]) if (start >= 0) cutRun(start, text.length);
  if (cuts.length === 0) return cuts;
  cuts.sort((left, right) => left - right);
  return cuts.filter((cut, position) => position === 0 || cut !== cuts[position - 1]);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
