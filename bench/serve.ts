/*
 * Issue 19: `kgrag serve` under load. The 2Wiki fast index is served by a real `kgrag serve` process; autocannon
 * drives 50 concurrent connections over loopback with a mix of basic:hybrid, ppr, kgp and local queries. The same
 * mix runs in-process (50 concurrent async callers on one open workspace) for the HTTP/in-process ratio, and the
 * load runs again while an index job adds 1 % more documents (61 MuSiQue passages).
 *
 * The ratio is meant to measure what HTTP costs the server, not how much CPU the load generator takes from it: with
 * `taskset` and two or more CPUs, the server and the in-process run each get the same one CPU, and the load
 * generator (this process) the others — as clients on other machines would. Without `taskset` all share every CPU,
 * and the report says so.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createKgrag } from '../src/api/create-kgrag.js';
import { startEmbeddedPostgres } from '../test/helpers/postgres-servers.js';
import { type BenchResult, result, runChild, sharedDatasets, spawnKgrag, startServe, type ServeProcess, twoWikiQuestions } from './bench-utils.js';

const connections = 50;
const durationSeconds = 20;
const methods = ['basic:hybrid', 'ppr', 'kgp', 'local'];
/** Every question with every method, interleaved so that each connection cycles through all four methods. */
const mix = twoWikiQuestions.flatMap((question) => methods.map((method) => ({ question, method })));

/** Which CPUs the kgrag process (server or in-process run) and the load generator run on, or none when not pinned. */
interface CpuPinning {
  kgrag: string;
  client: string;
}

function cpuPinning(): CpuPinning | undefined {
  const cpus = availableParallelism();
  if (cpus < 2 || spawnSync('taskset', ['--version']).status !== 0) return undefined;
  return { kgrag: String(cpus - 1), client: cpus === 2 ? '0' : `0-${cpus - 2}` };
}

/** The command prefix that runs a kgrag process on its CPU. */
function pinned(pinning: CpuPinning | undefined): string[] {
  return pinning ? ['taskset', '-c', pinning.kgrag] : [];
}

interface LoadResult {
  errors: number;
  p50: number;
  /** From every response's own time: autocannon's histogram reports p90 and p97.5, not p95. */
  p95: number;
  p99: number;
  rps: number;
}

/**
 * Runs the query mix for `seconds` on `clients` connections, or, with `until`, from now until it settles (a job's
 * end): the load then spans the whole job, whatever it takes.
 */
async function httpLoad(url: string, seconds = durationSeconds, clients = connections, until?: Promise<unknown>): Promise<LoadResult> {
  const failures = new Map<string, number>();
  const count = (what: string): void => {
    failures.set(what, (failures.get(what) ?? 0) + 1);
  };
  const started = performance.now();
  const instance = autocannon({
    url,
    connections: clients,
    duration: until === undefined ? seconds : 3600,
    timeout: 120,
    requests: mix.map(({ question, method }) => ({ method: 'POST', path: '/v1/query', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, method }) })),
  });
  const times: number[] = [];
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 300) count(`HTTP ${statusCode}`);
    times.push(responseTime);
  });
  instance.on('reqError', (error) => count(error.message));
  void until?.finally(() => instance.stop());
  const run = await instance;
  const elapsed = (performance.now() - started) / 1000;
  // Say what failed: a count alone cannot tell a refused connection from a server error.
  if (failures.size > 0) process.stderr.write(`  failures: ${[...failures].map(([what, times]) => `${what} × ${times}`).join(', ')}\n`);
  times.sort((a, b) => a - b);
  const p95 = times[Math.min(times.length - 1, Math.floor(times.length * 0.95))] ?? Number.NaN;
  return { errors: run.errors + run.timeouts + run.non2xx, p50: run.latency.p50, p95: Math.round(p95), p99: run.latency.p99, rps: run.requests.total / elapsed };
}

/**
 * The same mix with the same concurrency in a fresh process of its own (as the server is one), on one open workspace:
 * queries per second without HTTP.
 */
export async function inProcessLoad(workspace: string): Promise<number> {
  const kgrag = await createKgrag({ workspace, env: {} });
  try {
    for (const { question, method } of mix.slice(0, methods.length)) await kgrag.query(question, { method });
    let done = 0;
    const end = performance.now() + durationSeconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        let next = 0;
        while (performance.now() < end) {
          const item = mix[next++ % mix.length]!;
          await kgrag.query(item.question, { method: item.method });
          done++;
        }
      }),
    );
    return done / durationSeconds;
  } finally {
    await kgrag.close();
  }
}

