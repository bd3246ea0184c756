// `kgrag serve` over real loopback HTTP: every endpoint group, authentication, limits, hostile names, SSE read by
// a real parser, and index jobs running while queries are answered.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createKgrag } from '../src/api/create-kgrag.js';
import { configSchema } from '../src/core/config/config-schema.js';
import { serveWorkspaces } from '../src/server/serve-workspaces.js';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { readEvents, sampleWorkspace, startTestServer } from './helpers/test-server.js';

const key = 'test-key-0123456789abcdef';
const auth = { authorization: `Bearer ${key}` };
const json = { ...auth, 'content-type': 'application/json' };

interface Job {
  id: string;
  status: string;
  steps: Array<{ step: string; status: string }>;
  error: { code: string; message: string } | null;
  result: { deleted?: string[] } | null;
}

async function body<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

async function waitForJob(url: string, id: string): Promise<Job> {
  const response = await fetch(`${url}/v1/jobs/${id}/events`, { headers: auth });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
  const events = await readEvents(response);
  const last = events.at(-1);
  assert.equal(last?.event, 'end');
  return JSON.parse(last.data) as Job;
}

describe('kgrag serve: one workspace over HTTP', () => {
  let server: ServedWorkspaces;
  let url: string;
  let directory: string;

  before(async () => {
    directory = await sampleWorkspace();
    server = await startTestServer({ directory, server: { apiKeys: [key] } });
    url = server.url;
  });
  after(async () => {
    await server.close();
  });

  test('health needs no key; everything else needs a valid bearer key (401 without, 403 with a wrong one)', async () => {
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await body(health), { status: 'ok', version: 'test' });
    const missing = await fetch(`${url}/v1/stats`);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get('content-type'), 'application/problem+json');
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal((await body<{ code: string }>(missing)).code, 'AUTH_MISSING_KEY');
    const wrong = await fetch(`${url}/v1/stats`, { headers: { authorization: 'Bearer not-the-key-at-all-0000' } });
    assert.equal(wrong.status, 403);
    const problem = await body<{ code: string; detail: string }>(wrong);
    assert.equal(problem.code, 'AUTH_INVALID_KEY');
    assert.doesNotMatch(JSON.stringify(problem), /not-the-key|test-key/);
    const stats = await fetch(`${url}/v1/stats`, { headers: auth });
    assert.equal(stats.status, 200);
    const { counts, llm } = await body<{ counts: { documents: number; entities: number }; llm: { configured: boolean; model: string | null } }>(stats);
    assert.equal(counts.documents, 35);
    assert.ok(counts.entities > 50);
    assert.deepEqual(llm, { configured: false, model: null }, 'the sample workspace has no LLM: the explorer says answers are extractive');
  });

  test('the OpenAPI document lists every endpoint with its schemas, and /docs renders it', async () => {
    const document = await body<{ openapi: string; paths: Record<string, Record<string, { requestBody?: unknown }>> }>(await fetch(`${url}/openapi.json`));
    assert.equal(document.openapi, '3.1.0');
    for (const path of ['/health', '/v1/documents', '/v1/documents/{id}', '/v1/jobs', '/v1/jobs/{id}/events', '/v1/query', '/v1/chat/completions', '/v1/models', '/v1/stats']) {
      assert.ok(document.paths[path], `missing ${path}`);
    }
    const query = document.paths['/v1/query']?.['post']?.requestBody as { content: { 'application/json': { schema: { properties: Record<string, unknown>; required: string[] } } } };
    assert.deepEqual(query.content['application/json'].schema.required, ['question']);
    assert.ok('topK' in query.content['application/json'].schema.properties);
    const page = await fetch(`${url}/docs`);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const html = await page.text();
    assert.match(html, /\/v1\/chat\/completions/);
    // The curl lines name this server, not a fixed port.
    assert.ok(html.includes(`${url}/v1/query`), 'curl lines use the address the page was asked at');
    assert.doesNotMatch(html, /127\.0\.0\.1:8080/);
  });

  test('the methods list gives each method its variants, a JSON Schema of its parameters, and whether the index has it', async () => {
    const listed = await body<{ default: string; methods: Array<{ name: string; variants: string[]; built: boolean; parameters: { type: string; properties: Record<string, unknown> } }> }>(
      await fetch(`${url}/v1/methods`, { headers: auth }),
    );
    assert.equal(listed.default, 'basic');
    const basic = listed.methods.find((method) => method.name === 'basic');
    assert.ok(basic);
    assert.ok(basic.variants.includes('bm25'));
    assert.equal(basic.parameters.type, 'object');
    assert.ok(Object.keys(basic.parameters.properties).length > 0);
    assert.ok(listed.methods.every((method) => method.built), 'the sample index is built for every method');
  });

  test('a query answers as JSON; invalid input, unknown methods and wrong media types are problem documents', async () => {
    const response = await fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: JSON.stringify({ question: 'Who designed the Kester Weir Bridge?', method: 'ppr', topK: 3 }) });
    assert.equal(response.status, 200);
    const result = await body<{ method: string; answer: { kind: string }; context: { chunks: unknown[] }; citations: unknown[] }>(response);
    assert.equal(result.method, 'ppr');
    assert.equal(result.answer.kind, 'extractive');
    assert.equal(result.context.chunks.length, 3);
    const empty = await fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: JSON.stringify({ question: '   ' }) });
    assert.equal(empty.status, 400);
    assert.match((await body<{ detail: string }>(empty)).detail, /question/);
    const extra = await fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: JSON.stringify({ question: 'x', nonsense: 1 }) });
    assert.equal(extra.status, 400);
    const unknown = await fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: JSON.stringify({ question: 'x', method: 'nosuch' }) });
    assert.equal(unknown.status, 404);
    assert.equal((await body<{ code: string }>(unknown)).code, 'QUERY_UNKNOWN_METHOD');
    const notJson = await fetch(`${url}/v1/query`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'hello' });
    assert.equal(notJson.status, 415);
    const broken = await fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: '{"question": ' });
    assert.equal(broken.status, 400);
    assert.equal((await body<{ code: string }>(broken)).code, 'SERVER_INVALID_JSON');
    const missing = await fetch(`${url}/v1/nothing-here`, { headers: auth });
    assert.equal(missing.status, 404);
  });

  test('a chat answered without an LLM says that it used the last question alone', async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'kgrag-basic:bm25', messages: [{ role: 'user', content: 'Tell me about the bridge.' }, { role: 'assistant', content: 'It crosses the Kester.' }, { role: 'user', content: 'When was it opened?' }] }),
    });
    assert.equal(response.status, 200);
    const completion = await body<{ kgrag: { answerKind: string; warnings: string[] }; choices: Array<{ message: { content: string } }> }>(response);
    assert.equal(completion.kgrag.answerKind, 'extractive');
    assert.ok(completion.kgrag.warnings.some((warning) => /last question alone/.test(warning)), JSON.stringify(completion.kgrag.warnings));
    // A chat front-end shows the reply only: it says so there too, before the sources.
    assert.match(completion.choices[0]?.message.content ?? '', /\n\n_Only your last message was used; the earlier turns of this conversation were not \(the server has no LLM to read them\)\._\n\nSources:/);
  });

  test('a streamed query ends with one result event holding the answer, citations and trace', async () => {
    const response = await fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: JSON.stringify({ question: 'What did the flood of March 1947 damage?', method: 'basic', variant: 'bm25', stream: true }) });
    assert.equal(response.status, 200);
    const events = await readEvents(response);
    const last = events.at(-1);
    assert.equal(last?.event, 'result');
    const result = JSON.parse(last.data) as { method: string; variant: string; citations: unknown[]; trace: { steps: unknown[] } };
    assert.equal(result.method, 'basic');
    assert.equal(result.variant, 'bm25');
    assert.ok(result.trace.steps.length > 0);
    const failing = await fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: JSON.stringify({ question: 'x', method: 'basic', variant: 'nosuch', stream: true }) });
    const failed = await readEvents(failing);
    assert.equal(failed.at(-1)?.event, 'error');
    assert.equal((JSON.parse(failed.at(-1)!.data) as { code: string }).code, 'QUERY_UNKNOWN_VARIANT');
  });

  test('documents added as JSON are indexed by a job whose progress streams as events; queries keep working meanwhile', async () => {
    const documents = Array.from({ length: 60 }, (_, index) => ({
      title: `Harbour log ${index}`,
      text: `Entry ${index}. The pilot cutter Merrow Lass${index} towed the collier Brackwater${index} past the Kester Weir Bridge at dawn, and harbourmaster Ysolde Penhallow${index} logged the tide.`,
    }));
    const added = await fetch(`${url}/v1/documents`, { method: 'POST', headers: json, body: JSON.stringify({ documents }) });
    assert.equal(added.status, 202);
    const { job } = await body<{ job: Job }>(added);
    assert.equal(job.status, 'queued');
    assert.match(added.headers.get('location') ?? '', new RegExp(`/v1/jobs/${job.id}$`));
    const ended = waitForJob(url, job.id);
    const answered = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: JSON.stringify({ question: `Who kept the tide log ${index}?`, method: index % 2 === 0 ? 'ppr' : 'basic' }) }).then((response) => response.status),
      ),
    );
    assert.deepEqual(answered, Array(12).fill(200));
    const finished = await ended;
    assert.equal(finished.status, 'succeeded', JSON.stringify(finished.error));
    assert.ok(finished.steps.some((step) => step.step === 'chunk' && step.status === 'done'));
    const listed = await body<{ documents: Array<{ title: string }> }>(await fetch(`${url}/v1/documents`, { headers: auth }));
    assert.ok(listed.documents.length >= 95);
    const found = await body<{ context: { chunks: Array<{ text: string }> } }>(
      await fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: JSON.stringify({ question: 'Ysolde Penhallow7 tide', method: 'basic', variant: 'bm25', topK: 1 }) }),
    );
    assert.match(found.context.chunks[0]?.text ?? '', /Penhallow7\b/);
    // A finished job's file keeps titles, never the documents' text.
    const jobFile = readFileSync(join(directory, '.kgrag-jobs', `${job.id}.json`), 'utf8');
    assert.doesNotMatch(jobFile, /Merrow Lass/);
    assert.match(jobFile, /Harbour log 7/);
  });

  test('an upload with a hostile file name lands in the uploads folder under a safe name; unreadable kinds are refused', async () => {
    const form = new FormData();
    form.append('file', new Blob(['# Tide tables\n\nThe Quarrel Rock light shows red over the bar.']), '../../../etc/tide-tables.md');
    const uploaded = await fetch(`${url}/v1/documents`, { method: 'POST', headers: auth, body: form });
    assert.equal(uploaded.status, 202);
    const finished = await waitForJob(url, (await body<{ job: Job }>(uploaded)).job.id);
    assert.equal(finished.status, 'succeeded', JSON.stringify(finished.error));
    assert.deepEqual(readdirSync(join(directory, 'uploads')), ['tide-tables.md']);
    const documents = (await body<{ documents: Array<{ id: string; source: string }> }>(await fetch(`${url}/v1/documents`, { headers: auth }))).documents;
    const document = documents.find((entry) => entry.source.endsWith('tide-tables.md'));
    assert.ok(document);
    // The library's lookup by id returns the listed entry, and nothing for an unknown id.
    const { kgrag } = await server.registry.open('default');
    assert.deepEqual(await kgrag.documents([document.id, 'nosuch']), [documents.find((entry) => entry.id === document.id)]);
    const one = await body<{ text: string; chunkIds: string[] }>(await fetch(`${url}/v1/documents/${document.id}`, { headers: auth }));
    assert.match(one.text, /Quarrel Rock/);
    assert.equal(one.chunkIds.length, 1);

    const excel = new FormData();
    excel.append('file', new Blob(['PK']), 'budget.xlsx');
    const refused = await fetch(`${url}/v1/documents`, { method: 'POST', headers: auth, body: excel });
    assert.equal(refused.status, 415);
    assert.match((await body<{ detail: string }>(refused)).detail, /Excel/);

    // Delete: the dry run changes nothing; the job removes the document and its uploaded file.
    const preview = await fetch(`${url}/v1/documents/${document.id}?dryRun=true`, { method: 'DELETE', headers: auth });
    assert.equal(preview.status, 200);
    assert.equal((await body<{ deleting: Array<{ id: string }> }>(preview)).deleting[0]?.id, document.id);
    const deleted = await fetch(`${url}/v1/documents/${document.id}`, { method: 'DELETE', headers: auth });
    assert.equal(deleted.status, 202);
    const deleteJob = await waitForJob(url, (await body<{ job: Job }>(deleted)).job.id);
    assert.equal(deleteJob.status, 'succeeded', JSON.stringify(deleteJob.error));
    assert.deepEqual(deleteJob.result?.deleted, [document.id]);
    assert.equal(existsSync(join(directory, 'uploads', 'tide-tables.md')), false);
    assert.equal((await fetch(`${url}/v1/documents/${document.id}`, { headers: auth })).status, 404);
    assert.equal((await fetch(`${url}/v1/documents/${document.id}`, { method: 'DELETE', headers: auth })).status, 404);
  });

  test('graph browsing: entity search, an entity with sources and communities, neighbours, communities with reports, a chunk, a slice', async () => {
    const get = async <T>(path: string, status = 200): Promise<T> => {
      const response = await fetch(`${url}/v1${path}`, { headers: auth });
      assert.equal(response.status, status, `${path}: ${response.status}`);
      return body<T>(response);
    };
    // The harbour logs above named the Kester Weir Bridge 60 times: the hub is now GraphRAG's ego node, pruned.
    const { entities } = await get<{ entities: Array<{ id: string; title: string; match: string }> }>('/entities?q=clara%20ives&limit=5');
    const ivesley = entities.find((entity) => /clara ivesley/i.test(entity.title));
    assert.ok(ivesley, JSON.stringify(entities));
    const entity = await get<{ title: string; sources: Array<{ chunkId: string; documentTitle: string }>; communities: Array<{ id: string }> }>(`/entities/${ivesley.id}`);
    assert.ok(entity.sources.length > 0);
    assert.ok(entity.sources[0]?.documentTitle);
    const neighbours = await get<{ nodes: Array<{ id: string; depth: number }>; edges: Array<{ source: string; target: string }> }>(`/entities/${ivesley.id}/neighbours?depth=2&limit=20`);
    assert.ok(neighbours.nodes.length > 1 && neighbours.nodes.length <= 20);
    const ids = new Set(neighbours.nodes.map((node) => node.id));
    assert.ok(neighbours.edges.every((edge) => ids.has(edge.source) && ids.has(edge.target)));
    const communities = await get<{ total: number; communities: Array<{ id: string; report?: { title: string } }> }>('/communities?level=0&limit=3');
    assert.ok(communities.total > 0 && communities.communities.length <= 3);
    assert.ok(communities.communities[0]?.report?.title);
    const community = await get<{ id: string }>(`/communities/${communities.communities[0]!.id}`);
    assert.equal(community.id, communities.communities[0]!.id);
    const chunk = await get<{ id: string; document: { title: string } }>(`/chunks/${entity.sources[0]!.chunkId}`);
    assert.equal(chunk.id, entity.sources[0]!.chunkId);
    assert.ok(chunk.document.title);
    type SliceNode = { id: string; communities: string[]; x?: number; y?: number };
    const slice = await get<{ nodes: SliceNode[]; edges: unknown[]; truncated: boolean }>('/graph?top=30&maxEdges=50');
    assert.equal(slice.nodes.length, 30);
    assert.ok(slice.edges.length <= 50);
    assert.ok(slice.nodes.every((node) => Array.isArray(node.communities) && node.x === undefined));
    assert.ok(slice.nodes.some((node) => node.communities.length > 0));
    const drawn = await get<{ nodes: SliceNode[] }>('/graph?top=30&maxEdges=50&layout=true');
    assert.deepEqual(
      drawn.nodes.map((node) => [node.id, node.communities]),
      slice.nodes.map((node) => [node.id, node.communities]),
    );
    assert.ok(drawn.nodes.every((node) => Number.isFinite(node.x) && Number.isFinite(node.y)));
    assert.deepEqual(await get('/graph?top=30&maxEdges=50&layout=true'), drawn);
    assert.match((await get<{ detail: string }>('/graph?layout=yes', 400)).detail, /layout/);
    const around = await get<{ nodes: SliceNode[] }>(`/entities/${ivesley.id}/neighbours`);
    assert.deepEqual(around.nodes[0]?.communities, entity.communities.map((member) => member.id));
    await get('/entities/nosuch', 404);
    await get('/chunks/nosuch', 404);
    await get('/communities/nosuch', 404);
    const invalid = await get<{ detail: string }>('/entities?q=ivesley&limit=100000', 400);
    assert.match(invalid.detail, /limit/);
    await get('/entities/x/neighbours?depth=9', 400);
  });

  test('MCP is served at /mcp behind the same key; add_documents and delete_documents queue jobs an agent follows with job_status', async () => {
    const unauthorised = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(unauthorised.status, 401);
    const client = new Client({ name: 'server-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: auth } }));
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
      assert.deepEqual(tools, ['add_documents', 'community_report', 'delete_documents', 'get_entity', 'job_status', 'list_documents', 'list_jobs', 'neighbours', 'query', 'search_entities']);
      const found = (await client.callTool({ name: 'search_entities', arguments: { query: 'clara ives' } })) as { isError?: boolean; content: Array<{ text: string }> };
      assert.ok(!found.isError);
      assert.match(found.content[0]?.text ?? '', /Clara Ivesley/i);
      const added = (await client.callTool({ name: 'add_documents', arguments: { documents: [{ title: 'Lighthouse', text: 'The Quarrel Rock lighthouse was first lit in 1871 by keeper Elowen Pascoe.' }] } })) as { content: Array<{ text: string }> };
      const jobId = /job-\d+/.exec(added.content[0]?.text ?? '')?.[0];
      assert.ok(jobId, added.content[0]?.text);
      assert.equal((await waitForJob(url, jobId)).status, 'succeeded');
      type ToolResult = { isError?: boolean; content: Array<{ text: string }>; structuredContent?: Record<string, unknown> };
      const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => (await client.callTool({ name, arguments: args })) as ToolResult;
      const status = await call('job_status', { id: jobId });
      assert.match(status.content[0]?.text ?? '', new RegExp(`^${jobId} index succeeded \\[Lighthouse\\]`));
      assert.match((await call('list_jobs', { limit: 3 })).content[0]?.text ?? '', new RegExp(jobId));
      assert.match((await call('job_status', { id: 'job-999999' })).content[0]?.text ?? '', /no job with id "job-999999".*list_jobs/);
      const answer = (await client.callTool({ name: 'query', arguments: { question: 'Who first lit the Quarrel Rock lighthouse?', method: 'basic:bm25', topK: 2 } })) as { content: Array<{ text: string }> };
      assert.match(answer.content.map((part) => part.text).join('\n'), /Elowen Pascoe/);

      // Deleting takes a preview first, then a confirmation; the job that deletes is followed like any other.
      const listed = await call('list_documents', {});
      const lighthouse = (listed.structuredContent?.['documents'] as Array<{ id: string; title: string }>).find((document) => document.title === 'Lighthouse');
      assert.ok(lighthouse, listed.content[0]?.text);
      const preview = await call('delete_documents', { ids: [lighthouse.id] });
      assert.match(preview.content[0]?.text ?? '', /^Preview, nothing deleted: these 1 document\(s\) would be removed[^]*Lighthouse[^]*confirm: true/);
      assert.ok((listed.structuredContent?.['documents'] as unknown[]).length > 0);
      assert.match((await call('list_documents', {})).content[0]?.text ?? '', /Lighthouse/, 'a preview deletes nothing');
      assert.match((await call('delete_documents', { ids: ['no-such-document'] })).content[0]?.text ?? '', /no indexed document has the id "no-such-document".*list_documents/);
      const deleted = await call('delete_documents', { ids: [lighthouse.id], confirm: true });
      const deleteJob = /job-\d+/.exec(deleted.content[0]?.text ?? '')?.[0];
      assert.ok(deleteJob, deleted.content[0]?.text);
      assert.equal((await waitForJob(url, deleteJob)).status, 'succeeded');
      assert.match((await call('job_status', { id: deleteJob })).content[0]?.text ?? '', / delete succeeded/);
      assert.doesNotMatch((await call('list_documents', {})).content[0]?.text ?? '', /Lighthouse/);
    } finally {
      await client.close();
    }
  });

  test('a running job can be cancelled: it stops, and its documents are not published by the next job', async () => {
    const count = async () => (await body<{ documents: unknown[] }>(await fetch(`${url}/v1/documents`, { headers: auth }))).documents.length;
    const before = await count();
    const documents = Array.from({ length: 120 }, (_, index) => ({ title: `Cancelled ${index}`, text: `Tallyman Orrin Vosper${index} counted ${index} casks of pilchards on the quay. `.repeat(8) }));
    const { job } = await body<{ job: Job }>(await fetch(`${url}/v1/documents`, { method: 'POST', headers: json, body: JSON.stringify({ documents }) }));
    const events = (await fetch(`${url}/v1/jobs/${job.id}/events`, { headers: auth })).body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    for (;;) {
      const { value, done } = await events.read();
      assert.ok(!done, 'the job ended before it could be cancelled');
      if (value.event === 'pipeline' && (JSON.parse(value.data) as { type: string; step: string }).type === 'step-end') break;
    }
    const cancelled = await body<{ job: Job }>(await fetch(`${url}/v1/jobs/${job.id}`, { method: 'DELETE', headers: auth }));
    assert.equal(cancelled.job.status, 'cancelled');
    await events.cancel();
    const next = await body<{ job: Job }>(await fetch(`${url}/v1/jobs`, { method: 'POST', headers: json, body: '{}' }));
    assert.equal((await waitForJob(url, next.job.id)).status, 'succeeded');
    assert.equal(await count(), before);
    const search = await body<{ context: { chunks: Array<{ text: string }> } }>(
      await fetch(`${url}/v1/query`, { method: 'POST', headers: json, body: JSON.stringify({ question: 'Orrin Vosper7 pilchards', method: 'basic:bm25', topK: 3 }) }),
    );
    assert.ok(search.context.chunks.every((chunk) => !/Vosper/.test(chunk.text)));
  });

  test('a queued job can be cancelled and never runs; unknown jobs are 404', async () => {
    const first = await body<{ job: Job }>(await fetch(`${url}/v1/jobs`, { method: 'POST', headers: json, body: '{}' }));
    const second = await body<{ job: Job }>(await fetch(`${url}/v1/jobs`, { method: 'POST', headers: json, body: '{}' }));
    const cancelled = await fetch(`${url}/v1/jobs/${second.job.id}`, { method: 'DELETE', headers: auth });
    assert.equal(cancelled.status, 200);
    assert.equal((await body<{ job: Job }>(cancelled)).job.status, 'cancelled');
    assert.equal((await waitForJob(url, first.job.id)).status, 'succeeded');
    const again = await body<{ job: Job }>(await fetch(`${url}/v1/jobs/${second.job.id}`, { headers: auth }));
    assert.equal(again.job.status, 'cancelled');
    assert.equal((await fetch(`${url}/v1/jobs/job-999999`, { headers: auth })).status, 404);
    const jobs = await body<{ jobs: Job[] }>(await fetch(`${url}/v1/jobs`, { headers: auth }));
    assert.ok(jobs.jobs.length >= 2);
  });
});

