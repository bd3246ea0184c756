import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createKgrag, type Kgrag } from '../src/api/create-kgrag.js';
import type { EntityDetail, EntityMatch, GraphSlice, CommunityView } from '../src/api/graph-browser.js';
import type { Citation } from '../src/answer/answer-types.js';
import { packageVersion } from '../src/core/package-version.js';
import { createMcpHttpHandler } from '../src/mcp/mcp-http-handler.js';
import { sampleWorkspace } from './helpers/test-server.js';
import { nodeScriptArgs } from './helpers/node-script.js';

const repository = fileURLToPath(new URL('..', import.meta.url));
const mainScript = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const workspace = await sampleWorkspace();
const toolNames = ['add_documents', 'community_report', 'delete_documents', 'get_entity', 'list_documents', 'neighbours', 'query', 'search_entities'];

/** Calls a tool and returns its result, text and structured content. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; text: string; data: Record<string, unknown> }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return { result, text, data: result.structuredContent ?? {} };
}

/** Asserts that a tool call failed as a tool error with one line that is no stack trace, and returns that line. */
async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const { result, text } = await call(client, name, args);
  assert.equal(result.isError, true, `${name} should fail: ${text}`);
  assert.doesNotMatch(text, /\n\s+at |\.ts:\d+/, 'no stack trace reaches the client');
  return text;
}

let kgrag: Kgrag;
before(async () => {
  kgrag = await createKgrag({ workspace, config: { index: { mode: 'fast' } } });
});
after(async () => {
  await kgrag.close();
  rmSync(workspace, { recursive: true, force: true });
});

