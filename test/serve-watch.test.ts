/*
 * `kgrag serve --watch` (issue 38): the server follows a folder and, after each quiet period, runs one update of the
 * index as an index job (listed like an upload's), published atomically while queries keep being answered. Real
 * files, Node's recursive fs.watch, real HTTP over loopback, jobs in processes of their own as under `kgrag serve`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JobView } from '../src/server/index-job-queue.js';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { nodeScriptArgs } from './helpers/node-script.js';
import { temporaryFolders, writeNote } from './helpers/watched-notes.js';
import { startTestServer } from './helpers/test-server.js';

const cli = new URL('../src/cli/main.ts', import.meta.url).pathname;
const folders = temporaryFolders();
after(() => folders.removeAll());
const temporary = (prefix: string): string => folders.make(prefix);

/** A workspace for the plain-RAG method only (quick updates), whose notes lie in the workspace folder itself. */
function basicWorkspace(): string {
  const workspace = temporary('kgrag-serve-watch-');
  writeFileSync(join(workspace, 'kgrag.yaml'), 'pipeline:\n  methods: [basic]\n');
  writeNote(workspace, 'weir.md', 'Weir', 'The weir at Kestermouth was rebuilt in 1911 after the flood.');
  writeNote(workspace, 'ferry.md', 'Ferry', 'The ferry crossed the Kester until the bridge opened.');
  return workspace;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `${url}: ${await response.clone().text()}`);
  return (await response.json()) as T;
}

const ended = (job: JobView): boolean => job.status !== 'queued' && job.status !== 'running';

/** Waits until the server lists `count` jobs, all ended; fails after a minute rather than hang on a missed event. */
async function jobsEnded(server: ServedWorkspaces, count: number): Promise<JobView[]> {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const { jobs } = await getJson<{ jobs: JobView[] }>(`${server.url}/v1/jobs`);
    if (jobs.length > count) assert.fail(`expected ${count} jobs, the server lists ${jobs.length}: ${jobs.map((job) => `${job.id} ${job.status}`).join(', ')}`);
    if (jobs.length === count && jobs.every(ended)) return jobs;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`no ${count} ended jobs within a minute`);
}

async function sources(server: ServedWorkspaces): Promise<string[]> {
  return (await getJson<{ documents: Array<{ source: string }> }>(`${server.url}/v1/documents`)).documents.map((document) => document.source).sort();
}

