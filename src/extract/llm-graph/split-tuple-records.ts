/** GraphRAG's field delimiter (`graph_extractor.py` `TUPLE_DELIMITER`), hard-coded in the prompts as in GraphRAG v3. */
export const tupleDelimiter = '<|>';

/** Stands in for the completion marker while splitting; it cannot occur in text we keep (control characters are cleaned out of fields). */
const completeMark = '\u0000';

/** One record of a tuple reply, split into fields but not yet interpreted. */
export interface TupleRecord {
  /** The fields between `<|>` delimiters, trimmed, otherwise as written. */
  fields: string[];
  /** The record's start as written, on one line, for problem messages. */
  excerpt: string;
  /** The reply's last record opened a parenthesis that never closed and no completion marker followed: the reply was probably cut off. */
  truncated: boolean;
}

/** Options of {@link splitTupleRecords}. */
export interface SplitTupleRecordsOptions {
  /**
   * How many `<|>` delimiters a stretch of text without an opening parenthesis needs before it counts
   * as a record of its own (one fewer than the record's fields): models that drop the parentheses still
   * get their records split, while a `##` or a line break inside a description does not start one.
   */
  minDelimiters: number;
  /**
   * How a record of this format begins, e.g. `("entity"`: text matching it after a boundary starts a
   * record even without delimiters, so a record written with wrong delimiters is reported rather than
   * swallowed by its neighbour. @default none
   */
  recordHead?: RegExp;
}

/** Records found in a reply, and reply parts that looked like records but could not be read as one. */
export interface SplitTupleRecordsResult {
  records: TupleRecord[];
  problems: string[];
}

/**
 * Splits a model's tuple-format reply (GraphRAG's `(…<|>…)##(…)<|COMPLETE|>`,
 * microsoft/graphrag `prompts/index/extract_graph.py`) into records. GraphRAG splits the whole text on `##` and requires exact delimiters, so a `##`
 * inside a description (a Markdown heading) breaks the record and any deviation yields an empty graph
 * (§8.6). Here a record boundary is:
 * - the completion marker `<|COMPLETE|>` (any casing, spaces inside allowed), wherever it appears;
 * - `##` followed (after whitespace) by the end, another `##`, the completion marker, or the start of
 *   a record: the format's record head (`("entity"`), or for formats without one `(` with a `<|>` later
 *   on that line, or a stretch with `minDelimiters` delimiters — so "## History" or "## (Overview) …"
 *   inside a description is text, not a boundary;
 * - a line break followed by the start of a record (optionally after a list marker such as `-` or `1.`),
 *   so records one per line need no `##`;
 * - `)` followed on the same line by `(` that opens a stretch with enough delimiters.
 *
 * Before splitting it removes `<think>…</think>` blocks and Markdown fences and normalizes `< | >`
 * delimiter variants. Text that is not a record (prose before, between or after the records) is
 * dropped silently; a part that looks like a record without any `<|>` is reported.
 */
