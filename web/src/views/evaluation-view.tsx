import { useState } from 'preact/hooks';
import { EvalBarChart, type EvalBarRow, type EvalBarSeries, evalSeriesColors } from '../components/eval-bar-chart';
import { EvalJudgeTable } from '../components/eval-judge-table';
import { evalMethodStatus } from '../components/eval-method-status';
import { EvalMethodsTable } from '../components/eval-methods-table';
import { type EvalMethodResult, type EvalReport, EvalReportError, parseEvalReport } from '../components/eval-report';
import './evaluation-view.css';

interface OpenedReport {
  fileName: string;
  size: number;
  modified: number;
  report: EvalReport;
}

const percent = (value: number) => String(Math.round(value * 10) / 10);
const milliseconds = (value: number) => (value >= 100 ? String(Math.round(value)) : String(Math.round(value * 10) / 10));

/** One chart row per method: its name, its status marks, and whether its bars are hatched or absent. */
function methodRows(report: EvalReport): EvalBarRow[] {
  return report.methods.map((method) => {
    const status = evalMethodStatus(method);
    const marked = status.notOwnRanking ? status.labels.filter((label) => !label.startsWith('error')).join(', ') : undefined;
    return {
      label: method.name,
      ...(status.labels.length > 0 ? { note: status.labels.join(', ') } : {}),
      ...(marked ? { marked } : {}),
      ...(status.failed ? { failed: true } : {}),
    };
  });
}

/** One series per cut-off k over the methods. */
function cutoffSeries(report: EvalReport, cutoffs: number[], read: (method: EvalMethodResult, k: number) => number | null): EvalBarSeries[] {
  return cutoffs.map((k, index) => ({
    label: `k = ${k}`,
    color: evalSeriesColors[index % evalSeriesColors.length] ?? '#888',
    values: report.methods.map((method) => (evalMethodStatus(method).failed ? null : read(method, k))),
  }));
}

function latencySeries(report: EvalReport): EvalBarSeries[] {
  return [
    { label: 'p50 (median)', color: '#4e79a7', values: report.methods.map((method) => method.latencyP50) },
    { label: 'p95', color: '#f28e2b', values: report.methods.map((method) => method.latencyP95) },
  ];
}

function ReportFacts({ opened }: { opened: OpenedReport }) {
  const { report } = opened;
  const withGold = [...new Set(report.methods.map((method) => method.questionsWithGold))];
  const answered = report.methods.some((method) => method.em !== null || method.f1 !== null);
  const calls = report.methods.reduce((sum, method) => sum + method.llmCalls, 0);
  return (
    <dl class="eval-facts" data-testid="eval-facts">
      <dt>Dataset</dt>
      <dd data-testid="eval-dataset">{report.dataset}</dd>
      <dt>Questions</dt>
      <dd>
        {report.n}
        {withGold.length === 1 && withGold[0] !== report.n ? ` (${withGold[0]} with gold passages)` : ''}
      </dd>
      <dt>Methods</dt>
      <dd>{report.methods.map((method) => method.name).join(', ')}</dd>
      <dt>Recall cut-offs</dt>
      <dd>{report.cutoffs.join(', ')}</dd>
      <dt>Answers</dt>
      <dd>{answered ? 'generated and scored (EM, F1)' : 'not generated: retrieval only'}</dd>
      <dt>LLM calls</dt>
      <dd>{calls}</dd>
      <dt>File</dt>
      <dd>
        {opened.fileName} · {(opened.size / 1024).toFixed(1)} KiB · modified {new Date(opened.modified).toLocaleString()}
      </dd>
    </dl>
  );
}

/** A `kgrag eval` report (`report.json`), opened from a file in the browser: facts, the methods × metrics table and charts. */
export function EvaluationView(_props: { active: boolean }) {
  const [opened, setOpened] = useState<OpenedReport | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [dragging, setDragging] = useState(false);

  const open = async (files: FileList | null | undefined) => {
    const file = files?.[0];
    if (!file) return;
    if (files && files.length > 1) {
      setError(`Drop one report at a time (${files.length} files were dropped).`);
      return;
    }
    try {
      const report = parseEvalReport(await file.text(), file.name);
      setOpened({ fileName: file.name, size: file.size, modified: file.lastModified, report });
      setError(undefined);
    } catch (failure) {
      setError(failure instanceof EvalReportError ? failure.message : `"${file.name}" could not be read: ${String(failure)}`);
    }
  };

  const report = opened?.report;
  return (
    <div class="evaluation-view">
      <div
        class={`eval-drop${dragging ? ' dragging' : ''}${opened ? ' compact' : ''}`}
        data-testid="eval-drop-zone"
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          void open(event.dataTransfer?.files);
        }}
      >
        <p>
          Drop the <code>report.json</code> of a <code>kgrag eval</code> run here, or{' '}
          <label class="file-button">
            choose a file
            <input
              type="file"
              accept=".json,application/json"
              data-testid="eval-file-input"
              aria-label="Open an evaluation report (report.json)"
              onChange={(event) => {
                void open(event.currentTarget.files);
                event.currentTarget.value = '';
              }}
            />
          </label>
          . It is read in this browser; nothing is uploaded.
        </p>
        {!opened && (
          <p class="muted">
            Make one with <code>kgrag eval --dataset sample --methods ppr,kgp,basic:bm25 -o out/report.json</code>.
          </p>
        )}
      </div>
      {error && (
        <p class="error eval-error" role="alert" data-testid="eval-error">
          {error}
        </p>
      )}
      {opened && report && (
        <div class="eval-report" data-testid="eval-report">
          <h2>
            Evaluation: {report.dataset} ({report.n} questions)
          </h2>
          <ReportFacts opened={opened} />
          <EvalMethodsTable report={report} />
          <div class="eval-charts">
            <EvalBarChart
              testId="eval-chart-recall"
              title="Recall@k per method"
              rows={methodRows(report)}
              axisLabel="Recall@k (% of gold passages in the top k)"
              max={100}
              format={percent}
              series={cutoffSeries(report, report.cutoffs, (method, k) => method.recall.get(k) ?? null)}
            />
            {report.allRecallCutoffs.length > 0 && (
              <EvalBarChart
                testId="eval-chart-all-recall"
                title="AR@k per method (all gold passages in the top k)"
                rows={methodRows(report)}
                axisLabel="AR@k (%)"
                max={100}
                format={percent}
                series={cutoffSeries(report, report.allRecallCutoffs, (method, k) => method.allRecall.get(k) ?? null)}
              />
            )}
            <EvalBarChart testId="eval-chart-latency" title="Latency per question" rows={methodRows(report)} axisLabel="latency (ms)" format={milliseconds} series={latencySeries(report)} />
          </div>
          {report.judge.map((pair) => (
            <EvalJudgeTable pair={pair} />
          ))}
        </div>
      )}
    </div>
  );
}
