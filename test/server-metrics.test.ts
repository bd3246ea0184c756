// `/metrics` of `kgrag serve`: Prometheus' text format with the series an operator graphs — request latency by route
// pattern, index jobs by state, step durations, LLM calls, tokens and cost — behind the API key unless
// `server.metricsPublic` opens it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createScriptedLanguageModel } from '../src/testing/index.js';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { readEvents, sampleWorkspace, startTestServer } from './helpers/test-server.js';

/** The samples of a scrape: `name{labels}` → value (labels as written, sorted by the server). */
function parseScrape(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.length === 0 || line.startsWith('#')) continue;
    const split = line.lastIndexOf(' ');
    samples.set(line.slice(0, split), Number(line.slice(split + 1)));
  }
  return samples;
}

/** The value of the sample of `name` whose labels include every one of `labels`, or undefined. */
function sample(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const [key, value] of samples) {
    const open = key.indexOf('{');
    if ((open < 0 ? key : key.slice(0, open)) !== name) continue;
    if (Object.entries(labels).every(([label, wanted]) => key.includes(`${label}="${wanted}"`))) return value;
  }
  return undefined;
}

const key = 'metrics-test-key-0123456789abcdef';

describe('/metrics', () => {
  let server: ServedWorkspaces;
  let base: string;
  const llm = createScriptedLanguageModel({ modelId: 'gpt-4.1-mini', responses: [], fallback: 'The ferry crosses at noon [Data: Sources (1)].' });

  before(async () => {
    server = await startTestServer({ directory: await sampleWorkspace(), server: { apiKeys: [key] }, kgrag: { llm, config: { index: { mode: 'fast' } } } });
    base = `${server.url}/v1`;
  });
  after(async () => {
    await server.close();
  });

  const authorized = { authorization: `Bearer ${key}` };

  test('has request latency by route pattern, jobs by state, step durations and the LLM calls of queries', async () => {
    for (let asked = 0; asked < 3; asked++) {
      const answered = await fetch(`${base}/query`, { method: 'POST', headers: { ...authorized, 'content-type': 'application/json' }, body: JSON.stringify({ question: 'When does the ferry cross?', method: 'basic:bm25' }) });
      assert.equal(answered.status, 200, await answered.text());
    }
    assert.equal((await fetch(`${base}/documents/no-such-document`, { headers: authorized })).status, 404);
    const submitted = await fetch(`${base}/documents`, { method: 'POST', headers: { ...authorized, 'content-type': 'application/json' }, body: JSON.stringify({ documents: [{ title: 'Skerrow light', text: 'The Skerrow light is green and shows every nine seconds.' }] }) });
    const { job } = (await submitted.json()) as { job: { id: string } };
    const events = await readEvents(await fetch(`${base}/jobs/${job.id}/events`, { headers: authorized }));
    assert.equal(JSON.parse(events.at(-1)?.data ?? '{}').status, 'succeeded');

    const scrape = await fetch(`${server.url}/metrics`, { headers: authorized });
    assert.equal(scrape.status, 200);
    assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const samples = parseScrape(await scrape.text());
    assert.equal(sample(samples, 'kgrag_http_request_duration_seconds_count', { route: '/v1/query', method: 'POST', status: '200' }), 3);
    // The pattern, not the id a caller sent.
    assert.equal(sample(samples, 'kgrag_http_request_duration_seconds_count', { route: '/v1/documents/:id', method: 'GET', status: '404' }), 1);
    assert.ok(![...samples.keys()].some((name) => name.includes('no-such-document')));
    assert.equal(sample(samples, 'kgrag_index_jobs', { workspace: 'default', state: 'running' }), 0);
    assert.equal(sample(samples, 'kgrag_index_jobs', { workspace: 'default', state: 'queued' }), 0);
    assert.equal(sample(samples, 'kgrag_index_jobs_ended_total', { workspace: 'default', status: 'succeeded' }), 1);
    for (const step of ['load', 'chunk', 'embed-chunks']) assert.equal(sample(samples, 'kgrag_index_step_duration_seconds_count', { step }), 1, step);
    assert.equal(sample(samples, 'kgrag_llm_calls_total', { model: 'gpt-4.1-mini', source: 'queries' }), llm.calls.length);
    assert.ok(llm.calls.length >= 3);
    assert.ok((sample(samples, 'kgrag_llm_tokens_total', { model: 'gpt-4.1-mini', kind: 'input', source: 'queries' }) ?? 0) > 0);
    assert.ok((sample(samples, 'kgrag_llm_cost_usd_total', { model: 'gpt-4.1-mini', source: 'queries' }) ?? 0) > 0, 'a priced model has a cost');
    assert.ok((sample(samples, 'kgrag_process_cpu_seconds_total') ?? 0) > 0, "the process's own series");
    // A SQLite workspace has no pool.
    assert.equal(sample(samples, 'kgrag_store_pool_connections'), undefined);
  });

  test('needs the API key like any endpoint', async () => {
    assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
  });

  test('server.metricsPublic serves it without a key', async () => {
    const open = await startTestServer({ directory: await sampleWorkspace(), server: { apiKeys: [key], metricsPublic: true } });
    try {
      assert.equal((await fetch(`${open.url}/metrics`)).status, 200);
      assert.equal((await fetch(`${open.url}/v1/stats`)).status, 401, 'only /metrics is opened');
    } finally {
      await open.close();
    }
  });
});