async function passagesFor(server: ServedWorkspaces, question: string): Promise<string[]> {
  const response = await fetch(`${server.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, method: 'basic', variant: 'bm25', contextOnly: true }) });
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { context: { chunks: Array<{ text: string }> } }).context.chunks.map((chunk) => chunk.text);
}

/** The processes this one started that are alive (Linux: read from /proc), by pid: the jobs' processes. */
function childProcesses(): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (command) state ppid …: the command may hold spaces and parentheses, so the fields after its last ')' count.
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(parent) === process.pid && state !== 'Z') children.push(Number(entry));
  }
  return children.sort((a, b) => a - b);
}

describe('kgrag serve --watch', () => {
  it('picks up an add, an edit, a rename and a delete as one index job each, and its own index files are no change', { timeout: 120_000 }, async () => {
    const workspace = basicWorkspace();
    // The watched folder is the workspace: the database, its draft and the job files change there on every update.
    const server = await startTestServer({ directory: workspace, watch: { paths: [workspace], debounceMs: 200 } });
    try {
      const [initial] = await jobsEnded(server, 1);
      assert.equal(initial?.status, 'succeeded', JSON.stringify(initial?.error));
      assert.deepEqual(initial?.input.watched, [workspace], 'the job says it is an update of the watched folder');
      assert.deepEqual(await sources(server), [join(workspace, 'ferry.md'), join(workspace, 'weir.md')]);

      writeNote(workspace, 'bridge.md', 'Bridge', 'The Kester bridge opened in 1932.');
      await jobsEnded(server, 2);
      assert.ok((await passagesFor(server, 'When did the Kester bridge open?')).some((text) => text.includes('1932')), 'an added file is answered from');

      writeNote(workspace, 'bridge.md', 'Bridge', 'The Kester bridge opened in 1933, a year late.');
      await jobsEnded(server, 3);
      const edited = await passagesFor(server, 'When did the Kester bridge open?');
      assert.ok(edited.some((text) => text.includes('1933')), 'an edit is answered from');
      assert.ok(!edited.some((text) => text.includes('1932')), 'the text before the edit is gone');

      renameSync(join(workspace, 'ferry.md'), join(workspace, 'crossing.md'));
      await jobsEnded(server, 4);
      assert.deepEqual(await sources(server), [join(workspace, 'bridge.md'), join(workspace, 'crossing.md'), join(workspace, 'weir.md')]);

      unlinkSync(join(workspace, 'weir.md'));
      const jobs = await jobsEnded(server, 5);
      assert.deepEqual(await sources(server), [join(workspace, 'bridge.md'), join(workspace, 'crossing.md')]);
      assert.ok(!(await passagesFor(server, 'weir Kestermouth 1911')).some((text) => text.includes('1911')), 'a deleted file is no longer answered from');
      assert.ok(jobs.every((job) => job.status === 'succeeded'), jobs.map((job) => `${job.id} ${job.status} ${job.error?.message ?? ''}`).join('\n'));

      // Quiet for several debounce periods: the updates' own writes to the database and job files queued nothing.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await jobsEnded(server, 5);
    } finally {
      await server.close();
    }
  });

  it('runs its updates one after another in one process, kept waiting between them', { timeout: 120_000, skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const workspace = basicWorkspace();
    const others = new Set(childProcesses());
    const jobProcesses = (): number[] => childProcesses().filter((pid) => !others.has(pid));
    const server = await startTestServer({ directory: workspace, watch: { paths: [workspace], debounceMs: 200 } });
    try {
      await jobsEnded(server, 1);
      const kept = jobProcesses();
      assert.equal(kept.length, 1, `one process waits for the next update: ${kept.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8')).join('\n')}`);
      for (const [update, year] of [1932, 1933].entries()) {
        writeNote(workspace, 'bridge.md', 'Bridge', `The Kester bridge opened in ${year}.`);
        const jobs = await jobsEnded(server, update + 2);
        assert.equal(jobs[0]?.status, 'succeeded', JSON.stringify(jobs[0]?.error));
        assert.ok((await passagesFor(server, 'When did the Kester bridge open?')).some((text) => text.includes(String(year))));
        assert.deepEqual(jobProcesses(), kept, `update ${update + 1} ran in the process the one before left waiting, which waits again`);
      }
    } finally {
      await server.close();
    }
  });

  it('turns a burst of over a thousand file events into one update', { timeout: 120_000 }, async () => {
    const workspace = basicWorkspace();
    const docs = join(workspace, 'docs');
    const server = await startTestServer({ directory: workspace, watch: { paths: [workspace], debounceMs: 500 } });
    try {
      await jobsEnded(server, 1);
      // A checkout-like burst: a thousand files appear, are written again, and all but ten go away.
      mkdirSync(docs);
      for (let file = 0; file < 1000; file++) writeNote(docs, `note-${file}.md`, `Note ${file}`, `Harbour note ${file} of the burst.`);
      for (let file = 10; file < 1000; file++) unlinkSync(join(docs, `note-${file}.md`));
      const jobs = await jobsEnded(server, 2);
      assert.equal(jobs[0]?.status, 'succeeded', JSON.stringify(jobs[0]?.error));
      const indexed = (await sources(server)).filter((source) => source.startsWith(docs));
      assert.equal(indexed.length, 10, 'the update read the folder as the burst left it');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await jobsEnded(server, 2);
    } finally {
      await server.close();
    }
  });

  it('refuses --watch with --workspaces, a missing path, and --debounce without --watch, saying what to do', async () => {
    const folder = temporary('kgrag-serve-watch-cli-');
    const cases: Array<{ args: string[]; message: RegExp }> = [
      { args: ['serve', '--workspaces', folder, '--watch', folder, '--port', '0'], message: /--watch follows files into one workspace.*kgrag index <folder> --watch/s },
      { args: ['serve', '-w', folder, '--watch', join(folder, 'nowhere'), '--port', '0'], message: /cannot watch .*nowhere: it does not exist/ },
      { args: ['serve', '-w', folder, '--debounce', '100', '--port', '0'], message: /--debounce sets the quiet time of --watch/ },
      { args: ['serve', '-w', folder, '--watch', folder, '--debounce', 'soon', '--port', '0'], message: /--debounce soon is not a number/ },
    ];
    for (const { args, message } of cases) {
      const child = spawn(process.execPath, [...nodeScriptArgs(cli), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(KGRAG|OPENAI)_/.test(name))) });
      let stderr = '';
      child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.notEqual(code, 0, args.join(' '));
      assert.match(stderr, message);
    }
  });
});
