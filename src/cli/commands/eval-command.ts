import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { KgragError } from '../../core/errors.js';
import { sanitizeForTerminal } from '../../core/sanitize-for-terminal.js';
import type { EvalDataset } from '../../eval/eval-dataset.js';
import { loadDatasetFiles, type DatasetFormat } from '../../eval/datasets/load-dataset-files.js';
import { resolveNamedDataset } from '../../eval/datasets/named-datasets.js';
import { renderMarkdownReport, writeEvaluationFiles } from '../../eval/evaluation-report-files.js';
import { methodStatus } from '../../eval/method-status.js';
import { runEvaluation, type MethodReport } from '../../eval/run-evaluation.js';
import { openWorkspace } from '../open-workspace.js';
import { type CliIo, writeLine } from '../cli-io.js';
import { llmPriceOf } from '../llm-price-of.js';
import { createProgressRenderer } from '../progress-renderer.js';
import { type GlobalOptions, workspaceOptions } from '../workspace-options.js';

/** Options of `kgrag eval`. */
export interface EvalCommandOptions {
  dataset?: string;
  corpus?: string;
  questions?: string;
  format?: DatasetFormat;
  methods: string;
  k?: string;
  limit?: number;
  out?: string;
  json?: boolean;
  answer?: boolean;
  judge?: string;
  /** A HippoRAG OpenIE file of the corpus to import before indexing. */
  openie?: string;
}

function parseCutoffs(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  const values = text.split(',').map((part) => Number(part.trim()));
  if (values.some((value) => !Number.isInteger(value) || value <= 0)) {
    throw new KgragError(`--k "${text}" is not a list of positive integers`, { code: 'CLI_BAD_K', category: 'input', hint: 'write e.g. --k 1,2,5,10' });
  }
  return values;
}

function parseJudge(text: string): [string, string] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new KgragError(`--judge "${text}" must name two methods`, { code: 'CLI_BAD_JUDGE', category: 'input', hint: 'write e.g. --judge basic:hybrid,basic:bm25' });
  }
  return [parts[0], parts[1]];
}

/** One method's result for the progress log: its recall, or the error; fallbacks and proxies said with their note. */
function methodLine(name: string, report: MethodReport): string {
  const status = methodStatus(report);
  const numbers = status.failed ? '' : `R@2 ${report['recall@2'] ?? '–'} R@5 ${report['recall@5'] ?? '–'} (p50 ${report.latency_ms_p50} ms)`;
  return [`${name}:`, numbers, ...status.notes.map((note, index) => (index === 0 && status.failed ? note : `— ${note}`))].filter((part) => part.length > 0).join(' ');
}

async function loadDataset(options: EvalCommandOptions, io: CliIo): Promise<EvalDataset> {
  if (options.dataset && (options.corpus || options.questions)) {
    throw new KgragError('--dataset cannot be combined with --corpus/--questions', {
      code: 'CLI_DATASET_CONFLICT',
      category: 'input',
      hint: 'use either a named dataset (--dataset musique-train-100) or your own files (--corpus FILE --questions FILE)',
    });
  }
  if (options.dataset) return resolveNamedDataset(options.dataset, { env: io.env });
  if (options.corpus && options.questions) {
    return loadDatasetFiles({ corpus: resolve(io.cwd, options.corpus), questions: resolve(io.cwd, options.questions), format: options.format ?? 'auto' });
  }
  throw new KgragError('no dataset given', {
    code: 'CLI_NO_DATASET',
    category: 'input',
    hint: 'pass --dataset musique-train-100 | hotpotqa-train-100 | sample, or --corpus FILE --questions FILE',
  });
}

/**
 * `kgrag eval`: indexes a dataset's corpus into an evaluation workspace (reused when up to date), runs
 * every requested method on every question, and writes report.json with a markdown table, an SVG chart
 * and per-question JSONL beside it.
 */
export async function evalCommand(options: EvalCommandOptions, global: GlobalOptions, io: CliIo): Promise<void> {
  const dataset = await loadDataset(options, io);
  const cutoffs = parseCutoffs(options.k);
  const base = resolve(io.cwd, 'kgrag-eval', dataset.name);
  const workspace = global.workspace ?? resolve(base, 'workspace');
  const out = resolve(io.cwd, options.out ?? resolve(base, 'report.json'));
  const kgrag = await openWorkspace(workspaceOptions({ ...global, workspace }, io), io);
  const priced = llmPriceOf(kgrag).price !== undefined;
  const indexRenderer = createProgressRenderer(io.stderr, { quiet: global.quiet === true, priced: () => priced });
  const interactive = io.stderr.isTTY === true && global.quiet !== true;
  const bars = interactive
    ? new cliProgress.MultiBar({ stream: io.stderr, format: ' {method} |{bar}| {value}/{total} questions', barsize: 30, hideCursor: true }, cliProgress.Presets.shades_classic)
    : undefined;
  let bar: cliProgress.SingleBar | undefined;
  try {
    writeLine(
      io.stderr,
      sanitizeForTerminal(`evaluating ${dataset.name}: ${dataset.passages.length} passages, ${options.limit ?? dataset.questions.length} questions, workspace ${workspace}`),
    );
    const result = await runEvaluation({
      kgrag,
      dataset,
      methods: options.methods.split(',').map((method) => method.trim()).filter(Boolean),
      ...(cutoffs === undefined ? {} : { cutoffs }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.answer === false ? { answer: false } : {}),
      // Without an LLM, each method's extractive answer is scored too (labelled extractive); --no-answer skips it.
      extractive: options.answer !== false,
      ...(options.judge === undefined ? {} : { judge: parseJudge(options.judge) }),
      ...(options.openie === undefined ? {} : { openie: resolve(io.cwd, options.openie) }),
      onEvent(event) {
        if (event.type === 'index') indexRenderer.onEvent(event.event);
        else if (event.type === 'openie') {
          writeLine(
            io.stderr,
            `OpenIE import: ${event.matched} of ${event.docs} passages matched, ${event.triples} triples and ${event.entities} entities used${event.unmatched > 0 ? `; ${event.unmatched} passages match no passage of the corpus` : ''}`,
          );
        } else if (event.type === 'method-start') bar = bars?.create(event.total, 0, { method: event.method.padEnd(16) });
        else if (event.type === 'question') bar?.update(event.done);
        else if (!interactive && global.quiet !== true) writeLine(io.stderr, sanitizeForTerminal(methodLine(event.method, event.report)));
      },
    });
    bars?.stop();
    const files = await writeEvaluationFiles(result, out);
    writeLine(io.stdout, options.json ? JSON.stringify(result.report, null, 2) : sanitizeForTerminal(renderMarkdownReport(result.report), { multiline: true }));
    writeLine(io.stderr, sanitizeForTerminal(`wrote ${files.json}, ${files.markdown}, ${files.chart}, ${files.questions}`));
  } finally {
    bars?.stop();
    indexRenderer.stop();
    await kgrag.close();
  }
}
