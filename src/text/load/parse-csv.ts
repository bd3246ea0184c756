/** Rows of a CSV file and the problems met while reading it. */
export interface CsvParseResult {
  /** Every record as its list of fields, header row included; blank lines give a row with one empty field. */
  rows: string[][];
  /** The 1-based line each row starts on (rows with quoted line breaks span several lines). */
  rowLines: number[];
  /** 1-based line of a quoted field that never closes (it runs to the end of the text); undefined if none. */
  unclosedQuoteLine: number | undefined;
  /** Index in `rows` of the row holding that field; undefined if none. */
  unclosedQuoteRow: number | undefined;
  /** Number of lines of the text (a line break at the very end starts no new line). */
  lineCount: number;
}

const quote = 0x22;
const carriageReturn = 0x0d;
const lineFeed = 0x0a;

/**
 * Parses RFC 4180 CSV in one pass: fields separated by `delimiter`, records by CRLF, LF or CR, fields in
 * double quotes may hold delimiters and line breaks, and `""` inside them is one quote. A leading BOM is
 * skipped. Lenient like most spreadsheet software: a quote inside an unquoted field is kept as a character,
 * and text after a closing quote is appended to the field. Lines are counted at CRLF, LF and a lone CR.
 */
export function parseCsv(text: string, delimiter = ','): CsvParseResult {
  const separator = delimiter.charCodeAt(0);
  const length = text.length;
  const rows: string[][] = [];
  const rowLines: number[] = [];
  let row: string[] = [];
  let unclosedQuoteLine: number | undefined;
  let unclosedQuoteRow: number | undefined;
  const lines = lineCounter(text);
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const result = (): CsvParseResult => ({ rows, rowLines, unclosedQuoteLine, unclosedQuoteRow, lineCount: lines.lineAt(Math.max(0, length - 1)) });
  if (index >= length) return result();
  rowLines.push(lines.lineAt(index));
  for (;;) {
    let value = '';
    if (text.charCodeAt(index) === quote) {
      const opening = index;
      let position = index + 1;
      for (;;) {
        const closing = text.indexOf('"', position);
        if (closing === -1) {
          if (unclosedQuoteLine === undefined) {
            unclosedQuoteLine = lines.lineAt(opening);
            unclosedQuoteRow = rows.length;
          }
          value += text.slice(position);
          index = length;
          break;
        }
        value += text.slice(position, closing);
        if (text.charCodeAt(closing + 1) === quote) {
          value += '"';
          position = closing + 2;
          continue;
        }
        index = closing + 1;
        break;
      }
    }
    const fieldEnd = endOfField(text, index, separator);
    value += text.slice(index, fieldEnd);
    index = fieldEnd;
    row.push(value);
    if (index >= length) break;
    const code = text.charCodeAt(index);
    if (code === separator) {
      index += 1;
      continue;
    }
    index += code === carriageReturn && text.charCodeAt(index + 1) === lineFeed ? 2 : 1;
    rows.push(row);
    row = [];
    if (index >= length) return result();
    rowLines.push(lines.lineAt(index));
  }
  rows.push(row);
  return result();
}

function endOfField(text: string, from: number, separator: number): number {
  let index = from;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === separator || code === lineFeed || code === carriageReturn) break;
    index += 1;
  }
  return index;
}

/** Line numbers of offsets asked in increasing order, in one pass over the text overall. */
function lineCounter(text: string): { lineAt(offset: number): number } {
  let scanned = 0;
  let line = 1;
  return {
    lineAt(offset) {
      for (; scanned < offset; scanned += 1) {
        const code = text.charCodeAt(scanned);
        if (code === lineFeed || (code === carriageReturn && text.charCodeAt(scanned + 1) !== lineFeed)) line += 1;
      }
      return line;
    },
  };
}
