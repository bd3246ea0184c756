import { join, parse } from 'node:path';
import { writeOutputFile } from '../core/write-output-file.js';
import type { EvaluationReport, EvaluationResult, MethodReport } from './run-evaluation.js';

function cell(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? '–' : value.toFixed(digits);
}

/** The report as a markdown table, one row per method. */
export function renderMarkdownReport(report: EvaluationReport): string {
  const cutoffs = recallCutoffs(report);
  const header = [
    'method',
    ...cutoffs.map((k) => `R@${k}`),
    'AR@2',
    'AR@5',
    'EM',
    'F1',
    'EM-in',
    'Acc',
    'p50 ms',
    'p95 ms',
    'LLM calls',
    'tokens in',
    'tokens out',
  ];
  const rows = Object.entries(report.methods).map(([name, method]) =>
    [
      `\`${name}\``,
      ...cutoffs.map((k) => cell(method[`recall@${k}`])),
      cell(method['ar@2']),
      cell(method['ar@5']),
      cell(method.em),
      cell(method.f1),
      cell(method.em_in),
      cell(method.accuracy),
      cell(method.latency_ms_p50),
      cell(method.latency_ms_p95),
      String(method.llm_calls),
      String(method.tokens_in),
      String(method.tokens_out),
    ].join(' | '),
  );
  return [
    `# Evaluation: ${report.dataset} (${report.n} questions)`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row} |`),
    '',
    ...judgeSection(report),
    'Recall@k and AR@k: percentage of gold passages in the top k, and of questions with all gold passages in the top k (HippoRAG).',
    'EM/F1: SQuAD normalization, max over answer aliases. "–": not applicable (e.g. no LLM configured, so no generated answers).',
    '',
  ].join('\n');
}

function judgeSection(report: EvaluationReport): string[] {
  if (!report.judge) return [];
  const lines: string[] = [];
  for (const [pair, byCriterion] of Object.entries(report.judge)) {
    const [first = 'A', second = 'B'] = pair.split(' vs ');
    lines.push(`## Pairwise judge: ${pair}`, '', `| criterion | ${first} wins % | ${second} wins % | ties % | comparisons | failures |`, '|---|---|---|---|---|---|');
    for (const [criterion, tally] of Object.entries(byCriterion)) {
      if (!tally) continue;
      lines.push(`| ${criterion} | ${cell(tally.winRateA)} | ${cell(tally.winRateB)} | ${cell(tally.tieRate)} | ${tally.comparisons} | ${tally.failures} |`);
    }
    lines.push('', 'Each comparison judged in both answer orders; a tie counts half to each side (GraphRAG, arXiv 2404.16130 §3.4).', '');
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

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** A grouped bar chart of Recall@2 and Recall@5 per method, as a standalone SVG. */
export function renderRecallChart(report: EvaluationReport): string {
  const methods = Object.entries(report.methods);
  const series = [
    { key: 'recall@2' as const, label: 'Recall@2', color: '#4e79a7' },
    { key: 'recall@5' as const, label: 'Recall@5', color: '#f28e2b' },
  ];
  const barWidth = 22;
  const groupWidth = series.length * barWidth + 26;
  const left = 48;
  const top = 40;
  const plotHeight = 220;
  const width = left + Math.max(1, methods.length) * groupWidth + 20;
  const height = top + plotHeight + 110;
  const y = (value: number): number => top + plotHeight - (value / 100) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${left}" y="20" font-size="13" font-weight="bold">${escapeXml(`${report.dataset}: Recall@2 / Recall@5 (${report.n} questions)`)}</text>`,
  ];
  for (let tick = 0; tick <= 100; tick += 20) {
    parts.push(`<line x1="${left}" x2="${width - 10}" y1="${y(tick)}" y2="${y(tick)}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 6}" y="${y(tick) + 4}" text-anchor="end">${tick}</text>`);
  }
  methods.forEach(([name, method], index) => {
    const groupX = left + 13 + index * groupWidth;
    series.forEach((item, seriesIndex) => {
      const value = method[item.key] ?? 0;
      const x = groupX + seriesIndex * barWidth;
      parts.push(`<rect x="${x}" y="${y(value)}" width="${barWidth - 3}" height="${top + plotHeight - y(value)}" fill="${item.color}"><title>${escapeXml(`${name} ${item.label}: ${value.toFixed(1)}`)}</title></rect>`);
      parts.push(`<text x="${x + (barWidth - 3) / 2}" y="${y(value) - 3}" text-anchor="middle" font-size="9">${value.toFixed(1)}</text>`);
    });
    const labelX = groupX + (series.length * barWidth) / 2;
    parts.push(`<text transform="translate(${labelX},${top + plotHeight + 12}) rotate(35)" text-anchor="start">${escapeXml(name)}</text>`);
  });
  series.forEach((item, index) => {
    const x = width - 170 + index * 80;
    parts.push(`<rect x="${x}" y="8" width="10" height="10" fill="${item.color}"/><text x="${x + 14}" y="17">${item.label}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
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
