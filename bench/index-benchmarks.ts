import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import { type BenchResult, median, result, runChild, sharedDatasets, twoWikiQuestions } from './bench-utils.js';

/** What bench/index-child.ts prints: one cold index run. */
export interface ChildReport {
  wallMs: number;
  pipelineMs: number;
  /** User + system CPU time of the whole child, all threads: less disturbed by other processes than wall time. */
  cpuMs: number;
  maxRssMb: number;
  steps: Record<string, number>;
  /** CPU ms per step, all threads, its write included. */
  stepsCpu: Record<string, number>;
  /** Each step's counters at its end; those named `…Ms` time its phases. */
  stepCounts: Record<string, Record<string, number>>;
  counts: Record<string, number>;
  progressEvents: number;
}

function indexRuns(paths: string[], runs: number, methods?: readonly string[]): ChildReport[] {
  const reports: ChildReport[] = [];
  for (let run = 0; run < runs; run++) {
    const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-'));
    try {
      reports.push(runChild<ChildReport>('./index-child.ts', [...(methods === undefined ? [] : ['--methods', methods.join(',')]), workspace, ...paths]));
      const report = reports[run];
      process.stderr.write(
        `  run ${run + 1}/${runs}${methods === undefined ? '' : ` (${methods.join(', ')})`}: ${(report?.wallMs ?? 0).toFixed(0)} ms, peak RSS ${(report?.maxRssMb ?? 0).toFixed(0)} MB; ` +
          `${Object.entries(report?.steps ?? {}).map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)}`).join(', ')} s\n`,
      );
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }
  return reports;
}

function stepMedians(reports: readonly ChildReport[], prefix: string): Record<string, BenchResult> {
  const results: Record<string, BenchResult> = {};
  for (const step of Object.keys(reports[0]?.steps ?? {})) {
    results[`${prefix}_step_${step}_s`] = result(reports.map((report) => (report.steps[step] ?? 0) / 1000), 's');
  }
  return results;
}

/** The methods of a GraphRAG-only index (issue 17). */
const graphragMethods = ['basic', 'local', 'global', 'drift'];

/**
 * Fast-mode indexing of the 6,119-passage 2WikiMultihopQA corpus, end to end, in a cold process: for every
 * method, and for the GraphRAG methods only (`kgrag index --methods basic,local,global,drift`). The two
 * alternate run by run, so a change of machine load falls on both alike.
 */
export async function benchIndex2wiki(runs: number): Promise<Record<string, BenchResult>> {
  const corpus = join(sharedDatasets, '2wiki-corpus/corpus.json');
  if (!existsSync(corpus)) throw new Error(`${corpus} is missing: this benchmark needs ../shared/datasets`);
  const all: ChildReport[] = [];
  const graphrag: ChildReport[] = [];
  for (let run = 0; run < runs; run++) {
    all.push(indexRuns([corpus], 1)[0] as ChildReport);
    graphrag.push(indexRuns([corpus], 1, graphragMethods)[0] as ChildReport);
  }
  return {
    index_2wiki_wall_s: result(all.map((report) => report.wallMs / 1000), 's'),
    index_2wiki_peak_rss_mb: result(all.map((report) => report.maxRssMb), 'MB'),
    index_2wiki_graphrag_only_wall_s: result(graphrag.map((report) => report.wallMs / 1000), 's'),
    index_2wiki_graphrag_only_peak_rss_mb: result(graphrag.map((report) => report.maxRssMb), 'MB'),
    ...stepMedians(all, 'index_2wiki'),
    ...stepMedians(graphrag, 'index_2wiki_graphrag_only'),
  };
}

/**
 * A synthetic ~50 MB text for the large-file ingest check, not real prose: seeded random sentences of 8–23
 * words drawn uniformly from 21 common nouns ("river", "town", "bridge", …), 12 % of them one of 8 surnames,
 * capitalized, with a paragraph break after 10 % of the sentences. It has English words and sentence shapes
 * but no grammar and a 29-word vocabulary, so it measures size and throughput, not extraction quality.
 */
function writeLargeText(path: string, megabytes: number): void {
  const random = createRandom(7);
  const words = 'river town bridge flood council mill ferry market festival engineer school railway weir quay harbour committee family boat lantern heritage museum'.split(' ');
  const names = ['Marle', 'Cotterill', 'Ivesley', 'Quayle', 'Wren', 'Thorne', 'Sedley', 'Anand'];
  const parts: string[] = [];
  let size = 0;
  while (size < megabytes * 1_000_000) {
    const length = 8 + Math.floor(random() * 16);
    const sentence: string[] = [];
    for (let index = 0; index < length; index++) {
      sentence.push(random() < 0.12 ? (names[Math.floor(random() * names.length)] as string) : (words[Math.floor(random() * words.length)] as string));
    }
    const text = `${sentence.join(' ')}.`;
    parts.push(text.charAt(0).toUpperCase() + text.slice(1), random() < 0.1 ? '\n\n' : ' ');
    size += text.length + 1;
  }
  writeFileSync(path, parts.join(''));
}

/** One synthetic 50 MB text file ({@link writeLargeText}) through the whole fast pipeline. */
export async function benchIngest50mb(runs: number): Promise<Record<string, BenchResult>> {
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-50mb-'));
  try {
    const file = join(folder, 'large.txt');
    writeLargeText(file, 50);
    const reports = indexRuns([file], runs);
    return {
      ingest_50mb_wall_s: result(reports.map((report) => report.wallMs / 1000), 's'),
      ingest_50mb_peak_rss_mb: result(reports.map((report) => report.maxRssMb), 'MB'),
      ingest_50mb_chunks: result(reports.map((report) => report.counts.chunks ?? 0), 'count'),
      ingest_50mb_progress_events: result(reports.map((report) => report.progressEvents), 'count'),
      ...stepMedians(reports, 'ingest_50mb'),
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Latencies of one query method over a question set, in ms. */
export interface MethodLatencies {
  /** The method's first query, which builds its per-index lookups (`MethodContext.memo`). */
  firstQueryMs: number;
  retrieve: number[];
  /** Empty unless asked for. */
  contextOnly: number[];
  /** Empty unless asked for. */
  answer: number[];
}

/**
 * Times `method` on `kgrag` (warm process, no LLM): a first query, then `runs` passes over `questions`, each question
 * retrieved and, if asked, answered extractively and packed into a context (`contextOnly`), in that order.
 */
export async function measureMethod(kgrag: Kgrag, method: string, questions: readonly string[], runs: number, also: { answer?: boolean; contextOnly?: boolean } = {}): Promise<MethodLatencies> {
  const latencies: MethodLatencies = { firstQueryMs: 0, retrieve: [], contextOnly: [], answer: [] };
  const cold = performance.now();
  await kgrag.retrieve(questions[0] as string, { method });
  latencies.firstQueryMs = performance.now() - cold;
  for (let run = 0; run < runs; run++) {
    for (const question of questions) {
      const started = performance.now();
      await kgrag.retrieve(question, { method });
      latencies.retrieve.push(performance.now() - started);
      if (also.answer) {
        const answered = performance.now();
        await kgrag.query(question, { method });
        latencies.answer.push(performance.now() - answered);
      }
      if (also.contextOnly) {
        const packed = performance.now();
        await kgrag.query(question, { method, contextOnly: true });
        latencies.contextOnly.push(performance.now() - packed);
      }
    }
  }
  return latencies;
}

/**
 * Query latency on the 2Wiki fast-mode index without an LLM (warm process, medians over questions × runs): retrieval
 * only, the packed context (`contextOnly`), and retrieval plus extractive answer, for every basic variant and the
 * GraphRAG methods that are registered.
 */
export async function benchQuery2wiki(runs: number): Promise<Record<string, BenchResult>> {
  const corpus = join(sharedDatasets, '2wiki-corpus/corpus.json');
  const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-query-'));
  try {
    const kgrag = await createKgrag({ workspace, env: {} });
    await kgrag.index([corpus]);
    const results: Record<string, BenchResult> = {};
    const registered = new Set(kgrag.engine.methods.map((method) => method.name));
    const methods = ['basic:bm25', 'basic:dense', 'basic:hybrid', 'local', 'global', 'ppr', 'relations', 'kgp'].filter((method) => registered.has(method.split(':')[0] ?? ''));
    for (const method of methods) {
      const { firstQueryMs, retrieve, contextOnly, answer } = await measureMethod(kgrag, method, twoWikiQuestions, runs, { answer: true, contextOnly: true });
      const name = method.replace(':', '_');
      results[`query_2wiki_${name}_first_query_ms`] = result([firstQueryMs], 'ms');
      results[`query_2wiki_${name}_retrieve_ms`] = { median: median(retrieve), unit: 'ms', runs: retrieve };
      results[`query_2wiki_${name}_context_ms`] = { median: median(contextOnly), unit: 'ms', runs: contextOnly };
      results[`query_2wiki_${name}_answer_ms`] = { median: median(answer), unit: 'ms', runs: answer };
    }
    await kgrag.close();
    return results;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