describe('kgrag serve: limits', () => {
  test('a body over the JSON limit is 413; past the request rate a caller gets 429 with Retry-After', async () => {
    const directory = await sampleWorkspace();
    const server = await startTestServer({ directory, server: { maxJsonBytes: 2000, requestsPerMinute: 5, maxUploadBytes: 3000 } });
    try {
      const big = await fetch(`${server.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'x'.repeat(5000) }) });
      assert.equal(big.status, 413);
      assert.equal((await body<{ code: string }>(big)).code, 'SERVER_BODY_TOO_LARGE');
      const form = new FormData();
      form.append('file', new Blob(['y'.repeat(10_000)]), 'big.txt');
      const upload = await fetch(`${server.url}/v1/documents`, { method: 'POST', body: form });
      assert.equal(upload.status, 413);
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let index = 0; index < 6; index++) {
        const response = await fetch(`${server.url}/v1/stats`);
        statuses.push(response.status);
        if (response.status === 429) retryAfter = response.headers.get('retry-after');
        await response.arrayBuffer();
      }
      assert.equal(statuses.at(-1), 429);
      assert.ok(Number(retryAfter) >= 1);
      // Health stays reachable for probes.
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
    } finally {
      await server.close();
    }
  });

  test('past maxConcurrentQueries a caller gets 429 at once, with Retry-After', async () => {
    const directory = await sampleWorkspace();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const answering = new Promise<void>((resolve) => {
      started = resolve;
    });
    const llm = createScriptedLanguageModel({
      responses: [],
      fallback: async () => {
        started();
        await held;
        return 'The Marle family founded it. [Data: Sources (1)]';
      },
    });
    const server = await startTestServer({ directory, server: { maxConcurrentQueries: 1 }, kgrag: { llm } });
    try {
      const ask = () => fetch(`${server.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Who founded the Marle Boatworks?', method: 'basic' }) });
      const first = ask();
      await answering;
      const second = await ask();
      assert.equal(second.status, 429);
      assert.equal(second.headers.get('retry-after'), '1');
      assert.equal((await body<{ code: string }>(second)).code, 'SERVER_TOO_MANY_QUERIES');
      release();
      const answered = await first;
      assert.equal(answered.status, 200);
      assert.equal((await body<{ answer: { kind: string } }>(answered)).answer.kind, 'generated');
      assert.equal((await ask()).status, 200);
    } finally {
      release();
      await server.close();
    }
  });

  test('a query past the deadline is cancelled with 504; CORS answers only the allowed origins', async () => {
    const directory = await sampleWorkspace();
    const llm = createScriptedLanguageModel({
      responses: [],
      fallback: (request) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve('late'), 30_000);
          request.abortSignal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(request.abortSignal?.reason as Error);
          });
        }),
    });
    const server = await startTestServer({ directory, server: { queryTimeoutMs: 300, corsOrigins: ['https://app.example.com'] }, kgrag: { llm } });
    try {
      const slow = await fetch(`${server.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Who founded the Marle Boatworks?', method: 'basic' }) });
      assert.equal(slow.status, 504);
      assert.equal((await body<{ code: string }>(slow)).code, 'SERVER_QUERY_TIMEOUT');
      const preflight = await fetch(`${server.url}/v1/query`, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } });
      assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example.com');
      const other = await fetch(`${server.url}/v1/stats`, { headers: { origin: 'https://evil.example.com' } });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
    } finally {
      await server.close();
    }
  });

  test('a non-loopback address without an API key is refused; a port in use is named', async () => {
    const directory = await sampleWorkspace();
    await assert.rejects(startTestServer({ directory, server: { host: '0.0.0.0' } }), (error: Error & { code?: string }) => error.code === 'SERVER_INSECURE_BIND');
    const first = await startTestServer({ directory });
    try {
      await assert.rejects(startTestServer({ directory, server: { port: first.port } }), (error: Error & { code?: string }) => error.code === 'SERVER_PORT_IN_USE' && error.message.includes(String(first.port)));
    } finally {
      await first.close();
    }
  });
});

/** A GET sent with its path exactly as written (fetch would resolve `..` and re-encode before sending). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: hostname, port, path, method: 'GET' }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('kgrag serve: the web explorer at /', () => {
  const root = mkdtempSync(join(tmpdir(), 'kgrag-explorer-files-'));
  const web = join(root, 'web');
  const page = '<!doctype html><title>kgrag explorer</title><script type="module" src="/assets/index-4f2a9c1b.js"></script>';
  const script = 'document.title = "explorer";';
  const font = Buffer.from([0x77, 0x4f, 0x46, 0x32, 0, 1, 2, 3, 255]);
  let open: ServedWorkspaces;
  let keyed: ServedWorkspaces;

  before(async () => {
    mkdirSync(join(web, 'assets'), { recursive: true });
    writeFileSync(join(web, 'index.html'), page);
    writeFileSync(join(web, 'assets', 'index-4f2a9c1b.js'), script);
    writeFileSync(join(web, 'assets', 'index-77aa01.css'), 'body { margin: 0 }');
    writeFileSync(join(web, 'assets', 'inter-latin-400.woff2'), font);
    writeFileSync(join(web, 'assets', 'logo-9c1d.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(root, 'secret.txt'), 'not for the web');
    mkdirSync(join(root, 'open'));
    mkdirSync(join(root, 'keyed'));
    open = await startTestServer({ directory: join(root, 'open'), webDirectory: web });
    keyed = await startTestServer({ directory: join(root, 'keyed'), webDirectory: web, server: { apiKeys: [key] } });
  });
  after(async () => {
    await open.close();
    await keyed.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('/ and /index.html answer the page, revalidated on every load and kept offline by its Content-Security-Policy', async () => {
    for (const path of ['/', '/index.html']) {
      const response = await fetch(`${open.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(response.headers.get('cache-control'), 'no-cache');
      assert.equal(
        response.headers.get('content-security-policy'),
        "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'",
      );
      assert.equal(await response.text(), page);
    }
  });

  test('assets are served with their content type and cached for a year; HEAD gives the headers without the body', async () => {
    const expected: Array<[string, string, Buffer | string]> = [
      ['index-4f2a9c1b.js', 'text/javascript; charset=utf-8', script],
      ['index-77aa01.css', 'text/css; charset=utf-8', 'body { margin: 0 }'],
      ['inter-latin-400.woff2', 'font/woff2', font],
      ['logo-9c1d.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>'],
    ];
    for (const [name, type, content] of expected) {
      const response = await fetch(`${open.url}/assets/${name}`);
      assert.equal(response.status, 200, name);
      assert.equal(response.headers.get('content-type'), type);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), Buffer.from(content));
    }
    const head = await fetch(`${open.url}/assets/index-4f2a9c1b.js`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(script)));
    assert.equal(await head.text(), '');
    const headPage = await fetch(`${open.url}/`, { method: 'HEAD' });
    assert.equal(headPage.status, 200);
    assert.equal(await headPage.text(), '');
    const missing = await fetch(`${open.url}/assets/index-00000000.js`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('content-type'), 'application/problem+json');
  });

  test('no path out of the assets folder is served, however it is spelled', async () => {
    for (const path of [
      '/assets/../secret.txt',
      '/assets/../../secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/..%2F..%2Fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/assets/..%5c..%5csecret.txt',
      '/assets/%252e%252e%252fsecret.txt',
      '/assets/.%2e/.%2e/secret.txt',
      '/assets/',
      '/assets/.hidden',
      '/assets/index-4f2a9c1b.js%00.txt',
      '/secret.txt',
    ]) {
      const response = await rawGet(open.url, path);
      assert.equal(response.status, 404, `${path}: ${response.status}`);
      assert.doesNotMatch(response.body, /not for the web|kgrag explorer/, path);
    }
    assert.equal((await rawGet(open.url, '/assets/..\\..\\secret.txt')).status, 400, 'a backslash in the path is refused outright');
  });

  test('the page and its files need no key; the API behind them still does', async () => {
    assert.equal((await fetch(`${keyed.url}/`)).status, 200);
    assert.equal((await fetch(`${keyed.url}/assets/index-77aa01.css`)).status, 200);
    assert.equal((await fetch(`${keyed.url}/v1/stats`)).status, 401);
    assert.equal((await fetch(`${keyed.url}/v1/stats`, { headers: auth })).status, 200);
  });

  test('without a build, / is a 503 that says to run npm run build; a rebuild is served without a restart', async () => {
    renameSync(join(web, 'index.html'), join(web, 'index.html.away'));
    try {
      const response = await fetch(`${open.url}/`);
      assert.equal(response.status, 503);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      const problem = await body<{ code: string; detail: string }>(response);
      assert.equal(problem.code, 'SERVER_EXPLORER_NOT_BUILT');
      assert.match(problem.detail, /npm run build/);
    } finally {
      renameSync(join(web, 'index.html.away'), join(web, 'index.html'));
    }
    assert.equal(await (await fetch(`${open.url}/`)).text(), page);
  });
});

