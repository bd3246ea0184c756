import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { PipelineStep } from '../src/pipeline/pipeline-step.js';
import { runPipeline } from '../src/pipeline/run-pipeline.js';
import { createLocalEmbedder } from '../src/providers/embed/local-embedder.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { createTokenizer } from '../src/text/tokenizer.js';
import { configSchema } from '../src/core/config/config-schema.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { nodeScriptArgs } from './helpers/node-script.js';
import { sampleWorkspaceAt } from './helpers/test-server.js';

/*
 * One writer per workspace, and readers that always see a complete index (issue 16, items 3 and 4): a second
 * writer waits (or fails at once) naming the first; queries during a run or after a failed one read the last
 * published index and say why; a lock left by a killed process is taken over; a read-only workspace answers.
 */

const repository = fileURLToPath(new URL('..', import.meta.url));
const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const pausedHelper = fileURLToPath(new URL('./helpers/index-paused.ts', import.meta.url));
const killHelper = fileURLToPath(new URL('./helpers/index-until.ts', import.meta.url));
const cli = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-writers-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A document the base corpus lacks, so a second run has something to publish. */
const extra = join(root, 'extra');
mkdirSync(extra);
writeFileSync(join(extra, 'hollins-bakery.md'), '# Hollins Bakery\n\nHollins Bakery opened on the Quay in 1999 and sells zanderbread to the Ferry Inn.\n');

interface Running {
  child: ChildProcess;
  stderr(): string;
  exit: Promise<number | null>;
}

