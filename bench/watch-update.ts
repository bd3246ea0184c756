/*
 * Issue 38: `kgrag serve --watch`, from a file write to the updated answer being served. The sample corpus is copied to
 * a temporary folder and indexed there (fast mode, every method, as `kgrag index` builds it by default); a real
 * `kgrag serve --watch <corpus>` process serves it. Each run appends a sentence with a word never seen before to one
 * file and asks `POST /v1/query` (basic:bm25, context only) every 25 ms until a retrieved passage holds that word. The
 * time is the write to the first such answer: the quiet period (`--debounce`), the index job's process start (a kept
 * process takes it at once), the update, the publish and the query. The default debounce (500 ms, `--debounce` not
 * given) and a shorter one; beside them, the job from its start to its end (the workspace opened, the run, the
 * publish) and its index run alone.
 */
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../src/api/create-kgrag.js';
import { defaultWatchDebounceMs } from '../src/cli/watch-debounce-ms.js';
import { type BenchResult, result, startServe } from './bench-utils.js';

const sampleCorpus = fileURLToPath(new URL('../examples/sample-corpus/', import.meta.url));
/** The file each run changes: a document of the sample corpus. */
const changedFile = '03-kester-weir-bridge.md';
/** The shorter quiet period measured beside the default one. */
const shortDebounceMs = 250;

interface Job {
  status: string;
  startedAt: string | null;
  endedAt: string | null;
  result: { durationMs: number } | null;
}

async function jobs(url: string): Promise<Job[]> {
  return ((await (await fetch(`${url}/v1/jobs`)).json()) as { jobs: Job[] }).jobs;
}

/** Waits until the server has no job queued or running. */
async function idle(url: string): Promise<void> {
  for (;;) {
    if ((await jobs(url)).every((job) => job.status !== 'queued' && job.status !== 'running')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function answerHolds(url: string, word: string): Promise<boolean> {
  const response = await fetch(`${url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: `Who ${word}?`, method: 'basic', variant: 'bm25', contextOnly: true, topK: 5 }),
  });
  if (!response.ok) throw new Error(`query failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { context: { chunks: Array<{ text: string }> } }).context.chunks.some((chunk) => chunk.text.includes(word));
}

/** Where the time of one watched update goes. */
interface Measured {
  /** From the write to the answer holding it. */
  seconds: number[];
  /** The update's index run (`kgrag.index`). */
  jobSeconds: number[];
  /** The job from its start to its end: its process started, the workspace opened, the run, the publish. */
  jobWallSeconds: number[];
}

/** Seconds from each write to the answer holding it, and where they went, with one server (undefined: the default debounce). */
async function measure(workspace: string, corpus: string, debounceMs: number | undefined, runs: number, tag: string): Promise<Measured> {
  const server = await startServe(workspace, { args: ['--watch', corpus, ...(debounceMs === undefined ? [] : ['--debounce', String(debounceMs)])] });
  const seconds: number[] = [];
  const jobSeconds: number[] = [];
  const jobWallSeconds: number[] = [];
  try {
    // The update queued at start (nothing changed since the build) runs first.
    await idle(server.url);
    for (let run = 0; run < runs; run++) {
      const word = `zorvexil${tag}${run}`;
      const started = performance.now();
      appendFileSync(join(corpus, changedFile), `\nThe bridge keeper ${word} counted the barges each spring.\n`);
      while (!(await answerHolds(server.url, word))) await new Promise((resolve) => setTimeout(resolve, 25));
      seconds.push((performance.now() - started) / 1000);
      await idle(server.url);
      const [latest] = await jobs(server.url);
      jobSeconds.push((latest?.result?.durationMs ?? Number.NaN) / 1000);
      jobWallSeconds.push((Date.parse(latest?.endedAt ?? '') - Date.parse(latest?.startedAt ?? '')) / 1000);
      process.stderr.write(`watch-update: debounce ${debounceMs ?? defaultWatchDebounceMs} ms, run ${run + 1}: ${seconds.at(-1)?.toFixed(2)} s (job ${jobWallSeconds.at(-1)?.toFixed(2)} s, its index run ${jobSeconds.at(-1)?.toFixed(2)} s)\n`);
    }
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  return { seconds, jobSeconds, jobWallSeconds };
}

export async function benchWatchUpdate(runs: number): Promise<Record<string, BenchResult>> {
  const scratch = mkdtempSync(join(tmpdir(), 'kgrag-bench-watch-'));
  try {
    const corpus = join(scratch, 'corpus');
    const workspace = join(scratch, 'workspace');
    cpSync(sampleCorpus, corpus, { recursive: true });
    mkdirSync(workspace);
    const kgrag = await createKgrag({ workspace, env: {} });
    try {
      await kgrag.index([corpus]);
    } finally {
      await kgrag.close();
    }
    const standard = await measure(workspace, corpus, undefined, runs, 'a');
    const short = await measure(workspace, corpus, shortDebounceMs, runs, 'b');
    return {
      watch_update_s: result(standard.seconds, 's'),
      [`watch_update_s_debounce_${shortDebounceMs}ms`]: result(short.seconds, 's'),
      watch_update_job_wall_s: result([...standard.jobWallSeconds, ...short.jobWallSeconds], 's'),
      watch_update_index_run_s: result([...standard.jobSeconds, ...short.jobSeconds], 's'),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
