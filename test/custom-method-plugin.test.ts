// The acceptance test of method plugins (issue 37): examples/custom-method/ — a retrieval method written outside src/,
// in plain JavaScript importing only `kgrag`, with its own index step and configuration — registered through
// kgrag.yaml `plugins:`, indexes the sample corpus and answers through the command line, HTTP and MCP, and `kgrag eval`
// lists it, while no file of src/ names it.
//
// The example imports `kgrag` as a user's code would: its workspace gets node_modules/kgrag, a link to this checkout,
// whose package.json points at dist/ (built by `npm ci`; in a checkout, `npm run build`).
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createKgrag } from '../src/api/create-kgrag.js';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { checkoutRoot } from './helpers/packed-install.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';
import { sampleCorpus, startTestServer } from './helpers/test-server.js';

const name = 'entity-bm25';
const question = 'Who built boats at the Marle boatworks?';
const example = fileURLToPath(new URL('../examples/custom-method/', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'kgrag-custom-method-'));

/** A copy of the example as a workspace of its own, resolving `kgrag` to this checkout. */
function exampleWorkspace(folderName: string): string {
  const workspace = join(folder, folderName);
  cpSync(example, workspace, { recursive: true });
  mkdirSync(join(workspace, 'node_modules'));
  symlinkSync(checkoutRoot, join(workspace, 'node_modules', 'kgrag'), 'dir');
  return workspace;
}

const workspace = exampleWorkspace('workspace');

before(async () => {
  const entry = join(checkoutRoot, 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error('dist/ is missing: `npm ci` builds it (prepare); in a checkout run `npm run build`');
  const built = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  if (built['z'] === undefined) throw new Error('dist/ is older than the sources (it exports no `z`): run `npm run build`');
  const indexed = await runCliCaptured(['index', sampleCorpus, '-w', workspace, '--quiet'], { cwd: folder });
  assert.equal(indexed.code, 0, indexed.stderr);
});

after(() => rmSync(folder, { recursive: true, force: true }));

test('no file of src/ names the method', () => {
  const named: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (readFileSync(path, 'utf8').includes(name)) named.push(path);
    }
  };
  walk(join(checkoutRoot, 'src'));
  assert.deepEqual(named, []);
});

test('its own index step ran and stored what its queries read back', async () => {
  const kgrag = await createKgrag({ workspace, env: {} });
  try {
    const weights = await kgrag.store.getMeta<Record<string, number>>(`${name}:weights`);
    assert.ok(weights !== undefined && Object.keys(weights).length > 50, 'one weight per entity');
    assert.ok(Object.values(weights).every((weight) => weight > 0));
    const runs = await kgrag.store.table('runs').get([`${name}-weights`]);
    assert.equal(runs[0]?.status, 'done');
  } finally {
    await kgrag.close();
  }
});

test('the command line queries it, with its configuration and parameters', async () => {
  const run = await runCliCaptured(['query', '-m', name, '--json', '--context-only', '-w', workspace, question], { cwd: folder });
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as { method: string; context: { chunks: Array<{ documentTitle: string }> }; trace: { params: Record<string, unknown> } };
  assert.equal(result.method, name);
  assert.deepEqual(result.trace.params, { k: 10, entities: 30, idf: true }, 'kgrag.yaml sets entities; the schema fills in the rest');
  assert.ok(result.context.chunks.length > 0);
  assert.ok(result.context.chunks.some((chunk) => /Marle/.test(chunk.documentTitle)), result.context.chunks.map((chunk) => chunk.documentTitle).join(', '));
  const fewer = await runCliCaptured(['query', '-m', name, '-p', 'k=2', '-p', 'idf=false', '--json', '--context-only', '-w', workspace, question], { cwd: folder });
  assert.equal(fewer.code, 0, fewer.stderr);
  assert.equal((JSON.parse(fewer.stdout) as { context: { chunks: unknown[] } }).context.chunks.length, 2);
  const wrong = await runCliCaptured(['query', '-m', name, '-p', 'k=0', '--context-only', '-w', workspace, question], { cwd: folder });
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr, /invalid parameters for method "entity-bm25": methods\.entity-bm25\.k: Too small/);
});

describe('kgrag serve', () => {
  let server: ServedWorkspaces;
  before(async () => {
    server = await startTestServer({ directory: workspace });
  });
  after(async () => server.close());

  test('lists it as a method and as an OpenAI model, and answers with it', async () => {
    const methods = (await (await fetch(`${server.url}/v1/methods`)).json()) as { methods: Array<{ name: string; built: boolean; parameters: { properties: Record<string, unknown> } }> };
    const listed = methods.methods.find((method) => method.name === name);
    assert.ok(listed, 'GET /v1/methods lists it');
    assert.equal(listed.built, true);
    assert.deepEqual(Object.keys(listed.parameters.properties).sort(), ['entities', 'idf', 'k']);
    const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    assert.ok(models.data.some((model) => model.id === `kgrag-${name}`));
    const response = await fetch(`${server.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, method: name, topK: 3, contextOnly: true }) });
    assert.equal(response.status, 200);
    const result = (await response.json()) as { method: string; context: { chunks: unknown[] } };
    assert.equal(result.method, name);
    assert.equal(result.context.chunks.length, 3);
  });

  test('serves it through the MCP query tool', async () => {
    const client = new Client({ name: 'kgrag-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const tools = await client.listTools();
      assert.match(tools.tools.find((tool) => tool.name === 'query')?.description ?? '', new RegExp(name));
      const result = await client.callTool({ name: 'query', arguments: { question, method: name, contextOnly: true } });
      const text = (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('\n');
      assert.notEqual(result.isError, true, text);
      assert.match(text, new RegExp(`method ${name}`));
    } finally {
      await client.close();
    }
  });
});

test('kgrag eval lists it beside a built-in', async () => {
  const evalWorkspace = exampleWorkspace('eval-workspace');
  const out = join(folder, 'eval', 'report.json');
  const run = await runCliCaptured(['eval', '--dataset', 'sample', '--methods', `basic,${name}`, '--no-answer', '--limit', '3', '--json', '-o', out, '-w', evalWorkspace, '--quiet'], { cwd: folder });
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout) as { methods: Record<string, { recall?: Record<string, number> }> };
  assert.deepEqual(Object.keys(report.methods), ['basic', name]);
});
