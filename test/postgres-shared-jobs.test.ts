// Index jobs of a Postgres workspace live in its database, so several servers (and indexer workers) share them: a job
// submitted on one server is followed and run on another; a query server set to run no job only queues and reads; a
// job whose process was killed is taken over by another once its lease runs out, which says so and resumes the draft,
// and the index equals a clean build; `kgrag worker --role indexer` runs the jobs a query-only server queued.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKgrag } from '../src/api/create-kgrag.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { nodeScriptArgs, repositoryRoot } from './helpers/node-script.js';
import { postgresTestContext } from './helpers/postgres-test-context.js';
import { readEvents, sampleCorpus, startTestServer } from './helpers/test-server.js';

const context = postgresTestContext('kgrag-shared-jobs-');
const folder = context.folder;

interface Job {
  id: string;
  status: string;
  resumed: number;
  runBy: string | null;
  warnings: string[];
  steps: Array<{ step: string; status: string }>;
  error: { message: string } | null;
}

const sampleDocuments = (): Array<{ title: string; text: string }> =>
  readdirSync(sampleCorpus)
    .filter((name) => name.endsWith('.md'))
    .map((name) => ({ title: name, text: readFileSync(join(sampleCorpus, name), 'utf8') }));

async function submit(base: string, documents: Array<{ title: string; text: string }>): Promise<Job> {
  const response = await fetch(`${base}/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documents, mode: 'fast' }) });
  assert.equal(response.status, 202, await response.clone().text());
  return ((await response.json()) as { job: Job }).job;
}

async function jobOn(base: string, id: string): Promise<Job> {
  const response = await fetch(`${base}/jobs/${id}`);
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { job: Job }).job;
}

async function until(base: string, id: string, done: (job: Job) => boolean, what: string): Promise<Job> {
  for (let waited = 0; ; waited += 100) {
    const job = await jobOn(base, id);
    if (done(job)) return job;
    assert.ok(waited < 120_000 && job.status !== 'failed', `${what}: ${JSON.stringify(job)}`);
    await sleep(100);
  }
}

/** `kgrag …` in a child process on a Postgres workspace. */
function runKgrag(args: string[], databaseUrl: string): { child: ChildProcess; stderr: () => string; done: Promise<{ code: number | null; signal: string | null; stderr: string }> } {
  const child = spawn(process.execPath, [...nodeScriptArgs('src/cli/main.ts'), ...args], {
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH ?? '', KGRAG_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  const done = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr })));
  return { child, stderr: () => stderr, done };
}

async function servingUrl(serve: ReturnType<typeof runKgrag>): Promise<string> {
  for (;;) {
    const found = /serving .* at (http:\/\/[^\s]+) —/.exec(serve.stderr())?.[1];
    if (found !== undefined) return found;
    const exited = await Promise.race([serve.done, sleep(50).then(() => undefined)]);
    assert.equal(exited, undefined, `kgrag serve exited: ${exited?.stderr}`);
  }
}

describe('index jobs shared through Postgres', () => {
  test('a job submitted on a query-only server is followed and run on another; both list it under one id', { timeout: 120_000 }, async () => {
    const url = await context.postgres().freshDatabase();
    const kgrag = { config: { store: { backend: 'postgres' as const, url, workspace: 'shared' }, index: { mode: 'fast' as const }, pipeline: { methods: ['basic'] } } };
    const queries = await startTestServer({ directory: folder(), kgrag, server: { indexJobs: 'workers' } });
    const indexer = await startTestServer({ directory: folder(), kgrag, server: { jobLeaseSeconds: 3 } });
    try {
      const job = await submit(`${queries.url}/v1`, [{ title: 'Weir', text: 'The Kester Weir marks the tidal limit of the River Kester.' }]);
      assert.match(job.id, /^job-[0-9A-HJKMNP-TV-Z]{26}$/, 'a ULID: unique across servers');
      const events = await readEvents(await fetch(`${indexer.url}/v1/jobs/${job.id}/events`));
      const ended = JSON.parse(events.at(-1)?.data ?? '{}') as Job;
      assert.equal(events.at(-1)?.event, 'end');
      assert.equal(ended.status, 'succeeded', JSON.stringify(ended.error));
      assert.ok(events.some((event) => event.event === 'pipeline' && /"step-end"/.test(event.data)), 'the follower saw the run\'s steps');
      const seenByQueries = await jobOn(`${queries.url}/v1`, job.id);
      assert.equal(seenByQueries.status, 'succeeded');
      assert.match(seenByQueries.runBy ?? '', new RegExp(`:${process.pid}:`), 'run by the indexing server (in this process)');
      const listed = ((await (await fetch(`${queries.url}/v1/jobs`)).json()) as { jobs: Job[] }).jobs.map((listedJob) => listedJob.id);
      assert.deepEqual(listed, [job.id]);
      const answer = await fetch(`${queries.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'What marks the tidal limit?', method: 'basic:bm25' }) });
      assert.match(await answer.text(), /Kester Weir/);
    } finally {
      await queries.close();
      await indexer.close();
    }
  });

  test('a server killed mid-job: another takes the job over once its lease runs out, says so, resumes its draft, and the index equals a clean build', { timeout: 240_000 }, async () => {
    const url = await context.postgres().freshDatabase();
    const workspace = folder();
    const first = runKgrag(['-w', workspace, '--set', 'server.jobLeaseSeconds=2', 'serve', '--port', '0', '--log-level', 'warn'], url);
    let second: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      const firstUrl = `${await servingUrl(first)}/v1`;
      const job = await submit(firstUrl, sampleDocuments());
      const running = await until(firstUrl, job.id, (view) => view.steps.some((step) => step.step === 'communities' && step.status === 'done'), 'the job reaches its later steps');
      assert.match(running.runBy ?? '', new RegExp(`:${first.child.pid}:`));
      first.child.kill('SIGKILL');
      await first.done;

      // The same folder: a Postgres workspace is named after it, so the second server serves the first's.
      second = await startTestServer({ directory: workspace, kgrag: { config: { store: { backend: 'postgres', url }, index: { mode: 'fast' } } }, server: { jobLeaseSeconds: 2 } });
      const ended = await until(`${second.url}/v1`, job.id, (view) => view.status === 'succeeded', 'the job ends on the second server');
      assert.match(ended.runBy ?? '', new RegExp(`:${process.pid}:`));
      const warnings = ended.warnings.join('\n');
      assert.match(warnings, new RegExp(`taken over from [^ ]+:${first.child.pid}:\\w+, whose lease ran out`));
      assert.match(warnings, new RegExp(`resumes the unfinished draft of "kgrag serve \\(${job.id}\\)"`));
      assert.ok(ended.resumed >= 1);
      assert.ok(ended.steps.some((step) => step.step === 'nlp-extract' && step.status === 'skipped'), `the finished steps were not done again: ${JSON.stringify(ended.steps)}`);

      const resumed = await createKgrag({ workspace, env: { KGRAG_DATABASE_URL: url }, config: {} });
      const clean = await createKgrag({ workspace: folder(), env: { KGRAG_DATABASE_URL: await context.postgres().freshDatabase() }, config: { index: { mode: 'fast' } } });
      try {
        await clean.index({ documents: sampleDocuments() });
        assert.deepEqual(await indexSnapshot(resumed), await indexSnapshot(clean));
      } finally {
        await resumed.close();
        await clean.close();
      }
    } finally {
      first.child.kill('SIGKILL');
      await second?.close();
    }
  });

  test('kgrag worker --role indexer runs the jobs a query-only server queues, and gives a running one back on Ctrl-C', { timeout: 120_000 }, async () => {
    const url = await context.postgres().freshDatabase();
    const workspace = folder();
    const kgrag = { config: { store: { backend: 'postgres' as const, url }, index: { mode: 'fast' as const }, pipeline: { methods: ['basic'] } } };
    const queries = await startTestServer({ directory: workspace, kgrag, server: { indexJobs: 'workers' } });
    const worker = runKgrag(['-w', workspace, '--set', 'pipeline.methods=["basic"]', 'worker', '--role', 'indexer'], url);
    try {
      const job = await submit(`${queries.url}/v1`, [{ title: 'Mill', text: 'The Sedley mill grinds oats for the valley.' }]);
      const ended = await until(`${queries.url}/v1`, job.id, (view) => view.status === 'succeeded', 'the worker runs the job');
      assert.match(ended.runBy ?? '', new RegExp(`:${worker.child.pid}:`), 'run by the worker process');
      // The worker marks the job done in the database before it says so on stderr: the line may come a moment later.
      const said = new RegExp(`${job.id} succeeded`);
      for (let waited = 0; !said.test(worker.stderr()) && waited < 10_000; waited += 50) await sleep(50);
      assert.match(worker.stderr(), said);
    } finally {
      worker.child.kill('SIGINT');
      const stopped = await worker.done;
      assert.equal(stopped.code, 0, stopped.stderr);
      await queries.close();
    }
  });

  test('a server set to run no job refuses to start on a SQLite workspace, whose jobs no worker can reach', async () => {
    await assert.rejects(startTestServer({ directory: folder(), kgrag: { config: { index: { mode: 'fast' } } }, server: { indexJobs: 'workers' } }), (error: Error & { code?: string; hint?: string }) => {
      assert.equal(error.code, 'SERVER_JOBS_NOT_SHARED');
      assert.match(error.hint ?? '', /store\.backend: postgres/);
      return true;
    });
  });
});
