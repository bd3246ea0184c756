/*
 * A crash in the middle of a watched update (issue 38): `kgrag serve --watch` and the process of its update job are
 * killed together with SIGKILL (a lost machine, an OOM kill: no handler runs) after the update's chunk step committed.
 * The restarted server finds the job in its file, runs it again, the run resumes the draft, and the index ends equal
 * to that of an update that was never interrupted.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { JobView } from '../src/server/index-job-queue.js';
import { workspaceSnapshot } from './helpers/index-snapshot.js';
import { nodeScriptArgs } from './helpers/node-script.js';
import { sampleWorkspace } from './helpers/test-server.js';

const cli = new URL('../src/cli/main.ts', import.meta.url).pathname;
const directories: string[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

interface Served {
  child: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `kgrag serve --watch` as a process group of its own, so that it and its job's process can be killed together. */
async function serveWatching(workspace: string, notes: string): Promise<Served> {
  const child = spawn(process.execPath, [...nodeScriptArgs(cli), 'serve', '-w', workspace, '--watch', notes, '--debounce', '200', '--port', '0', '--log-level', 'warn'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(KGRAG|OPENAI)_/.test(name))),
  });
  children.push(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (data: Buffer) => {
      stderr += data.toString();
      const found = /serving .* at (http:\/\/\S+) —/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    void exited.then(({ code }) => reject(new Error(`kgrag serve exited (${code}):\n${stderr}`)));
  });
  return { child, url, exited };
}

async function jobsOf(url: string): Promise<JobView[]> {
  return ((await (await fetch(`${url}/v1/jobs`)).json()) as { jobs: JobView[] }).jobs;
}

/** Polls until `found` returns a value; fails after a minute rather than hang. */
async function until<T>(what: string, found: () => Promise<T | undefined>, everyMs = 50): Promise<T> {
  for (let waited = 0; waited < 60_000; waited += everyMs) {
    const value = await found();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  assert.fail(`waited a minute for ${what}`);
}

const allEnded = async (url: string): Promise<JobView[] | undefined> => {
  const jobs = await jobsOf(url);
  return jobs.length > 0 && jobs.every((job) => job.status !== 'queued' && job.status !== 'running') ? jobs : undefined;
};

it('a watched update killed with SIGKILL resumes when the server starts again, and ends as an uninterrupted one', { timeout: 180_000 }, async () => {
  const workspace = await sampleWorkspace();
  directories.push(workspace);
  const reference = mkdtempSync(join(tmpdir(), 'kgrag-watch-crash-reference-'));
  directories.push(reference);
  cpSync(workspace, reference, { recursive: true });
  const notes = join(mkdtempSync(join(tmpdir(), 'kgrag-watch-crash-notes-')), 'notes');
  directories.push(notes);
  mkdirSync(notes);

  const first = await serveWatching(workspace, notes);
  await until('the update at start', () => allEnded(first.url));
  const before = (await jobsOf(first.url)).length;
  const generation = ((await (await fetch(`${first.url}/v1/stats`)).json()) as { index: { generation: number } }).index.generation;
  writeFileSync(join(notes, 'lantern.md'), '# The Lantern Keeper of Kestermouth\n\nOdile Varnum, keeper of the Kestermouth harbour light, lit it each dusk from 1899 to 1931 and logged every barge on the River Kester.\n');
  // The update has committed its chunk step in the draft, and has more to do: the server and the job die now.
  const killed = await until('the update to have chunked', async () => {
    const jobs = await jobsOf(first.url);
    const job = jobs[0];
    if (job === undefined || jobs.length === before) return undefined;
    assert.ok(job.status === 'queued' || job.status === 'running', `the update ended before it could be killed: ${job.status}`);
    return job.steps.some((step) => step.step === 'chunk' && step.status === 'done') ? job : undefined;
  }, 10);
  process.kill(-first.child.pid!, 'SIGKILL');
  assert.equal((await first.exited).signal, 'SIGKILL');
  const interrupted = await createKgrag({ workspace, env: {} });
  try {
    const status = await interrupted.status();
    assert.equal(status.generation, generation, 'the update was killed before it published');
  } finally {
    await interrupted.close();
  }

  const second = await serveWatching(workspace, notes);
  const jobs = await until('the resumed update', () => allEnded(second.url));
  const resumed = jobs.find((job) => job.id === killed.id);
  assert.equal(resumed?.status, 'succeeded', JSON.stringify(resumed?.error));
  assert.equal(resumed?.resumed, 1, 'the restarted server ran the job it found in its file');
  assert.equal(resumed?.steps.find((step) => step.step === 'chunk')?.status, 'skipped', 'the rerun resumed the draft: the chunks it had committed were not made again');
  assert.ok(jobs.every((job) => job.status === 'succeeded'), jobs.map((job) => `${job.id} ${job.status} ${job.error?.message ?? ''}`).join('\n'));
  second.child.kill('SIGTERM');
  assert.equal((await second.exited).code, 0);

  const uninterrupted = await createKgrag({ workspace: reference, env: {} });
  try {
    await uninterrupted.index([notes], { prune: true });
  } finally {
    await uninterrupted.close();
  }
  assert.deepEqual(await workspaceSnapshot(workspace), await workspaceSnapshot(reference));
});
