import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { KgragError } from '../../core/errors.js';
import { parseLenientJson } from '../../text/parse-lenient-json.js';
import type { Triple } from './extracted-triples.js';

/** One passage of a HippoRAG OpenIE file with the named entities and triples an LLM extracted from it. */
export interface OpenieDoc {
  /** Position of the record in the file's `docs`. */
  index: number;
  title: string | undefined;
  text: string | undefined;
  /** What OpenIE read: `passage` as written, else `title + "\n" + text`, else `text`. */
  passage: string;
  entities: string[];
  triples: Triple[];
}

/** A record of the file that could not be used, and why. */
export interface SkippedOpenieRecord {
  index: number;
  problem: string;
}

/** What {@link parseOpenieFile} read. */
export interface OpenieFile {
  docs: OpenieDoc[];
  skipped: SkippedOpenieRecord[];
  /** Triples that were not three non-empty strings (models write 2, 4 or 5 parts, numbers, nulls). */
  droppedTriples: number;
  /** Entities that were not non-empty strings. */
  droppedEntities: number;
}

const expectedShape =
  'a HippoRAG OpenIE file {"docs": [{"idx"?, "title"?, "text"?, "passage", "extracted_entities": [...], "extracted_triples": [[subject, predicate, object], ...]}], ...}';

const fileSchema = z.object({ docs: z.array(z.unknown()) });
const docSchema = z.object({
  title: z.string().nullish(),
  text: z.string().nullish(),
  passage: z.string().nullish(),
  // Entries are checked one by one below, so one malformed triple costs that triple, not the record.
  extracted_entities: z.array(z.unknown()).nullish(),
  extracted_triples: z.array(z.unknown()).nullish(),
});


function invalidFile(file: string, problem: string, cause?: unknown): KgragError {
  return new KgragError(`${file}: ${problem}`, {
    code: 'OPENIE_FILE_INVALID',
    category: 'input',
    hint: `expected ${expectedShape}, as HippoRAG writes to openie_*_results_ner_*.json`,
    details: { file },
    ...(cause === undefined ? {} : { cause }),
  });
}

function isTriple(value: unknown): value is Triple {
  return Array.isArray(value) && value.length === 3 && value.every((part) => typeof part === 'string' && part.trim().length > 0);
}

/**
 * Parses the text of a HippoRAG OpenIE file (`file` names it in errors). Records that are not objects or
 * have no passage are skipped and reported with their index; triples that are not three non-empty strings
 * and entities that are not non-empty strings are dropped and counted. Only a file that is not JSON or has
 * no `docs` list is an error.
 */
export function parseOpenieText(text: string, file: string): OpenieFile {
  let value: unknown;
  try {
    value = parseLenientJson(text.replace(/^\uFEFF/, '')).value;
  } catch (caught) {
    throw invalidFile(file, `is not valid JSON (${caught instanceof Error ? caught.message : String(caught)})`, caught);
  }
  const top = fileSchema.safeParse(value);
  if (!top.success) throw invalidFile(file, 'has no "docs" list');
  const result: OpenieFile = { docs: [], skipped: [], droppedTriples: 0, droppedEntities: 0 };
  for (const [index, record] of top.data.docs.entries()) {
    const parsed = docSchema.safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
      result.skipped.push({ index, problem: `${where}${issue?.message ?? 'not an object'}` });
      continue;
    }
    const doc = parsed.data;
    const title = doc.title ?? undefined;
    const body = doc.text ?? undefined;
    const passage = doc.passage ?? (body === undefined ? undefined : title ? `${title}\n${body}` : body);
    if (passage === undefined || passage.trim().length === 0) {
      result.skipped.push({ index, problem: 'has neither "passage" nor "text"' });
      continue;
    }
    const entities: string[] = [];
    for (const entity of doc.extracted_entities ?? []) {
      if (typeof entity === 'string' && entity.trim().length > 0) entities.push(entity.trim());
      else result.droppedEntities++;
    }
    const triples: Triple[] = [];
    for (const triple of doc.extracted_triples ?? []) {
      if (isTriple(triple)) triples.push([triple[0].trim(), triple[1].trim(), triple[2].trim()]);
      else result.droppedTriples++;
    }
    result.docs.push({ index, title, text: body, passage, entities: [...new Set(entities)], triples });
  }
  return result;
}

/** Reads and parses a HippoRAG OpenIE file; see {@link parseOpenieText}. */
export async function parseOpenieFile(file: string): Promise<OpenieFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (caught) {
    const code = (caught as NodeJS.ErrnoException).code;
    const missing = code === 'ENOENT' || code === 'ENOTDIR';
    throw new KgragError(missing ? `OpenIE file ${file} does not exist` : `OpenIE file ${file} cannot be read (${code ?? String(caught)})`, {
      code: missing ? 'OPENIE_FILE_NOT_FOUND' : 'OPENIE_FILE_UNREADABLE',
      category: 'input',
      hint: missing ? `check the path; the file should be ${expectedShape}` : 'check that it is a readable file, not a folder, and its permissions',
      details: { file },
      cause: caught,
    });
  }
  return parseOpenieText(text, file);
}
