import type { EvalMethodResult } from './eval-report';

/** What a report row's numbers stand for, in the words the markdown report (`kgrag eval`) uses. */
export interface EvalMethodStatus {
  /** Every question failed: the row has no numbers, only the error. */
  failed: boolean;
  /** Not the method's own ranking on some questions (a proxy or a fallback ranked the passages). */
  notOwnRanking: boolean;
  /** Short marks, e.g. `error (100/100)`, `errors (3/100)`, `fallback (100/100)`, `proxy (100/100)`; empty when clean. */
  labels: string[];
  /** One sentence per mark, for the notes under the table. */
  notes: string[];
}

/**
 * The status of one method's results, as src/eval/method-status.ts words it, so that the explorer labels a proxy or a
 * fallback exactly as the markdown report does and never shows such numbers as the method's own result.
 */
export function evalMethodStatus(method: EvalMethodResult): EvalMethodStatus {
  const total = method.questions;
  const failed = total > 0 && method.errors === total;
  const labels: string[] = [];
  const notes: string[] = [];
  if (method.errors > 0) {
    const counted = `${method.errors}/${total}`;
    labels.push(failed ? `error (${counted})` : `errors (${counted})`);
    const consequence = failed ? '' : ' (counted as retrieving nothing)';
    notes.push(`error on ${counted} questions${consequence}${method.errorMessage ? `: ${method.errorMessage}` : ''}`);
  }
  let notOwnRanking = false;
  for (const count of method.ranking) {
    if (count.kind === 'native') continue;
    notOwnRanking = true;
    const counted = `${count.questions}/${total}`;
    labels.push(`${count.kind} (${counted})`);
    notes.push(`${count.kind} on ${counted} questions${count.note ? `: ${count.note}` : ''}`);
  }
  return { failed, notOwnRanking, labels, notes };
}
