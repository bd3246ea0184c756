/*
 * `npm run bench -- reliability`: inputs that used to crash or hang kgrag (issue 16), measured. Each
 * measurement is a small named function returning its keys; add new ones to `measurements`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import { runPipeline } from '../src/pipeline/run-pipeline.js';
import { chunkStep } from '../src/pipeline/steps/chunk-step.js';
import { loadStep } from '../src/pipeline/steps/load-step.js';
import { createEmbedder } from '../src/providers/embed/create-embedder.js';
import { createTokenizer } from '../src/text/tokenizer.js';
import { type BenchResult, result, runChild, sharedDatasets } from './bench-utils.js';
import { benchColdQuery } from './cold-query.js';
import { measureDuplicateChunks } from './reliability-duplicates.js';
import { measureRandomUpload, measureUnpackingDocx } from './reliability-limits.js';
import { measureConcurrentWriters, measureQueriesDuringReindex } from './reliability-writers.js';

/** One measurement: a name for progress lines and a function returning its results by key. */
interface ReliabilityMeasurement {
  name: string;
  measure(runs: number): Promise<Record<string, BenchResult>>;
}

/** Cold queries measured per invocation, at least. */
const coldQueryRuns = 5;

const measurements: ReliabilityMeasurement[] = [
  { name: 'a 2 MB line without spaces through the chunk step', measure: measureLongLineChunk },
  { name: 'kgrag index of 49 MB of random base64 text (fast mode, every method)', measure: measureRandomUpload },
  { name: 'kgrag serve given a .docx that unpacks to 250 MB: /health while its job runs', measure: measureUnpackingDocx },
  { name: '2Wiki + MuSiQue + HotpotQA indexed together (fast mode)', measure: measureCombinedCorporaIndex },
  { name: 'two standard-mode index runs started together on one workspace (mock LLM), 10 trials', measure: measureWriters },
  { name: 'rounds of 20 parallel queries while a re-index writes', measure: measureReaders },
  // A cold query takes a second and a half, the index it needs a minute: five queries whatever `runs` is, so that
  // their median is not one run's noise.
  { name: 'cold ppr and relations CLI queries on the 2Wiki index (5 each), and its size', measure: (runs) => benchColdQuery(Math.max(runs, coldQueryRuns)) },
  { name: 'a log of one repeated line, 2,000 and 4,000 identical chunks, indexed in fast mode', measure: measureDuplicateChunks },
];

/** `concurrent_writers_corrupt`: trials whose final index differs from one run's (target 0); one set of trials however many runs. */
async function measureWriters(): Promise<Record<string, BenchResult>> {
  const { corrupt, trials } = await measureConcurrentWriters(10);
  return { concurrent_writers_corrupt: result([corrupt], 'count'), concurrent_writers_trials: result([trials], 'count') };
}

/** `queries_failed_during_reindex` (target 0) and how many queries were asked while the re-index ran. */
async function measureReaders(runs: number): Promise<Record<string, BenchResult>> {
  const failed: number[] = [];
  const asked: number[] = [];
  for (let run = 0; run < runs; run++) {
    const outcome = await measureQueriesDuringReindex();
    failed.push(outcome.failed);
    asked.push(outcome.queries);
    process.stderr.write(`    run ${run + 1}/${runs}: ${outcome.failed} of ${outcome.queries} queries failed in ${outcome.rounds} rounds${outcome.examples.length > 0 ? `: ${outcome.examples.join(' | ')}` : ''}\n`);
  }
  return { queries_failed_during_reindex: result(failed, 'count'), queries_during_reindex: result(asked, 'count') };
}

/** Runs every reliability measurement and merges their results. */
export async function benchReliability(runs: number): Promise<Record<string, BenchResult>> {
  const results: Record<string, BenchResult> = {};
  for (const measurement of measurements) {
    process.stderr.write(`  ${measurement.name}\n`);
    Object.assign(results, await measurement.measure(runs));
  }
  return results;
}

/**
 * `long_line_chunk_s`: the chunk step's time on one document that is a single 2 MB line of random lower-case
 * letters (no spaces, no sentence ends: the worst case for byte-pair merging; target < 5 s), and
 * `long_line_chunk_cpu_s` the CPU time of loading and chunking it, which a busy machine inflates less. Each run
 * uses other letters, so the tokenizer's merge cache never holds the pieces of the line.
 */