describe('kgrag mcp over stdio (the real CLI)', () => {
  const client = new Client({ name: 'kgrag-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeScriptArgs(mainScript), '-w', workspace, 'mcp'],
    cwd: repository,
    env: getDefaultEnvironment(),
    stderr: 'pipe',
  });
  let stderr = '';
  const transportErrors: Error[] = [];

  before(async () => {
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
    // Set after connecting: the client chains its own handler first. A line on stdout that is not the protocol lands here.
    const clientHandler = transport.onerror;
    transport.onerror = (error) => {
      transportErrors.push(error);
      clientHandler?.(error);
    };
  });
  after(async () => {
    await client.close();
    assert.match(stderr, /kgrag mcp: stopping \(the client closed stdin\)/, 'the server stops by itself when the client closes stdin');
  });

  test('lists the six tools, each described for an agent, under the name kgrag and the package version', async () => {
    assert.deepEqual(client.getServerVersion(), { name: 'kgrag', version: packageVersion() });
    assert.match(client.getInstructions() ?? '', /search_entities/);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), toolNames);
    for (const tool of tools) {
      assert.ok((tool.description ?? '').length > 80, `${tool.name} has a description`);
      assert.equal(tool.inputSchema.type, 'object');
    }
    const query = tools.find((tool) => tool.name === 'query');
    assert.deepEqual(query?.inputSchema.required, ['question']);
    assert.match(query?.description ?? '', /ppr/);
    assert.equal(tools.find((tool) => tool.name === 'add_documents')?.annotations?.readOnlyHint, false);
    assert.equal(tools.find((tool) => tool.name === 'delete_documents')?.annotations?.destructiveHint, true);
    // Every tool declares the shape of its structured content.
    for (const tool of tools) assert.equal(tool.outputSchema?.type, 'object', `${tool.name} declares an outputSchema`);
    assert.deepEqual(Object.keys(query?.outputSchema?.properties ?? {}).sort(), ['answer', 'citations', 'context', 'contextChunkIds', 'index', 'method', 'variant', 'warnings']);
  });

  test('search_entities, get_entity, neighbours and community_report browse the graph', async () => {
    const search = await call(client, 'search_entities', { query: 'kester weir br', limit: 3 });
    const [first] = search.data.entities as EntityMatch[];
    assert.equal(first?.title, 'Kester Weir Bridge');
    assert.match(search.text, /^1\. Kester Weir Bridge \(geo; id [0-9a-f]+;/);

    const byName = await call(client, 'get_entity', { name: 'kester weir bridge', maxSources: 1 });
    const entity = byName.data.entity as EntityDetail;
    assert.equal(entity.id, first?.id);
    assert.equal(entity.sources.length, 1);
    assert.match(byName.text, /^Kester Weir Bridge \(geo; id /);
    assert.match(byName.text, /Passages mentioning it \(1 of \d+\):\n\n\[Kestermouth\]\n# Kestermouth/);
    const byId = await call(client, 'get_entity', { id: entity.id });
    assert.equal((byId.data.entity as EntityDetail).title, 'Kester Weir Bridge');

    const around = await call(client, 'neighbours', { id: entity.id, depth: 2, limit: 5 });
    const slice = around.data as unknown as GraphSlice;
    assert.equal(slice.nodes.length, 5);
    assert.equal(slice.nodes[0]?.id, entity.id);
    assert.equal(slice.truncated, true);
    assert.match(around.text, /^5 entities around Kester Weir Bridge \(cut short/);

    const reports = await call(client, 'community_report', { entityId: entity.id });
    const communities = reports.data.communities as CommunityView[];
    assert.deepEqual(
      communities.map((community) => community.level),
      entity.communities.map((community) => community.level),
    );
    assert.match(reports.text, /^Community [0-9a-f]+ \(level 0, \d+ entities\)\n\n# /);
    const [deepest] = entity.communities.slice(-1);
    const one = await call(client, 'community_report', { communityId: deepest?.id });
    assert.equal((one.data.communities as CommunityView[])[0]?.report?.title, deepest?.reportTitle);
    const atLevel = await call(client, 'community_report', { entityId: entity.id, level: deepest?.level });
    assert.equal((atLevel.data.communities as CommunityView[]).length, 1);

    // A name works where an id does, as for get_entity.
    const aroundByName = await call(client, 'neighbours', { name: 'kester weir bridge', depth: 2, limit: 5 });
    assert.deepEqual(aroundByName.data, around.data);
    const reportsByName = await call(client, 'community_report', { entityName: 'Kester Weir Bridge' });
    assert.deepEqual(reportsByName.data, reports.data);
    assert.match(await toolError(client, 'neighbours', { name: 'Zebulon Quince' }), /no entity is named "Zebulon Quince"/);
    assert.match(await toolError(client, 'neighbours', { id: entity.id, name: 'x' }), /either id or name/);
    assert.match(await toolError(client, 'community_report', { entityName: 'x', entityId: entity.id }), /one of communityId, entityId or entityName/);
  });

  test('query answers with citations, and contextOnly returns the context', async () => {
    const answered = await call(client, 'query', { question: 'On what date was the Kester Weir Bridge opened?' });
    assert.match(answered.text, /14 May 1938/);
    assert.match(answered.text, /\nCitations:\n/);
    assert.match(answered.text, /\n\[Sources \d+\] Kester Weir Bridge — "The bridge was opened on Saturday 14 May 1938/);
    assert.ok((answered.data.citations as Citation[]).some((citation) => citation.title === 'Kester Weir Bridge'));
    assert.ok((answered.data.contextChunkIds as string[]).length > 0);
    assert.equal(typeof answered.data.method, 'string');

    const context = await call(client, 'query', { question: 'Who built the Kester Weir Bridge?', method: 'basic', variant: 'bm25', topK: 2, contextOnly: true });
    assert.equal(context.data.method, 'basic');
    assert.equal(context.data.variant, 'bm25');
    assert.equal((context.data.answer as { kind: string }).kind, 'none');
    assert.equal((context.data.contextChunkIds as string[]).length, 2);
    assert.match(context.text, /-----Sources-----/);
  });

  test('failures come back as tool errors with one line saying what to do', async () => {
    assert.match(await toolError(client, 'get_entity', { id: 'no-such-entity' }), /no entity with id "no-such-entity".*search_entities/);
    assert.match(await toolError(client, 'get_entity', { name: 'Zebulon Quince' }), /no entity is named "Zebulon Quince"/);
    assert.match(await toolError(client, 'neighbours', { id: 'no-such-entity' }), /no entity with id/);
    assert.match(await toolError(client, 'community_report', { communityId: 'no-such-community' }), /no community with id/);
    assert.match(await toolError(client, 'query', { question: 'Who built the bridge?', method: 'no-such-method' }), /no-such-method/);
    assert.match(await toolError(client, 'neighbours', { id: 'x', depth: 9 }), /depth/);
    assert.match(await toolError(client, 'get_entity', { id: 'x', name: 'y' }), /either id or name/);
    assert.match(await toolError(client, 'search_entities', { query: '' }), /query/);
    assert.match(await toolError(client, 'add_documents', { documents: [] }), /documents/);
    assert.match(await toolError(client, 'no_such_tool', {}), /no_such_tool/);
    // The server is still there.
    assert.equal((await call(client, 'search_entities', { query: 'weir' })).result.isError, undefined);
  });

  test('add_documents indexes in the server process, and the next query finds the new text', async () => {
    const added = await call(client, 'add_documents', {
      documents: [
        { title: 'Zanzibar Quay', text: 'Zanzibar Quay is a wharf that Harriet Voss built at Kestermouth in 1902 for the Kester Navigation Board.' },
        { title: 'Harriet Voss', text: 'Harriet Voss, a merchant of Kestermouth, sold Zanzibar Quay to the Kester Navigation Board in 1921.', source: 'https://example.org/voss' },
      ],
    });
    assert.equal(added.result.isError, undefined, added.text);
    assert.match(added.text, /^indexed 2 documents \(2 added, 0 replaced, 0 unchanged\); the index now holds 37 documents/);
    const answered = await call(client, 'query', { question: 'Who built Zanzibar Quay?', method: 'basic:bm25' });
    assert.ok((answered.data.citations as Citation[]).some((citation) => citation.title === 'Zanzibar Quay'), answered.text);
    const [hit] = (await call(client, 'search_entities', { query: 'zanzibar' })).data.entities as EntityMatch[];
    assert.equal(hit?.title, 'Zanzibar Quay');
    // Progress went to stderr, and nothing but the protocol reached stdout.
    assert.match(stderr, /kgrag mcp: serving/);
    assert.deepEqual(transportErrors, []);
  });
});

test('kgrag mcp stops cleanly on SIGTERM, closing the workspace', async () => {
  const child = spawn(process.execPath, [...nodeScriptArgs(mainScript), '-w', workspace, 'mcp'], { cwd: repository, env: getDefaultEnvironment(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  const serving = new Promise<void>((resolve) =>
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('kgrag mcp: serving')) resolve();
    }),
  );
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  await Promise.race([serving, exited]);
  child.kill('SIGTERM');
  const [code] = await exited;
  assert.equal(code, 0, stderr);
  assert.match(stderr, /kgrag mcp: stopping \(SIGTERM\)/);
  assert.equal(stdout, '', 'nothing but the protocol goes to stdout, and no request came');
});

describe('the MCP server over streamable HTTP', () => {
  const added: string[][] = [];
  const handler = createMcpHttpHandler(async () => ({
    kgrag,
    async addDocuments(documents) {
      added.push(documents.map((document) => document.title));
      return { message: `queued ${documents.length} documents`, jobId: 'job-1' };
    },
    async deleteDocuments(ids) {
      return { message: `queued the deletion of ${ids.length} documents`, jobId: 'job-2' };
    },
  }));
  const server = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' });
  const url = new Promise<URL>((resolve) => server.once('listening', () => resolve(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`))));
  const client = new Client({ name: 'kgrag-test', version: '1.0.0' });

  before(async () => client.connect(new StreamableHTTPClientTransport(await url)));
  after(async () => {
    await client.close();
    await new Promise((resolve) => server.close(resolve));
  });

  test('serves the same tools statelessly: every request gets its own server', async () => {
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), toolNames);
    const [first] = (await call(client, 'search_entities', { query: 'kester weir br' })).data.entities as EntityMatch[];
    assert.equal(first?.title, 'Kester Weir Bridge');
    const results = await Promise.all(['Clara Ivesley', 'Sedley Mill', 'Lantern Fair'].map((name) => call(client, 'get_entity', { name })));
    assert.deepEqual(
      results.map(({ data }) => (data.entity as EntityDetail).title),
      ['Clara Ivesley', 'Sedley Mill', 'Lantern Fair'],
    );
    assert.match((await call(client, 'query', { question: 'On what date was the Kester Weir Bridge opened?' })).text, /14 May 1938/);
  });

  test('add_documents goes to the target (the HTTP server queues an index job) and reports its job', async () => {
    const queued = await call(client, 'add_documents', { documents: [{ title: 'Note', text: 'A note.' }] });
    assert.deepEqual(queued.data, { message: 'queued 1 documents', jobId: 'job-1' });
    assert.deepEqual(added, [['Note']]);
  });

  test('tool errors are results, and what is not a JSON-RPC POST is refused', async () => {
    assert.match(await toolError(client, 'get_entity', { id: 'no-such-entity' }), /no entity with id/);
    assert.match(await toolError(client, 'community_report', { entityId: 'x', communityId: 'y' }), /one of communityId, entityId or entityName/);
    const address = await url;
    const get = await fetch(address, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    const notJson = await fetch(address, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{' });
    assert.equal(notJson.status, 400);
    assert.match(await notJson.text(), /Parse error/);
  });
});
