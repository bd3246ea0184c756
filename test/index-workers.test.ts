// Issue 22: several kgrag processes on one Postgres database. Index workers take the per-chunk and per-community LLM
// work of a standard-mode run through a pg-boss queue and build the index one process builds, paying no request twice;
// a worker killed with SIGKILL costs only time; two servers answer queries while a third process indexes.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { KgragConfigInput } from '../src/core/config/config-schema.js';
import { startMockOpenAiServer, type MockOpenAiServer } from '../src/testing/index.js';
import { indexSnapshot } from './helpers/index-snapshot.js';
import { startEmbeddedPostgres, type TestPostgresServer } from './helpers/postgres-servers.js';
import { sampleLlmReply } from './helpers/sample-llm-responder.js';
import { standardTestLlmConfig } from './helpers/standard-test-config.js';
import { nodeScriptArgs } from './helpers/node-script.js';

const corpus = fileURLToPath(new URL('../examples/sample-corpus/', import.meta.url));
const repository = fileURLToPath(new URL('..', import.meta.url));
/** A part of the sample corpus whose entities meet across documents: communities above the leaves, reports that read sub-reports. */
const documents = ['01-kestermouth.md', '02-river-kester.md', '03-kester-weir-bridge.md', '06-marle-boatworks.md', '18-sedley-mill.md', '20-the-ferry-inn.md'];

describe('index workers and servers on one Postgres database', { timeout: 900_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-workers-'));
  const inputs = join(root, 'documents');
  let postgres: TestPostgresServer;
  let llm: MockOpenAiServer;
  let url: string;
  let reference: Record<string, unknown>;
  /** What the one-process build paid, per request: a request a build sends twice (two identical prompts) counts 2. */
  let referencePaid: Map<string, number>;
  const opened: Kgrag[] = [];

  const open = async (name: string, config: KgragConfigInput = {}, mode: 'standard' | 'fast' = 'standard'): Promise<Kgrag> => {
    const folder = mkdtempSync(join(root, `${name}-`));
    const kgrag = await createKgrag({
      workspace: folder,
      env: {},
      config: {
        ...config,
        index: { mode },
        llm: { ...standardTestLlmConfig(llm.url), timeoutMs: 60_000 },
        store: { backend: 'postgres', url, workspace: name },
      } as KgragConfigInput,
    });
    opened.push(kgrag);
    return kgrag;
  };

  /** Paid replies per request hash since `before`. */
  const paidSince = (before: ReadonlyMap<string, number>): Map<string, number> => {
    const paid = new Map<string, number>();
    for (const [hash, count] of llm.stats.successByRequestHash) {
      const added = count - (before.get(hash) ?? 0);
      if (added > 0) paid.set(hash, added);
    }
    return paid;
  };

  before(async () => {
    postgres = await startEmbeddedPostgres();
    url = await postgres.freshDatabase();
    // A little latency, so that workers' calls overlap and a worker can be killed while it holds a shard.
    llm = await startMockOpenAiServer({ reply: (request) => sampleLlmReply(request), latencyMs: 15 });
    for (const name of documents) cpSync(join(corpus, name), join(inputs, name));
    const single = await open('one-process');
    const start = new Map(llm.stats.successByRequestHash);
    await single.index([inputs]);
    reference = await indexSnapshot(single);
    referencePaid = paidSince(start);
  });

  after(async () => {
    for (const kgrag of opened.splice(0)) await kgrag.close().catch(() => undefined);
    await llm?.close();
    await postgres?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('3 worker processes build the index one process builds, and no request is paid twice', async () => {
    const distributed = await open('three-workers', { workers: { local: 3, shardsPerRound: 6 } });
    const start = new Map(llm.stats.successByRequestHash);
    await distributed.index([inputs]);
    assert.deepEqual(await indexSnapshot(distributed), reference);
    const paid = paidSince(start);
    assert.deepEqual(paid, referencePaid, 'the requests paid, and how often, are those of the one-process build');
    // The workers made the prefetched calls: with local workers the coordinator takes no shard itself.
    const total = [...paid.values()].reduce((sum, count) => sum + count, 0);
    const byCoordinator = distributed.usage().calls;
    assert.ok(byCoordinator < total, `the coordinator paid ${byCoordinator} of ${total} requests itself`);
  });

  it('a worker killed with SIGKILL mid-run: its shard is retried after its lease and the index equals the one-process index', async () => {
    const killed = await open('killed-worker', { workers: { local: 2, shardsPerRound: 8, leaseSeconds: 3 } });
    const start = llm.stats.completions;
    const run = killed.index([inputs]);
    let victim: number | undefined;
    while (victim === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (llm.stats.completions - start < 5) continue;
      victim = workerPids()[0];
    }
    process.kill(victim, 'SIGKILL');
    await run;
    assert.deepEqual(await indexSnapshot(killed), reference);
  });

  it('two servers on one database answer queries while a third process indexes, and both see the new index when it is published', async () => {
    const name = 'served';
    // What is tested is reading while another process writes: a fast-mode index is written without the LLM, quickly.
    const writer = await open(name, {}, 'fast');
    await writer.index([join(inputs, documents[0] as string)]);
    const servers = await Promise.all([startServer(name), startServer(name)]);
    try {
      const before = await Promise.all(servers.map((server) => stats(server.url)));
      assert.ok(before.every((counts) => counts.documents === 1));
      const indexing = writer.index([inputs]);
      let answered = 0;
      let done = false;
      void indexing.finally(() => (done = true));
      while (!done) {
        for (const server of servers) {
          const response = await fetch(`${server.url}/v1/query`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ question: 'Where is Kestermouth?', method: 'basic:bm25', contextOnly: true }),
          });
          assert.equal(response.status, 200, await response.clone().text());
          answered++;
        }
      }
      await indexing;
      assert.ok(answered >= 2, 'queries were answered while the index ran');
      const afterwards = await Promise.all(servers.map((server) => stats(server.url)));
      assert.ok(afterwards.every((counts) => counts.documents === documents.length), JSON.stringify(afterwards));
    } finally {
      for (const server of servers) server.child.kill('SIGTERM');
    }
  });

  /** Pids of the local index workers this process started. */
  function workerPids(): number[] {
    const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n');
    return lines.filter((line) => line.includes('worker-process')).map((line) => Number.parseInt(line.trim(), 10));
  }

  async function startServer(name: string): Promise<{ child: ChildProcess; url: string }> {
    const folder = mkdtempSync(join(root, 'server-'));
    const child = spawn(process.execPath, [...nodeScriptArgs('src/cli/main.ts'), '-w', folder, 'serve', '--port', '0', '--log-level', 'warn'], {
      cwd: repository,
      env: { PATH: process.env.PATH ?? '', KGRAG_DATABASE_URL: url, KGRAG_STORE_WORKSPACE: name },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const served = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /serving .* at (http:\/\/\S+) —/.exec(stderr);
        if (found) resolve(found[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`kgrag serve exited with ${code}: ${stderr}`)));
    });
    return { child, url: served };
  }

  async function stats(server: string): Promise<{ documents: number; generation: number }> {
    const response = await fetch(`${server}/v1/stats`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { counts: { documents: number }; index: { generation: number } };
    return { documents: body.counts.documents, generation: body.index.generation };
  }
});