async function measureLongLineChunk(runs: number): Promise<Record<string, BenchResult>> {
  const seconds: number[] = [];
  const cpuSeconds: number[] = [];
  for (let run = 0; run < runs; run++) {
    const random = createRandom(100 + run);
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const parts: string[] = [];
    for (let length = 0; length < 2_000_000; length += 1000) parts.push(Array.from({ length: 1000 }, () => letters[Math.floor(random() * 26)]).join(''));
    const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-long-line-'));
    const kgrag = await createKgrag({ workspace, env: {}, config: { store: { path: ':memory:' } } });
    try {
      const tokenizer = await createTokenizer(kgrag.config.tokenizer.encoding);
      let chunkMs = Number.NaN;
      const cpuBefore = process.cpuUsage();
      await runPipeline({
        store: kgrag.store,
        config: kgrag.config,
        tokenizer,
        embedder: createEmbedder(kgrag.config),
        steps: [loadStep, chunkStep],
        inputs: { paths: [], documents: [{ title: 'One long line', text: parts.join('') }] },
        onEvent: (event) => {
          if (event.type === 'step-end' && event.step === 'chunk') chunkMs = event.durationMs;
        },
      });
      const cpu = process.cpuUsage(cpuBefore);
      cpuSeconds.push((cpu.user + cpu.system) / 1e6);
      seconds.push(chunkMs / 1000);
      process.stderr.write(`    run ${run + 1}/${runs}: ${(chunkMs / 1000).toFixed(2)} s\n`);
    } finally {
      await kgrag.close();
      rmSync(workspace, { recursive: true, force: true });
    }
  }
  return { long_line_chunk_s: result(seconds, 's'), long_line_chunk_cpu_s: result(cpuSeconds, 's') };
}

/**
 * `combined_corpora_index_ok` (1 when the three corpora of ../shared/datasets index together in fast mode
 * without an error, else 0) and `combined_corpora_index_s` (its wall time, in a cold child process). 8,000
 * 2Wiki and MuSiQue passages overflowed the stack before (issue 16). The loader reads lists of records;
 * HotpotQA's corpus is an object `{title: [sentences]}`, so it is written out as such a list first.
 */
async function measureCombinedCorporaIndex(runs: number): Promise<Record<string, BenchResult>> {
  const wiki = join(sharedDatasets, '2wiki-corpus/corpus.json');
  const musique = join(sharedDatasets, 'musique-train-100/corpus.json');
  const hotpot = join(sharedDatasets, 'hotpotqa-train-100/corpus.json');
  for (const corpus of [wiki, musique, hotpot]) if (!existsSync(corpus)) throw new Error(`${corpus} is missing: this benchmark needs ../shared/datasets`);
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-bench-combined-'));
  try {
    const hotpotList = join(folder, 'hotpotqa-corpus.json');
    const byTitle = JSON.parse(readFileSync(hotpot, 'utf8')) as Record<string, string[]>;
    writeFileSync(hotpotList, JSON.stringify(Object.entries(byTitle).map(([title, sentences]) => ({ title, text: sentences.join('') }))));
    const ok: number[] = [];
    const seconds: number[] = [];
    for (let run = 0; run < runs; run++) {
      const workspace = join(folder, `workspace-${run}`);
      const started = performance.now();
      try {
        const report = runChild<{ counts: Record<string, number> }>('./index-child.ts', [workspace, wiki, musique, hotpotList]);
        ok.push(report.counts.chunks !== undefined && report.counts.chunks > 8000 ? 1 : 0);
        process.stderr.write(`    run ${run + 1}/${runs}: ${report.counts.documents} documents, ${report.counts.chunks} chunks\n`);
      } catch (error) {
        ok.push(0);
        process.stderr.write(`    run ${run + 1}/${runs} failed: ${String(error).slice(0, 2000)}\n`);
      }
      seconds.push((performance.now() - started) / 1000);
      rmSync(workspace, { recursive: true, force: true });
    }
    return { combined_corpora_index_ok: result(ok, 'count'), combined_corpora_index_s: result(seconds, 's') };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
