import type { MethodReport } from './run-evaluation.js';

/** What a report row's numbers stand for, in words every report format shows beside them. */
export interface MethodStatus {
  /** Every question failed: the row has no numbers, only the error. */
  failed: boolean;
  /** Short marks, e.g. `error (100/100)`, `errors (3/100)`, `fallback (100/100)`, `proxy (100/100)`; empty when clean. */
  labels: string[];
  /** One sentence per mark, for footnotes: counts, then the error message or the ranking note. */
  notes: string[];
}

/**
 * The status of one method's results: failed questions (all or some), and passages ranked by a proxy or a
 * fallback instead of the method itself (`Retrieval.ranking`), so that no format shows such a row as if it
 * were the method's own result.
 */
export function methodStatus(report: Pick<MethodReport, 'questions' | 'errors' | 'error_message' | 'ranking'>): MethodStatus {
  const total = report.questions;
  const failed = total > 0 && report.errors === total;
  const labels: string[] = [];
  const notes: string[] = [];
  if (report.errors > 0) {
    const counted = `${report.errors}/${total}`;
    labels.push(failed ? `error (${counted})` : `errors (${counted})`);
    const consequence = failed ? '' : ' (counted as retrieving nothing)';
    notes.push(`error on ${counted} questions${consequence}${report.error_message ? `: ${report.error_message}` : ''}`);
  }
  for (const count of report.ranking) {
    if (count.kind === 'native') continue;
    const counted = `${count.questions}/${total}`;
    labels.push(`${count.kind} (${counted})`);
    notes.push(`${count.kind} on ${counted} questions${count.note ? `: ${count.note}` : ''}`);
  }
  return { failed, labels, notes };
}
