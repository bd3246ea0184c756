import { evalMethodStatus } from './eval-method-status';
import type { EvalMethodResult, EvalReport } from './eval-report';

const cell = (value: number | null | undefined, digits = 1): string => (value === null || value === undefined ? '–' : value.toFixed(digits));

interface Column {
  header: string;
  title: string;
  value(method: EvalMethodResult): number | null;
  /** Usage and latency are measured even when every question failed; retrieval and answer metrics are not. */
  measured: boolean;
  integer?: boolean;
}

/**
 * The table of methods × metrics, as the markdown report of `kgrag eval` has it: status column with the proxy,
 * fallback and error marks, "error" instead of numbers for a method whose every question failed, and the notes
 * that explain each mark under the table. Answer metrics are shown only when some method has them.
 */
export function EvalMethodsTable({ report }: { report: EvalReport }) {
  const anyOf = (read: (method: EvalMethodResult) => number | null) => report.methods.some((method) => read(method) !== null);
  const columns: Column[] = [
    ...report.cutoffs.map((k) => ({ header: `R@${k}`, title: `Recall@${k}: percentage of gold passages in the top ${k}`, value: (m: EvalMethodResult) => m.recall.get(k) ?? null, measured: true })),
    ...report.allRecallCutoffs.map((k) => ({ header: `AR@${k}`, title: `AR@${k}: percentage of questions with all gold passages in the top ${k}`, value: (m: EvalMethodResult) => m.allRecall.get(k) ?? null, measured: true })),
    ...(anyOf((m) => m.em) ? [{ header: 'EM', title: 'Exact match (SQuAD normalization, max over answer aliases)', value: (m: EvalMethodResult) => m.em, measured: true }] : []),
    ...(anyOf((m) => m.f1) ? [{ header: 'F1', title: 'Token F1 (SQuAD normalization, max over answer aliases)', value: (m: EvalMethodResult) => m.f1, measured: true }] : []),
    ...(anyOf((m) => m.emIn) ? [{ header: 'EM-in', title: 'A gold answer contained in the prediction (Tree-of-Traversals)', value: (m: EvalMethodResult) => m.emIn, measured: true }] : []),
    ...(anyOf((m) => m.accuracy) ? [{ header: 'Acc', title: 'LLM-graded accuracy (KGP’s grading prompt)', value: (m: EvalMethodResult) => m.accuracy, measured: true }] : []),
    { header: 'p50 ms', title: 'Median latency per question', value: (m) => m.latencyP50, measured: false },
    { header: 'p95 ms', title: '95th percentile latency per question', value: (m) => m.latencyP95, measured: false },
    { header: 'LLM calls', title: 'LLM calls over the whole run', value: (m) => m.llmCalls, measured: false, integer: true },
    { header: 'tokens in', title: 'Prompt tokens over the whole run', value: (m) => m.tokensIn, measured: false, integer: true },
    { header: 'tokens out', title: 'Completion tokens over the whole run', value: (m) => m.tokensOut, measured: false, integer: true },
  ];
  const answerColumns = columns.some((column) => ['EM', 'F1', 'EM-in', 'Acc'].includes(column.header));
  const notes: Array<{ method: string; note: string }> = [];
  const rows = report.methods.map((method) => {
    const status = evalMethodStatus(method);
    for (const note of status.notes) notes.push({ method: method.name, note });
    return { method, status };
  });
  return (
    <div class="eval-table-wrap">
      <table class="eval-table" data-testid="eval-table">
        <thead>
          <tr>
            <th scope="col">method</th>
            <th scope="col">status</th>
            {columns.map((column) => (
              <th scope="col" title={column.title} class="num">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ method, status }) => (
            <tr data-testid="eval-row" data-method={method.name} class={status.failed ? 'failed' : status.notOwnRanking ? 'not-own' : undefined}>
              <th scope="row">
                <code>{method.name}</code>
              </th>
              <td data-testid="eval-status">
                {status.labels.length === 0 ? (
                  'ok'
                ) : (
                  status.labels.map((label) => <span class={`status-mark ${label.split(' ')[0]}`}>{label}</span>)
                )}
              </td>
              {columns.map((column) => {
                const value = column.value(method);
                const text = column.measured && status.failed ? 'error' : column.integer && value !== null ? String(value) : cell(value);
                return <td class="num">{text}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {notes.length > 0 && (
        <div class="eval-notes" data-testid="eval-notes">
          <p>
            Status notes: "fallback" — the method could not run as asked and another procedure ranked the passages; "proxy" — the method answers from something
            else and these passages stand in for it.
          </p>
          <ul>
            {notes.map((entry) => (
              <li>
                <code>{entry.method}</code>: {entry.note}
              </li>
            ))}
          </ul>
        </div>
      )}
      <p class="muted eval-legend">
        Recall@k and AR@k: percentage of gold passages in the top k, and of questions with all gold passages in the top k (HippoRAG).
        {answerColumns
          ? ' EM/F1: SQuAD normalization, max over answer aliases. "–": not applicable.'
          : ' No answer metrics in this report: answers were not generated (no LLM was configured, or the run was asked not to answer).'}
      </p>
    </div>
  );
}
