import { cleanDescription, cleanEntityName, cleanEntityType, cleanExtractedText } from './clean-extracted-text.js';
import type { ExtractedEntity, ExtractedGraph, ExtractedRelation } from './extracted-graph.js';
import { splitTupleRecords, type TupleRecord } from './split-tuple-records.js';

/** What {@link parseGraphTuples} read, and every record it could not use, with the reason. */
export interface ParsedGraphTuples {
  graph: ExtractedGraph;
  problems: string[];
}

/** How an entity or relationship record begins, with or without quotes, in any casing. */
const recordHead = /^\(\s*["'`*“”]*\s*(?:entity|entities|relationship|relationships|relation|relations)\b/i;

/** Relationship strength when its last field holds no number (GraphRAG `graph_extractor.py` defaults the weight to 1.0). */
const defaultStrength = 1;

/**
 * Parses GraphRAG's tuple extraction format (microsoft/graphrag `index/operations/extract_graph/graph_extractor.py`, `prompts/index/extract_graph.py`):
 * `("entity"<|>NAME<|>TYPE<|>DESCRIPTION)` and
 * `("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH)` records separated by `##`, ending
 * with `<|COMPLETE|>`. Tolerant where GraphRAG is brittle (§8.6): records are found by
 * {@link splitTupleRecords} (fences, prose, `##` inside descriptions, missing completion marker,
 * records one per line, `< | >` delimiters), and the record type may be any casing, quoted or not,
 * singular or plural. As in GraphRAG, an entity needs 4 fields and a relationship 5, the strength is the
 * last field read as a number (1.0 when it holds none; clamped to 0–10 here), and names, types and
 * descriptions are cleaned as `clean_str` does. Unlike GraphRAG, names keep the model's casing (merging
 * normalizes them later), types are lower-cased, extra middle fields of a relationship stay in its
 * description, and every record that cannot be used is reported instead of silently dropped. Never throws.
 */
export function parseGraphTuples(text: string): ParsedGraphTuples {
  const { records, problems } = splitTupleRecords(text, { minDelimiters: 3, recordHead });
  const entities: ExtractedEntity[] = [];
  const relations: ExtractedRelation[] = [];
  for (const record of records) {
    const kind = recordKind(record.fields[0] ?? '');
    if (kind === undefined) {
      problems.push(`unknown record type "${cleanEntityName(record.fields[0] ?? '')}" (expected "entity" or "relationship"): ${record.excerpt}`);
      continue;
    }
    const read = kind === 'entity' ? readEntity(record) : readRelation(record);
    if (typeof read === 'string') {
      problems.push(`${read}: ${record.excerpt}`);
      continue;
    }
    if ('name' in read) entities.push(read);
    else relations.push(read);
    if (record.truncated) problems.push(`the last record was cut off (no closing parenthesis) but had all its fields; used as written: ${record.excerpt}`);
  }
  if (records.length === 0 && problems.length === 0 && !isEmptyReply(text)) {
    problems.push('no ("entity"<|>…) or ("relationship"<|>…) records found in the reply');
  }
  return { graph: { entities, relations }, problems };
}

function recordKind(field: string): 'entity' | 'relationship' | undefined {
  const word = cleanEntityType(field);
  if (word === 'entity' || word === 'entities') return 'entity';
  if (word === 'relationship' || word === 'relationships' || word === 'relation' || word === 'relations') return 'relationship';
  return undefined;
}

function readEntity(record: TupleRecord): ExtractedEntity | string {
  const { fields } = record;
  if (fields.length < 4) {
    return record.truncated
      ? `entity record cut off after ${fields.length} of 4 fields`
      : `entity record has ${fields.length} fields, needs 4 (type, name, entity type, description)`;
  }
  const name = cleanEntityName(fields[1] ?? '');
  if (name === '') return 'entity record with an empty name';
  // A fifth field is usually a stray strength copied from the relationship format; text is kept.
  const description = fields
    .slice(3)
    .filter((field, index) => index === 0 || !/^\s*[-+]?\d+(?:\.\d+)?\s*$/.test(field))
    .map(cleanDescription)
    .filter((part) => part !== '')
    .join(' ');
  return { name, type: cleanEntityType(fields[2] ?? '') || 'unknown', description };
}

function readRelation(record: TupleRecord): ExtractedRelation | string {
  const { fields } = record;
  if (fields.length < 5) {
    return record.truncated
      ? `relationship record cut off after ${fields.length} of 5 fields`
      : `relationship record has ${fields.length} fields, needs 5 (type, source, target, description, strength)`;
  }
  const source = cleanEntityName(fields[1] ?? '');
  const target = cleanEntityName(fields[2] ?? '');
  if (source === '' || target === '') return 'relationship record with an empty source or target';
  const description = fields
    .slice(3, -1)
    .map(cleanDescription)
    .filter((part) => part !== '')
    .join(' ');
  return { source, target, description, strength: readStrength(fields[fields.length - 1] ?? '') };
}

function readStrength(field: string): number {
  const number = /[-+]?\d+(?:\.\d+)?/.exec(cleanExtractedText(field));
  const value = number ? Number(number[0]) : Number.NaN;
  if (!Number.isFinite(value)) return defaultStrength;
  return Math.min(10, Math.max(0, value));
}

/** A reply with nothing but the completion marker, fences or whitespace: the model found nothing. */
function isEmptyReply(text: string): boolean {
  return (
    text
      .replace(/<think>[\s\S]*?<\/think>/gi, '')
      .replace(/```[A-Za-z0-9_-]*/g, '')
      .replace(/<\s*\|\s*COMPLETE\s*\|\s*>/gi, '')
      .replace(/#/g, '')
      .trim() === ''
  );
}