export function splitTupleRecords(reply: string, options: SplitTupleRecordsOptions): SplitTupleRecordsResult {
  const text = reply
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .replace(/<think>[\s\S]*?<\/think>/gi, '\n')
    .replace(/```[A-Za-z0-9_-]*/g, '\n')
    .replace(/\u0000/g, '')
    .replace(/<\s*\|\s*COMPLETE\s*\|\s*>/gi, completeMark)
    .replace(/<\s*\|\s*>/g, tupleDelimiter);

  const pieces = splitAtBoundaries(text, options);
  const lastComplete = text.lastIndexOf(completeMark);
  const records: TupleRecord[] = [];
  const problems: string[] = [];
  const candidates = pieces.filter((piece) => piece.text.trim() !== '');
  candidates.forEach((piece, index) => {
    const isLast = index === candidates.length - 1 && piece.start > lastComplete;
    const record = readRecord(piece.text, isLast, options.recordHead);
    if (record === 'prose') return;
    if (record === 'no-delimiters') {
      problems.push(`record without any <|> delimiter: ${excerptOf(piece.text)}`);
      return;
    }
    records.push(record);
  });
  return { records, problems };
}

interface Piece {
  text: string;
  start: number;
}

function splitAtBoundaries(text: string, options: SplitTupleRecordsOptions): Piece[] {
  const pieces: Piece[] = [];
  let pieceStart = 0;
  const cut = (from: number, to: number): void => {
    pieces.push({ text: text.slice(pieceStart, from), start: pieceStart });
    pieceStart = to;
  };
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === completeMark) {
      cut(index, index + 1);
    } else if (char === '#' && text[index + 1] === '#') {
      let after = index;
      while (text[after] === '#') after += 1;
      const next = skipListMarker(text, skipWhitespace(text, after));
      if (
        next >= text.length ||
        text[next] === completeMark ||
        text.startsWith('##', next) ||
        startsRecord(text, next, options, true)
      ) {
        cut(index, next);
        index = next - 1;
      } else {
        index = after - 1;
      }
    } else if (char === '\n') {
      const next = skipListMarker(text, skipWhitespace(text, index));
      if (next < text.length && startsRecord(text, next, options, true)) {
        cut(index, next);
        index = next - 1;
      }
    } else if (char === ')') {
      let next = index + 1;
      while (text[next] === ' ' || text[next] === '\t') next += 1;
      if (text[next] === '(' && startsRecord(text, next, options, false)) {
        cut(index + 1, next);
        index = next - 1;
      }
    }
  }
  pieces.push({ text: text.slice(pieceStart), start: pieceStart });
  return pieces;
}

function skipWhitespace(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text[index] as string)) index += 1;
  return index;
}

/** Skips a Markdown list marker (`-`, `*`, `•`, `+`, `1.`, `1)`) that some models put before each record. */
function skipListMarker(text: string, from: number): number {
  const marker = /^(?:[-*•+]|\d{1,3}[.)])[ \t]+/.exec(text.slice(from, from + 8));
  return marker ? from + marker[0].length : from;
}

/** The text from `from` to the end of its line or the next `##`, whichever comes first. */
function lineRest(text: string, from: number): string {
  let end = text.indexOf('\n', from);
  if (end === -1) end = text.length;
  const hashes = text.indexOf('##', from);
  if (hashes !== -1 && hashes < end) end = hashes;
  const complete = text.indexOf(completeMark, from);
  if (complete !== -1 && complete < end) end = complete;
  return text.slice(from, end);
}

function countDelimiters(text: string): number {
  return text.split(tupleDelimiter).length - 1;
}

/**
 * Whether a record starts at `at`. With `parenthesisSuffices` (after `##` or a line break) the
 * format's record head is enough, or, for formats without one, an opening parenthesis with a `<|>`
 * later on its line; otherwise — and for "## (Overview) …" inside a description — the stretch must
 * carry `minDelimiters` delimiters.
 */
function startsRecord(text: string, at: number, options: SplitTupleRecordsOptions, parenthesisSuffices: boolean): boolean {
  const rest = lineRest(text, at);
  const delimiters = countDelimiters(rest);
  if (parenthesisSuffices && rest.startsWith('(')) {
    const head = options.recordHead === undefined ? delimiters >= 1 : options.recordHead.test(rest);
    if (head) return true;
  }
  return delimiters >= options.minDelimiters;
}

/** Reads one piece: the prose around it dropped, its parentheses removed, its fields split. */
function readRecord(piece: string, isLast: boolean, recordHead: RegExp | undefined): TupleRecord | 'prose' | 'no-delimiters' {
  const trimmed = piece.trim();
  const firstDelimiter = trimmed.indexOf(tupleDelimiter);
  if (firstDelimiter === -1) {
    const start = skipListMarker(trimmed, 0);
    return recordHead?.test(trimmed.slice(start)) === true ? 'no-delimiters' : 'prose';
  }

  // The record starts on the line of its first delimiter: at that line's first parenthesis when the
  // line opens with one, else at its last parenthesis before the delimiter (prose such as "Output:
  // (…" may precede it), else at the line start when the model left out the parentheses.
  const lineStart = trimmed.lastIndexOf('\n', firstDelimiter) + 1;
  const line = trimmed.slice(lineStart, firstDelimiter);
  const marker = /^[ \t]*(?:(?:[-*•+]|\d{1,3}[.)])[ \t]+)?/.exec(line)?.[0] ?? '';
  let start = lineStart + marker.length;
  if (!line.slice(marker.length).startsWith('(')) {
    const parenthesis = line.lastIndexOf('(');
    if (parenthesis !== -1) start = lineStart + parenthesis;
  }
  let body = trimmed.slice(start);
  const opened = body.startsWith('(');
  let closed = false;
  if (opened) {
    body = body.slice(1);
    // The closing parenthesis is the first `)` in the last field that ends its line (or meets a `##`):
    // a description may hold "(UK)" and prose may follow the record, but the record ends at a line end.
    const lastFieldStart = body.lastIndexOf(tupleDelimiter) + tupleDelimiter.length;
    const close = /\)[ \t]*(?:##|\n|$)/.exec(body.slice(lastFieldStart));
    if (close) {
      body = body.slice(0, lastFieldStart + close.index);
      closed = true;
    }
  } else {
    // Without parentheses a record is one line.
    const lastFieldStart = body.lastIndexOf(tupleDelimiter) + tupleDelimiter.length;
    const lineEnd = body.indexOf('\n', lastFieldStart);
    if (lineEnd !== -1) body = body.slice(0, lineEnd);
  }
  return {
    fields: body.split(tupleDelimiter).map((field) => field.trim()),
    excerpt: excerptOf(trimmed.slice(start)),
    truncated: opened && !closed && isLast,
  };
}

function excerptOf(text: string): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