describe('kgrag serve: what the logs and errors hold', () => {
  test('request logs carry an id, method, path and status — never the question, a search term or the key', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const server = await serveWorkspaces({
      layout: 'single',
      directory: await sampleWorkspace(),
      config: configSchema.parse({ server: { port: 0, apiKeys: [key] } }).server,
      version: 'test',
      logger: pino({ level: 'info' }, sink),
      openKgrag: (workspace) => createKgrag({ workspace, env: {} }),
    });
    try {
      const asked = await fetch(`${server.url}/v1/query`, { method: 'POST', headers: { ...json, 'x-request-id': 'trace-me-42' }, body: JSON.stringify({ question: 'Whisper the secret heron question', method: 'basic:bm25' }) });
      assert.equal(asked.status, 200);
      assert.equal(asked.headers.get('x-request-id'), 'trace-me-42');
      assert.equal((await fetch(`${server.url}/v1/entities?q=heronsecret`, { headers: auth })).status, 200);
      assert.equal((await fetch(`${server.url}/v1/stats`, { headers: { authorization: 'Bearer wrong-key-but-logged-never-000' } })).status, 403);
    } finally {
      await server.close();
    }
    const log = lines.join('');
    assert.match(log, /"requestId":"trace-me-42","method":"POST","path":"\/v1\/query","status":200/);
    assert.doesNotMatch(log, /heron|secret|test-key|wrong-key/i);
  });

  test('an unexpected failure answers 500 with the request id only: no message, path or stack of the error', async () => {
    const server = await serveWorkspaces({
      layout: 'folder',
      directory: await sampleWorkspace(),
      config: configSchema.parse({ server: { port: 0 } }).server,
      version: 'test',
      logger: pino({ level: 'silent' }),
      openKgrag: async () => {
        throw new Error('boom at /srv/private/path with sk-live-secret');
      },
    });
    try {
      const base = `${server.url}/v1/workspaces`;
      assert.equal((await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'broken' }) })).status, 500);
      const response = await fetch(`${base}/broken/stats`);
      assert.equal(response.status, 500);
      const text = await response.text();
      assert.doesNotMatch(text, /boom|private|sk-live|at .*\.ts/);
      const problem = JSON.parse(text) as { detail: string; requestId: string; code: string };
      assert.equal(problem.code, 'INTERNAL');
      assert.ok(problem.detail.includes(problem.requestId));
    } finally {
      await server.close();
    }
  });
});