export async function benchServe(runs: number): Promise<Record<string, BenchResult>> {
  const corpus = join(sharedDatasets, '2wiki-corpus/corpus.json');
  const extra = (JSON.parse(readFileSync(join(sharedDatasets, 'musique-train-100/corpus.json'), 'utf8')) as Array<{ title: string; text: string }>).slice(0, 61);
  const base = mkdtempSync(join(tmpdir(), 'kgrag-bench-serve-'));
  const workspace = join(base, 'run');
  const measured = { errors: [] as number[], p50: [] as number[], p99: [] as number[], rps: [] as number[], inProcess: [] as number[], ratio: [] as number[], indexingErrors: [] as number[], indexingRps: [] as number[], indexingP99: [] as number[], jobSeconds: [] as number[], lagP99: [] as number[], lagMax: [] as number[], inProcessLagP99: [] as number[], inProcessLagMax: [] as number[] };
  try {
    process.stderr.write('  indexing 2Wiki (fast mode)\n');
    runChild('./index-child.ts', [join(base, 'built'), corpus]);
    const pinning = cpuPinning();
    if (pinning) {
      spawnSync('taskset', ['-a', '-p', '-c', pinning.client, String(process.pid)], { stdio: 'ignore' });
      process.stderr.write(`  kgrag on CPU ${pinning.kgrag}, the load generator on CPU ${pinning.client}\n`);
    } else process.stderr.write('  not pinned to CPUs (one CPU, or no taskset): the load generator shares the CPU with kgrag\n');
    for (let run = 0; run < runs; run++) {
      // Every run starts from the same index: the previous run's job added documents to its copy.
      rmSync(workspace, { recursive: true, force: true });
      cpSync(join(base, 'built'), workspace, { recursive: true });
      // The server's event-loop delay while one document is indexed: jobs in processes of their own, then (on a fresh
      // copy) on the server's thread as before issue 35.
      const lag = runChild<{ p99: number; max: number }>('./serve-lag-child.ts', [workspace, 'process'], pinned(pinning));
      rmSync(workspace, { recursive: true, force: true });
      cpSync(join(base, 'built'), workspace, { recursive: true });
      const lagInProcess = runChild<{ p99: number; max: number }>('./serve-lag-child.ts', [workspace, 'in-process'], pinned(pinning));
      rmSync(workspace, { recursive: true, force: true });
      cpSync(join(base, 'built'), workspace, { recursive: true });
      measured.lagP99.push(lag.p99);
      measured.lagMax.push(lag.max);
      measured.inProcessLagP99.push(lagInProcess.p99);
      measured.inProcessLagMax.push(lagInProcess.max);
      process.stderr.write(`  event-loop delay while a job adds one document: p99 ${lag.p99.toFixed(1)} ms, max ${lag.max.toFixed(1)} ms (job on the server's thread: p99 ${lagInProcess.p99.toFixed(1)} ms, max ${lagInProcess.max.toFixed(1)} ms)\n`);
      const inProcess = runChild<{ rps: number }>('./serve-inprocess-child.ts', [workspace], pinned(pinning)).rps;
      const server = await startServe(workspace, {
        command: pinned(pinning),
        args: ['--set', 'server.requestsPerMinute=100000000', '--set', `server.maxConcurrentQueries=${connections * 2}`],
      });
      try {
        await warmUp(server);
        const load = await httpLoad(server.url);
        measured.errors.push(load.errors);
        measured.p50.push(load.p50);
        measured.p99.push(load.p99);
        measured.rps.push(load.rps);
        measured.inProcess.push(inProcess);
        measured.ratio.push(load.rps / inProcess);
        process.stderr.write(`  run ${run + 1}/${runs}: HTTP ${load.rps.toFixed(1)} q/s (p50 ${load.p50} ms, p99 ${load.p99} ms, ${load.errors} errors), in-process ${inProcess.toFixed(1)} q/s\n`);

        // The same load while a job adds 1 % more documents.
        const during = await loadWhileAdding(
          server,
          extra.map((passage, index) => ({ title: passage.title, text: passage.text, source: `bench:musique:${index}` })),
        );
        measured.jobSeconds.push(during.jobSeconds);
        measured.indexingErrors.push(during.errors);
        measured.indexingRps.push(during.rps);
        measured.indexingP99.push(during.p99);
        process.stderr.write(`  while indexing: ${during.rps.toFixed(1)} q/s (p99 ${during.p99} ms, ${during.errors} errors)\n`);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }
    return {
      serve_errors: result(measured.errors, 'count'),
      serve_p50_ms: result(measured.p50, 'ms'),
      serve_p99_ms: result(measured.p99, 'ms'),
      serve_rps: result(measured.rps, 'q/s'),
      inprocess_rps: result(measured.inProcess, 'q/s'),
      serve_rps_vs_inprocess: result(measured.ratio, pinning ? 'ratio (kgrag on one CPU, the load generator on the others)' : 'ratio (not pinned: the load generator shares the CPUs)'),
      serve_errors_while_indexing: result(measured.indexingErrors, 'count'),
      serve_rps_while_indexing: result(measured.indexingRps, 'q/s'),
      serve_p99_ms_while_indexing: result(measured.indexingP99, 'ms'),
      index_job_s_while_serving: result(measured.jobSeconds, 's'),
      serve_event_loop_lag_p99_ms_while_indexing: result(measured.lagP99, 'ms'),
      serve_event_loop_lag_max_ms_while_indexing: result(measured.lagMax, 'ms'),
      serve_event_loop_lag_p99_ms_while_indexing_job_on_server_thread: result(measured.inProcessLagP99, 'ms (jobs on the server\'s thread, as before issue 35)'),
      serve_event_loop_lag_max_ms_while_indexing_job_on_server_thread: result(measured.inProcessLagMax, 'ms (jobs on the server\'s thread, as before issue 35)'),
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Warms a server up: start-up work is not steady state. The server prepares the explorer's first graph when it opens
 * the index (this request waits for it), and each method builds its structures on its first query.
 */
async function warmUp(server: ServeProcess): Promise<void> {
  const prepared = await fetch(`${server.url}/v1/graph?layout=true`);
  if (prepared.status !== 200) throw new Error(`the explorer graph request failed with ${prepared.status}: ${await prepared.text()}`);
  for (const { question, method } of mix.slice(0, methods.length)) {
    const response = await fetch(`${server.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, method }) });
    if (response.status !== 200) throw new Error(`warm-up query (${method}) failed with ${response.status}: ${await response.text()}`);
  }
}

/**
 * Queues an index job adding `documents` on `server` and runs the load on `clients` connections while it works —
 * until it ends (`untilJobEnds`) or for the usual duration — and checks that it succeeded.
 */
async function loadWhileAdding(
  server: ServeProcess,
  documents: ReadonlyArray<{ title: string; text: string; source: string }>,
  options: { clients?: number; untilJobEnds?: boolean } = {},
): Promise<LoadResult & { jobSeconds: number }> {
  const added = await fetch(`${server.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documents }) });
  const { job } = (await added.json()) as { job: { id: string } };
  const started = performance.now();
  const ended = (async () => {
    const events = await (await fetch(`${server.url}/v1/jobs/${job.id}/events`)).text();
    const end = JSON.parse(/event: end\ndata: (.*)\n/.exec(events)?.[1] ?? '{}') as { status?: string; error?: unknown };
    if (end.status !== 'succeeded') throw new Error(`the index job did not succeed: ${JSON.stringify(end.error ?? events.slice(-300))}`);
    return (performance.now() - started) / 1000;
  })();
  const during = await httpLoad(server.url, durationSeconds, options.clients ?? connections, options.untilJobEnds === true ? ended.catch(() => undefined) : undefined);
  return { ...during, jobSeconds: await ended };
}

/** Clients of the issue-39 loads below saturation: with 50, latency is mostly waiting in line (50 / throughput). */
const fewClients = 8;

/**
 * Issue 39: query latency on a Postgres deployment while an index job adds 1 % more documents (61 MuSiQue passages)
 * to the 2Wiki fast index: idle, with the job in the query server (its own process at nice 10, on the server's CPU),
 * and with `kgrag serve --index-jobs workers` beside a `kgrag worker --role indexer` that runs it. The load runs from
 * the job's submission to its end, on 8 clients (below saturation: latency is a query's own) and on 50 (saturated:
 * latency is mostly queueing, as in issue 19). Pinned with `taskset`, the server gets one CPU and the load generator
 * and the worker share the other — as a worker on another machine would leave the server's CPU alone; without
 * `taskset` all share every CPU, and the unit says so. The embedded server has no pgvector: dense searches scan in
 * kgrag. Each run adds four batches, so the index of later runs is up to 12 % larger.
 */
export async function benchServePostgres(runs: number): Promise<Record<string, BenchResult>> {
  const corpus = join(sharedDatasets, '2wiki-corpus/corpus.json');
  const extra = JSON.parse(readFileSync(join(sharedDatasets, 'musique-train-100/corpus.json'), 'utf8')) as Array<{ title: string; text: string }>;
  const base = mkdtempSync(join(tmpdir(), 'kgrag-bench-serve-pg-'));
  const workspace = join(base, 'twowiki');
  const postgres = await startEmbeddedPostgres();
  const keys = ['idle', 'inServer', 'onWorker', 'idle50', 'inServer50', 'onWorker50', 'inServerJob', 'onWorkerJob', 'errors'] as const;
  const measured = Object.fromEntries(keys.map((key) => [key, [] as number[]])) as Record<(typeof keys)[number], number[]>;
  const pinning = cpuPinning();
  const unit = (clients: number): string => `ms (${clients} clients${pinning ? '' : '; not pinned: the server, the worker and the load generator share the CPUs'})`;
  try {
    const url = await postgres.freshDatabase();
    process.stderr.write('  indexing 2Wiki (fast mode) into embedded Postgres\n');
    runChild('./index-child.ts', ['--store', JSON.stringify({ backend: 'postgres', url }), workspace, corpus]);
    if (pinning) spawnSync('taskset', ['-a', '-p', '-c', pinning.client, String(process.pid)], { stdio: 'ignore' });
    const env = { KGRAG_DATABASE_URL: url };
    const serveArgs = ['--set', 'server.requestsPerMinute=100000000', '--set', `server.maxConcurrentQueries=${connections * 2}`];
    const batch = (run: number, where: string): Array<{ title: string; text: string; source: string }> =>
      extra.slice(0, 61).map((passage, index) => ({ title: `${passage.title} (${where} ${run})`, text: passage.text, source: `bench:${where}:${run}:${index}` }));
    const errors = (...loads: LoadResult[]): number => loads.reduce((sum, load) => sum + load.errors, 0);
    for (let run = 0; run < runs; run++) {
      const inServer = await startServe(workspace, { command: pinned(pinning), args: serveArgs, env });
      try {
        await warmUp(inServer);
        // Caches (Postgres's and kgrag's postings) fill during the first seconds of load: not the idle figure.
        await httpLoad(inServer.url, 10, fewClients);
        const idle = await httpLoad(inServer.url, durationSeconds, fewClients);
        const idle50 = await httpLoad(inServer.url, durationSeconds, connections);
        const during = await loadWhileAdding(inServer, batch(run, 'server'), { clients: fewClients, untilJobEnds: true });
        const during50 = await loadWhileAdding(inServer, batch(run, 'server-50'), { clients: connections, untilJobEnds: true });
        measured.idle.push(idle.p95);
        measured.idle50.push(idle50.p95);
        measured.inServer.push(during.p95);
        measured.inServer50.push(during50.p95);
        measured.inServerJob.push(during.jobSeconds);
        measured.errors.push(errors(idle, idle50, during, during50));
        process.stderr.write(
          `  run ${run + 1}/${runs}: p95 idle ${idle.p95} ms (${idle.rps.toFixed(1)} q/s), while the server indexes ${during.p95} ms (${during.rps.toFixed(1)} q/s, job ${during.jobSeconds.toFixed(1)} s); 50 clients: ${idle50.p95} → ${during50.p95} ms\n`,
        );
      } finally {
        inServer.child.kill('SIGTERM');
        await inServer.exited;
      }
      const queries = await startServe(workspace, { command: pinned(pinning), args: [...serveArgs, '--index-jobs', 'workers'], env });
      const indexer = spawnKgrag(['-w', workspace, 'worker', '--role', 'indexer'], { command: pinning ? ['taskset', '-c', pinning.client] : [], env, stderr: 'inherit' });
      try {
        await warmUp(queries);
        await httpLoad(queries.url, 10, fewClients);
        const during = await loadWhileAdding(queries, batch(run, 'worker'), { clients: fewClients, untilJobEnds: true });
        const during50 = await loadWhileAdding(queries, batch(run, 'worker-50'), { clients: connections, untilJobEnds: true });
        measured.onWorker.push(during.p95);
        measured.onWorker50.push(during50.p95);
        measured.onWorkerJob.push(during.jobSeconds);
        measured.errors.push(errors(during, during50));
        process.stderr.write(`  run ${run + 1}/${runs}: p95 while a worker indexes ${during.p95} ms (${during.rps.toFixed(1)} q/s, job ${during.jobSeconds.toFixed(1)} s); 50 clients: ${during50.p95} ms\n`);
      } finally {
        indexer.kill('SIGINT');
        queries.child.kill('SIGTERM');
        await queries.exited;
        await new Promise((resolve) => (indexer.exitCode === null ? indexer.once('exit', resolve) : resolve(undefined)));
      }
    }
    return {
      serve_p95_ms_postgres: result(measured.idle, unit(fewClients)),
      serve_p95_ms_while_indexing_in_server: result(measured.inServer, unit(fewClients)),
      serve_p95_ms_while_indexing_on_worker: result(measured.onWorker, unit(fewClients)),
      serve_p95_ms_postgres_50_clients: result(measured.idle50, unit(connections)),
      serve_p95_ms_while_indexing_in_server_50_clients: result(measured.inServer50, unit(connections)),
      serve_p95_ms_while_indexing_on_worker_50_clients: result(measured.onWorker50, unit(connections)),
      index_job_s_in_server: result(measured.inServerJob, 's (8 clients querying)'),
      index_job_s_on_worker: result(measured.onWorkerJob, 's (8 clients querying)'),
      serve_errors_postgres: result(measured.errors, 'count'),
    };
  } finally {
    await postgres.stop();
    rmSync(base, { recursive: true, force: true });
  }
}
