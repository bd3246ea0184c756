import { appendAll } from '../../core/append-all.js';
import { cleanEntityType } from '../llm-graph/clean-extracted-text.js';
import type { ExtractedClaim } from '../llm-graph/extracted-graph.js';
import { splitTupleRecords } from '../llm-graph/split-tuple-records.js';
import { readClaimFields } from './read-claim-fields.js';

/** What {@link parseClaimTuples} read, and every record it could not use, with the reason. */
export interface ParsedClaimTuples {
  claims: ExtractedClaim[];
  problems: string[];
}

/**
 * Parses GraphRAG's claim tuple format (microsoft/graphrag `prompts/index/extract_claims.py`):
 * `(SUBJECT<|>OBJECT or NONE<|>TYPE<|>TRUE|FALSE|SUSPECTED<|>START<|>END<|>DESCRIPTION<|>SOURCE TEXT)`
 * records separated by `##`, ending with `<|COMPLETE|>`, with the same tolerance as the graph parser
 * (`splitTupleRecords`). A leading `claim` field, which some models add by analogy with `"entity"`, is
 * dropped. GraphRAG fills missing fields with `None`; here a record needs the seven fields up to the
 * description (the source text may be missing), and a cut-off last record all eight. Every record that
 * cannot be used is reported. Never throws.
 */
export function parseClaimTuples(text: string): ParsedClaimTuples {
  const { records, problems } = splitTupleRecords(text, { minDelimiters: 6 });
  const claims: ExtractedClaim[] = [];
  for (const record of records) {
    const fields = cleanEntityType(record.fields[0] ?? '') === 'claim' ? record.fields.slice(1) : record.fields;
    const needed = record.truncated ? 8 : 7;
    if (fields.length < needed) {
      problems.push(
        record.truncated
          ? `claim record cut off after ${fields.length} of 8 fields: ${record.excerpt}`
          : `claim record has ${fields.length} fields, needs 7 or 8 (subject, object, type, status, start, end, description, source text): ${record.excerpt}`,
      );
      continue;
    }
    const read = readClaimFields({
      subject: fields[0] ?? '',
      object: fields[1] ?? null,
      type: fields[2] ?? '',
      status: fields[3] ?? '',
      startDate: fields[4] ?? null,
      endDate: fields[5] ?? null,
      description: fields[6] ?? '',
      sourceText: fields.slice(7).join(' '),
    });
    if ('problem' in read) {
      problems.push(`${read.problem}: ${record.excerpt}`);
      continue;
    }
    claims.push(read.claim);
    appendAll(problems, read.notes);
    if (record.truncated) problems.push(`the last record was cut off (no closing parenthesis) but had all its fields; used as written: ${record.excerpt}`);
  }
  return { claims, problems };
}