describe('kgrag serve: a folder of workspaces', () => {
  test('names are validated, none reaches outside the folder, and a created workspace is served at its own prefix', async () => {
    const parent = await sampleWorkspace();
    const folder = join(parent, 'spaces');
    mkdirSync(folder);
    const server = await startTestServer({ directory: folder, layout: 'folder' });
    try {
      const base = `${server.url}/v1/workspaces`;
      assert.deepEqual(await body(await fetch(base)), { layout: 'folder', workspaces: [] });
      for (const name of ['..', '.hidden', 'a b', 'x'.repeat(65), '%2e%2e', 'con\u0000sole']) {
        const created = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
        assert.equal(created.status, 400, name);
      }
      for (const path of ['..%2F..%2Fetc/stats', '%2e%2e/stats', '..%5C..%5Cwindows/stats']) {
        const status = (await fetch(`${base}/${path}`)).status;
        assert.ok(status === 400 || status === 404, `${path}: ${status}`);
      }
      assert.equal((await fetch(`${base}/nosuch/stats`)).status, 404);
      const created = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'harbour' }) });
      assert.equal(created.status, 201);
      assert.equal((await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'harbour' }) })).status, 409);
      const added = await fetch(`${base}/harbour/documents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ documents: [{ title: 'Pilots', text: 'The pilot Ansel Trevarrow guided the barque Corvina over the bar in 1882.' }, { title: 'Bar', text: 'The bar at Kestermouth shifts with every winter storm.' }] }),
      });
      assert.equal(added.status, 202);
      const job = (await body<{ job: Job }>(added)).job;
      const events = await readEvents(await fetch(`${base}/harbour/jobs/${job.id}/events`));
      assert.equal((JSON.parse(events.at(-1)!.data) as Job).status, 'succeeded');
      const stats = await body<{ counts: { documents: number } }>(await fetch(`${base}/harbour/stats`));
      assert.equal(stats.counts.documents, 2);
      assert.deepEqual(await body(await fetch(base)), { layout: 'folder', workspaces: [{ name: 'harbour' }] });
      assert.equal((await fetch(`${server.url}/v1/stats`)).status, 404);
    } finally {
      await server.close();
    }
  });
});
