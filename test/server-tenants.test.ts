// Tenants under `kgrag serve --workspaces`: an API key names the workspaces it may use and a role (read, write,
// admin). A key for workspace A gets 403 on B whatever the route (queries, documents, uploads, deletes, MCP) and lists
// only A; a read key cannot add documents; a plain key (today's configuration) keeps every right. `kgrag keys` makes
// keys and the hashes that admit them.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { createKgrag } from '../src/api/create-kgrag.js';
import { apiKeyHash } from '../src/server/api-keys.js';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { nodeScriptArgs, repositoryRoot } from './helpers/node-script.js';
import { startEmbeddedPostgres } from './helpers/postgres-servers.js';
import { readEvents, startTestServer } from './helpers/test-server.js';

const admin = 'admin-key-0123456789abcdef';
const writerOfA = 'writer-of-a-0123456789abcdef';
const readerOfA = 'reader-of-a-0123456789abcdef';
const config = { index: { mode: 'fast' as const }, pipeline: { methods: ['basic'] } };

describe('API keys with workspaces and roles', () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-tenants-'));
  let server: ServedWorkspaces;

  before(async () => {
    for (const [name, text] of [['a', 'The ferry Cormorant crosses to Skerrow at noon.'], ['b', 'Tenant B keeps the Halvard accounts: 4,471 crowns.']] as const) {
      mkdirSync(join(root, name));
      const kgrag = await createKgrag({ workspace: join(root, name), env: {}, config });
      await kgrag.index([{ title: `Notes of ${name}`, text, source: `${name}.md` }]);
      await kgrag.close();
    }
    server = await startTestServer({
      directory: root,
      layout: 'folder',
      server: {
        apiKeys: [
          admin,
          { key: writerOfA, name: 'writer-a', workspaces: ['a'], role: 'write' },
          { keyHash: apiKeyHash(readerOfA), name: 'reader-a', workspaces: ['a'], role: 'read' },
        ],
      },
      kgrag: { config },
    });
  });
  after(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const call = async (key: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: { code?: string; workspaces?: Array<{ name: string }> } }> => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json().catch(() => ({}))) as { code?: string } };
  };
  const question = { question: 'Who keeps the accounts?', method: 'basic:bm25' };

  test('a key for A gets 403 on B on every route, and lists only A', async () => {
    assert.deepEqual((await call(writerOfA, 'GET', '/v1/workspaces')).json.workspaces, [{ name: 'a' }]);
    assert.equal((await call(writerOfA, 'POST', '/v1/workspaces/a/query', question)).status, 200);
    const refused = [
      await call(writerOfA, 'POST', '/v1/workspaces/b/query', question),
      await call(writerOfA, 'GET', '/v1/workspaces/b/documents'),
      await call(writerOfA, 'GET', '/v1/workspaces/b/stats'),
      await call(writerOfA, 'POST', '/v1/workspaces/b/documents', { documents: [{ title: 'Forged', text: 'B owes nothing.' }] }),
      await call(writerOfA, 'DELETE', '/v1/workspaces/b/documents/0123456789ab'),
      await call(writerOfA, 'POST', '/v1/workspaces/b/chat/completions', { model: 'kgrag-basic', messages: [{ role: 'user', content: 'accounts?' }] }),
      // A workspace that does not exist answers as one that is not the key's: nothing tells them apart.
      await call(writerOfA, 'GET', '/v1/workspaces/zz/documents'),
    ];
    for (const response of refused) assert.deepEqual([response.status, response.json.code], [403, 'AUTH_WORKSPACE_FORBIDDEN']);
    const mcp = await fetch(`${server.url}/v1/workspaces/b/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writerOfA}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    assert.equal(mcp.status, 403);
    // Nothing of B reached the key: B still has its one document.
    assert.equal(((await call(admin, 'GET', '/v1/workspaces/b/documents')).json as { documents?: unknown[] }).documents?.length, 1);
  });

  test('a read key asks but cannot add documents, over HTTP or MCP; a write key cannot create workspaces; a plain key may all', async () => {
    assert.equal((await call(readerOfA, 'POST', '/v1/workspaces/a/query', question)).status, 200);
    const added = await call(readerOfA, 'POST', '/v1/workspaces/a/documents', { documents: [{ title: 'Read-only', text: 'Should not be added.' }] });
    assert.deepEqual([added.status, added.json.code], [403, 'AUTH_ROLE_FORBIDDEN']);
    const client = new Client({ name: 'tenants-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/v1/workspaces/a/mcp`), { requestInit: { headers: { authorization: `Bearer ${readerOfA}` } } }));
    try {
      const result = (await client.callTool({ name: 'add_documents', arguments: { documents: [{ title: 'Via MCP', text: 'Should not be added.' }] } })) as { isError?: boolean; content: Array<{ text: string }> };
      assert.equal(result.isError, true);
      assert.match(result.content[0]?.text ?? '', /role read, and add_documents needs write/);
    } finally {
      await client.close();
    }
    assert.deepEqual([(await call(writerOfA, 'POST', '/v1/workspaces', { name: 'a2' })).status], [403]);
    assert.equal((await call(admin, 'POST', '/v1/workspaces', { name: 'c' })).status, 201);
    assert.equal((await call(admin, 'POST', '/v1/workspaces/b/query', question)).status, 200);
  });
});

