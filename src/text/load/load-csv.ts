import { detectCsvDelimiter } from './detect-csv-delimiter.js';
import { listWithMore } from './list-with-more.js';
import type { FileContext, LoadResult, LoadWarning } from './load-types.js';
import { parseCsv } from './parse-csv.js';
import { hasRecordText, type RecordFields, recordsToDocuments, type SourceRecord } from './records-to-documents.js';

/** A data row whose shape does not match the header. */
interface RaggedRow {
  position: number;
  line: number;
  columns: number;
}

/**
 * Loads a CSV (or, with `delimiter` `\t`, TSV) file whose first row names the columns. Without a
 * `delimiter`, it is detected from the header: `,`, `;` or tab (see {@link detectCsvDelimiter}). Empty header cells
 * become `column_<n>`, repeated names get `_2`, `_3`…, blank lines are skipped. Record positions count data
 * rows from 1. Rows that do not fit the header are reported, each warning naming the file, the rows and
 * their lines, and what was done:
 * - a row with more cells than the header is skipped (its cells cannot be matched to columns: usually an
 *   unquoted delimiter inside a field);
 * - a row with fewer cells is kept, its missing cells empty (writers often drop trailing empty cells), unless
 *   that leaves it without text: then it is skipped and reported as short, not as empty;
 * - a row with a quoted field that never closes is skipped: that field swallowed the rest of the file.
 * See {@link recordsToDocuments} for fields, titles and sources.
 */
export function loadCsv(raw: string, file: FileContext, fieldNames: RecordFields, delimiter = detectCsvDelimiter(raw)): LoadResult {
  const { rows, rowLines, unclosedQuoteLine, unclosedQuoteRow, lineCount } = parseCsv(raw, delimiter);
  const header = columnNames(rows[0] ?? []);
  const records: SourceRecord[] = [];
  const tooWide: RaggedRow[] = [];
  const tooShort: RaggedRow[] = [];
  const tooShortWithoutText: RaggedRow[] = [];
  let unclosedPosition: number | undefined;
  let position = 0;
  for (let rowIndex = 1; rowIndex < rows.length; rowIndex += 1) {
    const row = rows[rowIndex]!;
    if (rowIndex === unclosedQuoteRow) {
      unclosedPosition = position + 1;
      break;
    }
    if (row.every((cell) => cell.trim() === '')) continue;
    position += 1;
    const line = rowLines[rowIndex] ?? 0;
    if (row.length > header.length) {
      tooWide.push({ position, line, columns: row.length });
      continue;
    }
    const fields: Record<string, unknown> = {};
    header.forEach((column, index) => {
      fields[column] = row[index] ?? '';
    });
    if (row.length < header.length) {
      if (!hasRecordText(fields, fieldNames)) {
        tooShortWithoutText.push({ position, line, columns: row.length });
        continue;
      }
      tooShort.push({ position, line, columns: row.length });
    }
    records.push({ fields, position });
  }
  const result = recordsToDocuments(records, file, fieldNames, 'row');
  const warnings: LoadWarning[] = [];
  if (unclosedQuoteLine !== undefined) {
    const swallowed = unclosedQuoteLine < lineCount ? `lines ${unclosedQuoteLine}–${lineCount}` : `line ${unclosedQuoteLine}`;
    const which = unclosedPosition === undefined ? 'the header row' : `row ${unclosedPosition}`;
    const consequence = unclosedPosition === undefined ? 'so the file has no data rows' : 'so that row was skipped';
    warnings.push(
      parseError(
        file,
        `${which} has a quoted field, starting on line ${unclosedQuoteLine}, that is never closed: it runs to the end of the file (${swallowed}), ${consequence}; add the missing closing quote (").`,
      ),
    );
  }
  if (tooWide.length > 0) {
    warnings.push(
      parseError(
        file,
        `${shapeProblem(tooWide, header.length, 'more')}, so ${tooWide.length === 1 ? 'it was' : 'they were'} skipped; quote fields that contain the delimiter, ${delimiterName(delimiter)} ("a${delimiter === '\t' ? '\\t' : delimiter} b"), or remove the extra cells.`,
      ),
    );
  }
  if (tooShortWithoutText.length > 0) {
    warnings.push(
      parseError(
        file,
        `${shapeProblem(tooShortWithoutText, header.length, 'fewer')}, so ${tooShortWithoutText.length === 1 ? 'its text is' : 'their texts are'} missing and ${tooShortWithoutText.length === 1 ? 'it was' : 'they were'} skipped; fill in the missing cells.`,
      ),
    );
  }
  if (tooShort.length > 0) {
    warnings.push(
      parseError(
        file,
        `${shapeProblem(tooShort, header.length, 'fewer')}; ${tooShort.length === 1 ? 'it was' : 'they were'} indexed with the missing cells empty, so check that no cell was lost.`,
      ),
    );
  }
  return { documents: result.documents, warnings: [...warnings, ...result.warnings] };
}

/** `row 3 (line 4) has 5 cells but the header has 4 columns`, or the rows listed with their cell counts. */
function shapeProblem(rows: readonly RaggedRow[], columns: number, comparison: 'more' | 'fewer'): string {
  const [first] = rows;
  if (rows.length === 1 && first !== undefined) return `row ${first.position} (line ${first.line}) has ${first.columns} cells but the header has ${columns} columns`;
  const listed = listWithMore(rows.map((row) => `${row.position} (line ${row.line}, ${row.columns} cells)`));
  return `rows ${listed} have ${comparison} cells than the header's ${columns} columns`;
}

/** The delimiter as a word for messages: the detected one may not be the comma the user expects. */
function delimiterName(delimiter: string): string {
  return delimiter === ',' ? 'a comma' : delimiter === ';' ? 'a semicolon' : delimiter === '\t' ? 'a tab' : JSON.stringify(delimiter);
}

function parseError(file: FileContext, problem: string): LoadWarning {
  return { source: file.source, code: 'parse-error', message: `${file.source}: ${problem}` };
}

function columnNames(headerRow: string[]): string[] {
  const seen = new Map<string, number>();
  return headerRow.map((cell, index) => {
    const base = cell.trim() || `column_${index + 1}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}_${count}`;
  });
}
