import type { Metadata } from '../../core/types.js';
import { normalizeText } from '../normalize-text.js';
import { normalizeTitle } from '../normalize-title.js';
import { listWithMore } from './list-with-more.js';
import type { FileContext, LoadedDocument, LoadResult, LoadWarning } from './load-types.js';

/** Which fields of JSON, JSONL and CSV records hold the text, the title and a stable id. */
export interface RecordFields {
  /** Field with the text. @default the first of `text`, `content`, `body`, `passage` that holds text */
  textField?: string | undefined;
  /** Field with the title. @default `title`, else `name`, else `<file>#<id>` */
  titleField?: string | undefined;
  /** Field with a stable id used in `source`. @default `id`, else the record's position */
  idField?: string | undefined;
}

/** What a record position counts, for warnings: records, lines (JSONL) or data rows (CSV). */
export type RecordPositionName = 'record' | 'line' | 'row';

/** One record of a data file. */
export interface SourceRecord {
  fields: Record<string, unknown>;
  /** 1-based position in the file (the line number for JSONL), used when the record has no id. */
  position: number;
}

/** Fields tried, in order, for the text of a record when no text field is configured. */
export const defaultTextFields: readonly string[] = ['text', 'content', 'body', 'passage'];
const defaultTitleFields = ['title', 'name'];
const defaultIdFields = ['id'];

/**
 * Turns records into documents: text from the text field, title from the title field (else `<file>#<id>`),
 * `source` = `<file source>#<id>`, every other field into metadata. A record id that repeats in the file gets
 * `~<position>` appended to its source so no record replaces another. Records without text are skipped with
 * one `empty` warning for the file that lists them and names the fields seen.
 */
export function recordsToDocuments(
  records: Iterable<SourceRecord>,
  file: FileContext,
  fieldNames: RecordFields,
  positionName: RecordPositionName = 'record',
): LoadResult {
  const textFields: readonly string[] = fieldNames.textField === undefined ? defaultTextFields : [fieldNames.textField];
  const titleFields = fieldNames.titleField === undefined ? defaultTitleFields : [fieldNames.titleField];
  const idFields = fieldNames.idField === undefined ? defaultIdFields : [fieldNames.idField];
  const documents: LoadedDocument[] = [];
  const skippedPositions: number[] = [];
  const skippedFieldNames = new Set<string>();
  const usedIds = new Set<string>();
  let total = 0;
  for (const record of records) {
    total += 1;
    const textEntry = firstEntry(record.fields, textFields, textValue);
    const text = textEntry === undefined ? '' : normalizeText(textEntry.value);
    if (text === '') {
      skippedPositions.push(record.position);
      for (const name of Object.keys(record.fields)) skippedFieldNames.add(name);
      continue;
    }
    const idEntry = firstEntry(record.fields, idFields, scalarValue);
    let id = idEntry?.value.trim() || String(record.position);
    if (usedIds.has(id)) id = `${id}~${record.position}`;
    usedIds.add(id);
    const titleEntry = firstEntry(record.fields, titleFields, scalarValue);
    const title = normalizeTitle(titleEntry?.value ?? '') || `${file.fileName}#${id}`;
    const usedFields = new Set([textEntry?.name, titleEntry?.name, idEntry?.name]);
    const metadata: Metadata = {};
    for (const [name, value] of Object.entries(record.fields)) {
      if (!usedFields.has(name)) metadata[name] = value;
    }
    documents.push({ title, source: `${file.source}#${id}`, text, metadata });
  }
  const warnings: LoadWarning[] = [];
  if (skippedPositions.length > 0) warnings.push(emptyRecordsWarning(file, fieldNames, textFields, skippedPositions, total, skippedFieldNames, positionName));
  return { documents, warnings };
}

function emptyRecordsWarning(
  file: FileContext,
  fieldNames: RecordFields,
  textFields: readonly string[],
  positions: number[],
  total: number,
  seenFields: Set<string>,
  positionName: RecordPositionName,
): LoadWarning {
  const where = `${positionName}${positions.length === 1 ? '' : 's'} ${listWithMore(positions.map(String))}`;
  const which =
    total === 1
      ? 'the only record has no'
      : positions.length === total
        ? `none of the ${total} records has`
        : `${positions.length} of ${total} records (${where}) ${positions.length === 1 ? 'has no' : 'have no'}`;
  const fieldList = textFields.map((name) => `"${name}"`).join(', ');
  const seen = seenFields.size > 0 ? ` (fields seen: ${listWithMore([...seenFields])})` : '';
  const fix =
    positions.length < total
      ? positions.length === 1
        ? 'fill in its text or remove it'
        : 'fill in their text or remove them'
      : fieldNames.textField === undefined
        ? `set input.textField to the field that holds the text${seen}`
        : `check input.textField${seen}`;
  return {
    source: file.source,
    code: 'empty',
    message: `${file.source}: ${which} text in ${fieldList.replace(/, ([^,]*)$/, ' or $1')}, so ${positions.length === 1 ? 'it was' : 'they were'} skipped; ${fix}.`,
  };
}

/** Whether a record has text in its text field, as {@link recordsToDocuments} would find it. */
export function hasRecordText(fields: Record<string, unknown>, fieldNames: RecordFields): boolean {
  const textFields: readonly string[] = fieldNames.textField === undefined ? defaultTextFields : [fieldNames.textField];
  const entry = firstEntry(fields, textFields, textValue);
  return entry !== undefined && normalizeText(entry.value) !== '';
}

function firstEntry(
  fields: Record<string, unknown>,
  names: readonly string[],
  convert: (value: unknown) => string | undefined,
): { name: string; value: string } | undefined {
  for (const name of names) {
    if (!Object.hasOwn(fields, name)) continue;
    const value = convert(fields[name]);
    if (value !== undefined && value.trim() !== '') return { name, value };
  }
  return undefined;
}

function scalarValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Text fields may also hold a list of paragraphs. */
function textValue(value: unknown): string | undefined {
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join('\n\n');
  return scalarValue(value);
}