function start(args: string[]): Running {
  const child = spawn(process.execPath, [...nodeScriptArgs(args[0] as string), ...args.slice(1)], { cwd: repository, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.resume();
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exit };
}

/** Waits until `ready()` holds, or fails with what the child printed if it exits first. */
async function until(ready: () => boolean, running: Running, what: string): Promise<void> {
  let exited = false;
  void running.exit.then(() => (exited = true));
  while (!ready()) {
    if (exited && !ready()) assert.fail(`the child exited before ${what}: ${running.stderr()}`);
    await sleep(20);
  }
}

/** File names, sizes and modification times of a folder. */
function listing(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .map((name) => {
      const stat = statSync(join(folder, name));
      return `${name} ${stat.size} ${stat.mtimeMs}`;
    });
}

function pausedWriter(workspace: string, step: string, marker: string, paths: string[]): Running {
  return start([pausedHelper, workspace, step, 'pause', marker, ...paths]);
}

describe('one writer per workspace; readers see the last complete index', () => {
  let reference: Record<string, unknown>;

  before(async () => {
    // The sample corpus's fast index, built once for the whole test run (a build is deterministic).
    const kgrag = await createKgrag({ workspace: await sampleWorkspaceAt(join(root, 'reference')), env: {} });
    reference = await indexSnapshot(kgrag);
    await kgrag.close();
  });

  test('a second writer waits for the first and names it; --no-wait fails at once; the result equals one build', async () => {
    const workspace = join(root, 'two-writers');
    const marker = join(root, 'two-writers.paused');
    const first = pausedWriter(workspace, 'communities', marker, [corpus]);
    let second: Running | undefined;
    try {
      await until(() => existsSync(marker), first, 'pausing');
      const pid = Number(readFileSync(marker, 'utf8'));

      const impatient = spawnSync(process.execPath, [...nodeScriptArgs(cli), 'index', corpus, '-w', workspace, '--no-wait', '-q'], { cwd: repository, encoding: 'utf8' });
      assert.equal(impatient.status, 1);
      assert.match(impatient.stderr, new RegExp(`being written by another process: pid ${pid} on .*"index-paused pause at communities"`));

      second = start([cli, 'index', corpus, '-w', workspace, '-q']);
      const waiting = second;
      await until(() => waiting.stderr().includes('waiting for the process writing this workspace'), waiting, 'waiting');
      assert.match(waiting.stderr(), new RegExp(`pid ${pid} on .*index-paused`));
    } finally {
      writeFileSync(`${marker}.continue`, '');
    }
    assert.equal(await first.exit, 0);
    assert.equal(await second.exit, 0, second.stderr());

    const kgrag = await createKgrag({ workspace, env: {} });
    assert.deepEqual(await indexSnapshot(kgrag), reference);
    assert.equal((await kgrag.status()).writer, undefined, 'both writers released the lock');
    await kgrag.close();
  });

  test('queries during a re-index all succeed from the published generation and say a run is in progress', async () => {
    const workspace = await sampleWorkspaceAt(join(root, 'reindex'));
    const kgrag = await createKgrag({ workspace, env: {} });
    const published = (await kgrag.status()).generation ?? -1;

    const marker = join(root, 'reindex.paused');
    const writer = pausedWriter(workspace, 'communities', marker, [corpus, extra]);
    try {
      await until(() => existsSync(marker), writer, 'pausing');
      const methods = ['basic', 'basic:bm25', 'local', 'global', 'ppr', 'kgp', 'relations', 'autokg'];
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) => kgrag.query('Who sells zanderbread to the Ferry Inn?', { method: methods[index % methods.length] as string })),
      );
      for (const result of results) {
        assert.equal(result.status, 'fulfilled', result.status === 'rejected' ? String(result.reason) : '');
        assert.equal(result.value.index.generation, published);
        assert.match(result.value.warnings.join('\n'), /an index run is in progress \(pid \d+ .*index-paused pause at communities/);
        assert.ok(!result.value.context.chunks.some((chunk) => chunk.text.includes('zanderbread')), 'the unpublished document is not visible');
      }
    } finally {
      writeFileSync(`${marker}.continue`, '');
    }
    assert.equal(await writer.exit, 0, writer.stderr());

    const after = await kgrag.query('Who sells zanderbread to the Ferry Inn?', { method: 'basic:bm25' });
    assert.equal(after.index.generation, published + 1);
    assert.deepEqual(after.warnings, []);
    assert.ok(after.context.chunks.some((chunk) => chunk.text.includes('zanderbread')));
    await kgrag.close();
  });

  test('after a failed run, queries answer from the previous index and say where it failed; the next run resumes', async () => {
    const workspace = await sampleWorkspaceAt(join(root, 'failed'));
    const kgrag = await createKgrag({ workspace, env: {} });
    const writer = start([pausedHelper, workspace, 'reports', 'fail', join(root, 'failed.marker'), corpus, extra]);
    assert.equal(await writer.exit, 1);
    assert.match(writer.stderr(), /injected failure at reports/);

    const answer = await kgrag.query('Who sells zanderbread to the Ferry Inn?', { method: 'basic:bm25' });
    assert.match(answer.warnings.join('\n'), /the last index run failed at step reports .*injected failure at reports.*run `kgrag index` again/);
    assert.ok(!answer.context.chunks.some((chunk) => chunk.text.includes('zanderbread')));

    const resumed = await kgrag.index([corpus, extra]);
    assert.ok(resumed.skipped.includes('chunk') && resumed.skipped.includes('communities'), `finished steps are not redone: ran ${resumed.ran.join(', ')}`);
    const now = await kgrag.query('Who sells zanderbread to the Ferry Inn?', { method: 'basic:bm25' });
    assert.deepEqual(now.warnings, []);
    assert.ok(now.context.chunks.some((chunk) => chunk.text.includes('zanderbread')));
    await kgrag.close();
  });

  test('a run that fails before any step after load (a mistyped path) leaves no draft: the next run does not say it resumes one', async () => {
    const workspace = join(root, 'mistyped');
    const kgrag = await createKgrag({ workspace, env: {}, config: { pipeline: { methods: ['basic'] } } });
    try {
      await assert.rejects(kgrag.index([join(root, 'no-such-folder')]), (error: Error & { code?: string }) => error.code === 'INDEX_NO_DOCUMENTS');
      assert.deepEqual(readdirSync(workspace).filter((name) => name.includes('draft')), [], 'nothing of the failed run is kept');
      const warnings: string[] = [];
      await kgrag.index([extra], { onEvent: (event) => event.type === 'warning' && warnings.push(event.warning.code) });
      assert.ok(!warnings.includes('resumed-draft'), warnings.join(', '));
    } finally {
      await kgrag.close();
    }
  });

  test('a lock left by a writer killed with kill -9 is taken over without waiting', async () => {
    const workspace = join(root, 'killed');
    const killed = spawnSync(process.execPath, [...nodeScriptArgs(killHelper), workspace, corpus, 'step-progress', 'embed-chunks', '1'], { cwd: repository, encoding: 'utf8' });
    assert.equal(killed.signal, 'SIGKILL');
    const next = spawnSync(process.execPath, [...nodeScriptArgs(cli), 'index', corpus, '-w', workspace, '--no-wait', '-q'], { cwd: repository, encoding: 'utf8' });
    assert.equal(next.status, 0, next.stderr);
    assert.doesNotMatch(next.stderr, /waiting|being written/);
    const kgrag = await createKgrag({ workspace, env: {} });
    assert.deepEqual(await indexSnapshot(kgrag), reference);
    await kgrag.close();
  });

  test('a read-only workspace can be queried, and no message suggests deleting the index', async () => {
    const workspace = await sampleWorkspaceAt(join(root, 'read-only'));
    const kgrag = await createKgrag({ workspace, env: {} });
    await kgrag.close();
    chmodSync(join(workspace, 'kgrag.db'), 0o444);
    chmodSync(workspace, 0o555);
    const before = listing(workspace);
    try {
      // Root ignores file modes, so the query runs as an unprivileged user when the tests run as root.
      const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
      if (process.getuid?.() === 0) {
        chmodSync(root, 0o755);
      }
      const query = spawnSync(process.execPath, [...nodeScriptArgs(cli), 'query', 'Who built the weir bridge?', '-w', workspace, '-m', 'ppr', '--json'], {
        cwd: repository,
        encoding: 'utf8',
        env: { ...process.env, HOME: root },
        ...asUser,
      });
      assert.equal(query.status, 0, query.stderr);
      assert.doesNotMatch(query.stderr, /delete/i);
      const result = JSON.parse(query.stdout) as { citations: unknown[]; index: { generation: number } };
      assert.ok(result.citations.length > 0);
      assert.deepEqual(listing(workspace), before, 'a reader changes nothing in a read-only workspace');
    } finally {
      chmodSync(workspace, 0o755);
    }
  });
});

describe('step fingerprints', () => {
  test('a step whose input changed while it computed is not recorded as done', async () => {
    const store = openSqliteStore(':memory:');
    const config = configSchema.parse({});
    const first: PipelineStep = {
      name: 'load',
      version: 1,
      reads: [],
      settings: () => ({}),
      run: async () => ({ counts: {}, outputVersion: 'v1', write: async () => undefined }),
    };
    const second: PipelineStep = {
      name: 'chunk',
      version: 1,
      reads: ['load'],
      settings: () => ({}),
      async run(context) {
        // Another writer republishes `load` while this step computes from the old version.
        const [run] = await context.store.table('runs').get(['load']);
        if (run) await context.store.table('runs').upsert([{ ...run, outputVersion: 'v2' }]);
        return { counts: {}, outputVersion: 'c1', write: async () => undefined };
      },
    };
    await assert.rejects(
      runPipeline({ steps: [first, second], store, config, tokenizer: await createTokenizer(), embedder: createLocalEmbedder() }),
      (error: Error & { code?: string }) => error.code === 'PIPELINE_CONCURRENT_WRITE',
    );
    const [chunk] = await store.table('runs').get(['chunk']);
    assert.notEqual(chunk?.status, 'done');
    await store.close();
  });
});
