import { join, parse } from 'node:path';
import { writeOutputFile } from '../core/write-output-file.js';
import { judgeTablePercentages } from './judge/judge-table-percentages.js';
import { methodStatus } from './method-status.js';
import { renderRecallChart } from './render-recall-chart.js';
import type { EvaluationReport, EvaluationResult, MethodReport } from './run-evaluation.js';

function cell(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? '–' : value.toFixed(digits);
}

/**
 * The report as a markdown table, one row per method. The status column marks failed questions and
 * passages not ranked by the method itself (fallbacks, proxies); a method whose every question failed shows
 * "error" instead of numbers, and the notes under the table say why.
 */
export function renderMarkdownReport(report: EvaluationReport): string {
  const cutoffs = recallCutoffs(report);
  const header = [
    'method',
    'status',
    ...cutoffs.map((k) => `R@${k}`),
    'AR@2',
    'AR@5',
    'EM',
    'F1',
    'EM-in',
    'EM-in (extractive)',
    'sentence precision (extractive)',
    'Acc',
    'p50 ms',
    'p95 ms',
    'LLM calls',
    'tokens in',
    'tokens out',
  ];
  const notes: string[] = [];
  const rows = Object.entries(report.methods).map(([name, method]) => {
    const status = methodStatus(method);
    for (const note of status.notes) notes.push(`- \`${name}\`: ${note}`);
    // A method that failed on every question measured nothing: no number stands in its row.
    const measured = (value: number | null | undefined): string => (status.failed ? 'error' : cell(value));
    return [
      `\`${name}\``,
      status.labels.length === 0 ? 'ok' : status.labels.join(', '),
      ...cutoffs.map((k) => measured(method[`recall@${k}`])),
      measured(method['ar@2']),
      measured(method['ar@5']),
      measured(method.em),
      measured(method.f1),
      measured(method.em_in),
      measured(method.extractive_em_in),
      measured(method.answer_sentence_precision),
      measured(method.accuracy),
      cell(method.latency_ms_p50),
      cell(method.latency_ms_p95),
      String(method.llm_calls),
      String(method.tokens_in),
      String(method.tokens_out),
    ].join(' | ');
  });
  return [
    `# Evaluation: ${report.dataset} (${report.n} questions)`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row} |`),
    '',
    ...(notes.length === 0
      ? []
      : ['Status notes: "fallback" — the method could not run as asked and another procedure ranked the passages; "proxy" — the method answers from something else and these passages stand in for it.', '', ...notes, '']),
    ...judgeSection(report),
    'Recall@k and AR@k: percentage of gold passages in the top k, and of questions with all gold passages in the top k (HippoRAG).',
    'EM/F1/EM-in of generated answers: SQuAD normalization, max over answer aliases, on the answer without its citation markers ("[Data: Sources (2)]" is neither words nor a number of it). "–": not applicable (e.g. no LLM configured, so no generated answers).',
    'Extractive (no LLM): each method\'s answer quotes sentences of its context. EM-in (extractive): a gold answer within the quoted text, as whole words ("no" is not found in "northeastern"), without citation markers; an answer that quotes nothing (it says nothing answers) scores 0; sentence precision: the share of quoted sentences whose passage is a gold one, over the questions that have gold passages and whose answer quotes any.',
    '',
  ].join('\n');
}

function judgeSection(report: EvaluationReport): string[] {
  if (!report.judge) return [];
  const lines: string[] = [];
  for (const [pair, byCriterion] of Object.entries(report.judge)) {
    const [first = 'A', second = 'B'] = pair.split(' vs ');
    lines.push(
      `## Pairwise judge: ${pair}`,
      '',
      `| criterion | ${first} wins % | ${second} wins % | ties % | ${first} win rate % | comparisons | failures |`,
      '|---|---|---|---|---|---|---|',
    );
    for (const [criterion, tally] of Object.entries(byCriterion)) {
      if (!tally) continue;
      const shares = judgeTablePercentages(tally);
      lines.push(`| ${criterion} | ${cell(shares?.winsA)} | ${cell(shares?.winsB)} | ${cell(shares?.ties)} | ${cell(shares?.scoreA)} | ${tally.comparisons} | ${tally.failures} |`);
    }
    lines.push(
      '',
      `Each comparison judged in both answer orders; wins and ties are shares of the valid judgments (each question weighs the same) and sum to 100. The win rate counts a tie half to each side (GraphRAG, arXiv 2404.16130 §3.4); ${second}'s is 100 minus ${first}'s.`,
      '',
    );
  }
  return lines;
}

function recallCutoffs(report: EvaluationReport): number[] {
  const first: MethodReport | undefined = Object.values(report.methods)[0];
  if (!first) return [1, 2, 5, 10];
  return Object.keys(first)
    .filter((key) => key.startsWith('recall@'))
    .map((key) => Number(key.slice('recall@'.length)))
    .sort((left, right) => left - right);
}

/** Paths of the files {@link writeEvaluationFiles} writes. */
export interface EvaluationFiles {
  json: string;
  markdown: string;
  chart: string;
  questions: string;
}

/** Writes `report.json` and, beside it, the markdown table, the SVG chart and the per-question JSONL. */
export async function writeEvaluationFiles(result: EvaluationResult, jsonPath: string): Promise<EvaluationFiles> {
  const { dir, name } = parse(jsonPath);
  const files: EvaluationFiles = {
    json: jsonPath,
    markdown: join(dir, `${name}.md`),
    chart: join(dir, `${name}.svg`),
    questions: join(dir, `${name}.questions.jsonl`),
  };
  await writeOutputFile(files.json, `${JSON.stringify(result.report, null, 2)}\n`, 'the evaluation report');
  await writeOutputFile(files.markdown, renderMarkdownReport(result.report), 'the evaluation report');
  await writeOutputFile(files.chart, renderRecallChart(result.report), 'the evaluation chart');
  await writeOutputFile(
    files.questions,
    result.questions.map((row) => JSON.stringify(row)).join('\n') + (result.questions.length > 0 ? '\n' : ''),
    'the per-question results',
  );
  return files;
}