test('kgrag keys create prints a key once and the entry that admits it; kgrag keys hash gives the same hash', () => {
  const cli = (args: string[], input?: string) =>
    spawnSync(process.execPath, [...nodeScriptArgs('src/cli/main.ts'), 'keys', ...args], { cwd: repositoryRoot, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', ...(input === undefined ? {} : { input }) });
  const created = cli(['create', '--workspaces', 'a,b', '--role', 'write', '--name', 'ci']);
  assert.equal(created.status, 0, created.stderr);
  const key = created.stdout.trim();
  assert.match(key, /^[A-Za-z0-9_-]{43}$/, 'one key on stdout, nothing else');
  assert.match(created.stderr, /shown once/);
  const hash = /keyHash: (sha256:[0-9a-f]{64})/.exec(created.stderr)?.[1];
  assert.equal(hash, apiKeyHash(key));
  assert.match(created.stderr, /name: ci/);
  assert.match(created.stderr, /workspaces:\n\s+- a\n\s+- b/);
  assert.match(created.stderr, /role: write/);
  const hashed = cli(['hash'], `${key}\n`);
  assert.equal(hashed.status, 0, hashed.stderr);
  assert.equal(hashed.stdout.trim(), hash);
});

/** `kgrag serve --workspaces <folder>` in a child process, and its address once it serves. */
async function serveFolder(folder: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [...nodeScriptArgs('src/cli/main.ts'), 'serve', '--workspaces', folder, '--port', '0', '--log-level', 'warn'], { cwd: repositoryRoot, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (data: Buffer) => {
      stderr += data.toString();
      const found = /serving .* at (http:\/\/[^\s]+) —/.exec(stderr);
      if (found) resolve(found[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`kgrag serve exited with ${code}: ${stderr}`)));
  });
  return { child, base };
}

test("the --workspaces folder's kgrag.yaml is every tenant's base: its store: puts a new tenant's index in Postgres, not in a SQLite file", { timeout: 120_000 }, async () => {
  const postgres = await startEmbeddedPostgres();
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-tenant-base-'));
  try {
    const url = await postgres.freshDatabase();
    writeFileSync(join(folder, 'kgrag.yaml'), `store:\n  backend: postgres\n  url: ${url}\nindex:\n  mode: fast\npipeline:\n  methods: [basic]\n`);
    const { child, base } = await serveFolder(folder);
    try {
      assert.equal((await fetch(`${base}/v1/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'tenant1' }) })).status, 201);
      const added = await fetch(`${base}/v1/workspaces/tenant1/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documents: [{ title: 'Weir', text: 'The weir at Halvard was rebuilt in 1952 by the river board.' }] }) });
      const { job } = (await added.json()) as { job: { id: string } };
      const events = await readEvents(await fetch(`${base}/v1/workspaces/tenant1/jobs/${job.id}/events`));
      assert.equal(JSON.parse(events.at(-1)?.data ?? '{}').status, 'succeeded', events.at(-1)?.data);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    // The database's shutdown at the end must not surface as an uncaught error of a connection this test left idle.
    pool.on('error', () => undefined);
    try {
      const rows = await pool.query<{ title: string }>("SELECT title FROM kgrag.documents WHERE workspace = 'tenant1' AND retired IS NULL");
      assert.deepEqual(rows.rows.map((row) => row.title), ['Weir'], 'the tenant\'s index is in the database');
    } finally {
      await pool.end();
    }
    assert.ok(!readdirSync(join(folder, 'tenant1')).some((name) => name.endsWith('.db')), 'and no SQLite file beside it');
    assert.ok(existsSync(join(folder, 'tenant1')));
  } finally {
    await postgres.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test('16 tenants on one Postgres database stay within the server\'s pool: store.poolSize caps its connections, not each tenant\'s', { timeout: 120_000 }, async () => {
  const postgres = await startEmbeddedPostgres();
  const folder = mkdtempSync(join(tmpdir(), 'kgrag-tenant-pool-'));
  const url = await postgres.freshDatabase();
  const database = new URL(url).pathname.slice(1);
  const watcher = new pg.Pool({ connectionString: url, max: 1 });
  watcher.on('error', () => undefined);
  try {
    writeFileSync(join(folder, 'kgrag.yaml'), `store:\n  backend: postgres\n  url: ${url}\n  poolSize: 4\nindex:\n  mode: fast\n`);
    const { child, base } = await serveFolder(folder);
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [row] = (await watcher.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database])).rows;
        most = Math.max(most, row?.n ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      const names = Array.from({ length: 16 }, (_, index) => `tenant${index}`);
      for (const name of names) assert.equal((await fetch(`${base}/v1/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) })).status, 201, name);
      const answers = await Promise.all(names.flatMap((name) => [1, 2, 3].map(async () => (await fetch(`${base}/v1/workspaces/${name}/stats`)).status)));
      assert.deepEqual([...new Set(answers)], [200]);
    } finally {
      sampling = false;
      await sampler;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    assert.ok(most >= 1, 'the server used the database');
    assert.ok(most <= 4, `the server held ${most} connections to the database at once; store.poolSize is 4`);
  } finally {
    await watcher.end();
    await postgres.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
