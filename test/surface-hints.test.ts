// Issue 41: an error a person meets over HTTP or MCP says the fix of that surface, not a command-line flag.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { sampleWorkspace, startTestServer } from './helpers/test-server.js';

let scratch: string;
let empty: ServedWorkspaces;
let sample: ServedWorkspaces;
before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kgrag-surface-hints-'));
  [empty, sample] = await Promise.all([startTestServer({ directory: scratch }), sampleWorkspace().then((directory) => startTestServer({ directory }))]);
});
after(async () => {
  await Promise.all([empty?.close(), sample?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

const cliFlag = /`kgrag |--context-only|--workspace|--methods|--method\b|-p name/;

test('HTTP errors give the HTTP fix', async () => {
  const graph = (await (await fetch(`${empty.url}/v1/graph`)).json()) as { detail: string };
  assert.match(graph.detail, /POST \/v1\/documents/);
  assert.doesNotMatch(graph.detail, cliFlag);
  // Where the server keeps the workspace is not the client's business.
  assert.match(graph.detail, /no index in this workspace yet/);
  assert.ok(!graph.detail.includes(scratch), graph.detail);
  const query = await fetch(`${empty.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'x' }) });
  const problem = (await query.json()) as { detail: string };
  assert.equal(query.status, 409);
  assert.doesNotMatch(problem.detail, cliFlag);
  assert.ok(!problem.detail.includes(scratch), problem.detail);
  const contextOnly = await fetch(`${sample.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'x', method: 'global:dynamic', contextOnly: true }) });
  const refused = (await contextOnly.json()) as { detail: string; code: string };
  if (refused.code === 'QUERY_CONTEXT_ONLY_UNSUPPORTED') {
    assert.match(refused.detail, /contextOnly/);
    assert.doesNotMatch(refused.detail, cliFlag);
  }
});

test('a method that needs an LLM says so before it is asked, and its error over HTTP names no flag', async () => {
  const { methods } = (await (await fetch(`${sample.url}/v1/methods`)).json()) as { methods: Array<{ name: string; needsLlm: boolean }> };
  assert.deepEqual(methods.filter((method) => method.needsLlm).map((method) => method.name).sort(), ['drift', 'tot']);
  const response = await fetch(`${sample.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Who built the bridge?', method: 'drift' }) });
  const problem = (await response.json()) as { detail: string; code: string };
  assert.equal(problem.code, 'QUERY_NEEDS_LLM');
  assert.match(problem.detail, /KGRAG_LLM_BASE_URL/);
  assert.doesNotMatch(problem.detail, cliFlag);
});

test("kgp asked to traverse links its index was built without says how to build them, or which to ask for, over HTTP", async () => {
  const response = await fetch(`${sample.url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ question: 'Who built the bridge?', method: 'kgp', params: { graph: ['entity', 'knn'] } }),
  });
  const problem = (await response.json()) as { detail: string; code: string };
  assert.equal(problem.code, 'QUERY_GRAPH_NOT_BUILT');
  assert.match(problem.detail, /methods\.kgp\.indexGraphs/);
  assert.match(problem.detail, /"graph"/);
  assert.match(problem.detail, /it has entity, structural/, 'the kinds to ask for instead');
  assert.doesNotMatch(problem.detail, /start an index job \(POST \/v1\/jobs\) and ask again/, 'a job alone builds no links the configuration does not ask for');
  assert.doesNotMatch(problem.detail, cliFlag);
});

test('MCP tool errors give the MCP fix', async () => {
  const client = new Client({ name: 'hints-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${empty.url}/mcp`)));
  try {
    const result = (await client.callTool({ name: 'query', arguments: { question: 'x' } })) as { isError?: boolean; content: Array<{ text: string }> };
    assert.equal(result.isError, true);
    assert.match(result.content[0]?.text ?? '', /add_documents/);
    assert.doesNotMatch(result.content[0]?.text ?? '', cliFlag);
    assert.ok(!(result.content[0]?.text ?? '').includes(scratch));
  } finally {
    await client.close();
  }
});
