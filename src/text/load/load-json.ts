import { listWithMore } from './list-with-more.js';
import type { FileContext, LoadResult, LoadWarning } from './load-types.js';
import { defaultTextFields, type RecordFields, recordsToDocuments, type SourceRecord } from './records-to-documents.js';
import { errorMessage } from '../../core/error-message.js';

/**
 * Loads a JSON file of records: an array of objects, an object with exactly one property that is an array of
 * objects (`{"data": [...]}`), or a single object. Array items that are strings are records whose text is the
 * string; other non-object items are skipped with a `parse-error` warning, as is a file that is not JSON.
 * See {@link recordsToDocuments} for fields, titles and sources.
 */
export function loadJson(raw: string, file: FileContext, fieldNames: RecordFields): LoadResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    const reason = errorMessage(error);
    return {
      documents: [],
      warnings: [
        {
          source: file.source,
          code: 'parse-error',
          message: `${file.source} is not valid JSON (${withLine(reason, raw)}), so it was skipped; fix the syntax, or name it .jsonl if it holds one object per line.`,
        },
      ],
    };
  }
  const items = recordItems(parsed, fieldNames.textField === undefined ? defaultTextFields : [fieldNames.textField]);
  const records: SourceRecord[] = [];
  const rejected: string[] = [];
  for (const [index, item] of items.entries()) {
    if (typeof item === 'string') records.push({ fields: { text: item }, position: index + 1 });
    else if (isPlainObject(item)) records.push({ fields: item, position: index + 1 });
    else rejected.push(String(index + 1));
  }
  const result = recordsToDocuments(records, file, fieldNames);
  if (rejected.length === 0) return result;
  const warning: LoadWarning = {
    source: file.source,
    code: 'parse-error',
    message: `${file.source}: items ${listWithMore(rejected)} are not objects or strings, so they were skipped; make each item an object with a text field.`,
  };
  return { documents: result.documents, warnings: [warning, ...result.warnings] };
}

/** The records of a parsed file; an object that has a text field of its own is one record, not a wrapper. */
function recordItems(parsed: unknown, textFields: readonly string[]): unknown[] {
  if (Array.isArray(parsed)) return parsed;
  if (isPlainObject(parsed) && !textFields.some((name) => typeof parsed[name] === 'string')) {
    const arrays = Object.values(parsed).filter(
      (value): value is unknown[] => Array.isArray(value) && value.length > 0 && value.every(isPlainObject),
    );
    if (arrays.length === 1 && arrays[0] !== undefined) return arrays[0];
  }
  return [parsed];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Puts a JSON.parse message on one line and adds the line number when the message gives a position. */
function withLine(message: string, raw: string): string {
  const reason = message.replace(/\s+/g, ' ');
  const position = /position (\d+)/.exec(reason)?.[1];
  if (position === undefined || /line \d+/.test(reason)) return reason;
  let line = 1;
  const end = Math.min(Number(position), raw.length);
  for (let index = raw.indexOf('\n'); index !== -1 && index < end; index = raw.indexOf('\n', index + 1)) line += 1;
  return `${reason}, line ${line}`;
}
