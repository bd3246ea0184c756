import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createKgrag, type KgragOptions } from '../src/api/create-kgrag.js';
import { startMockOpenAiServer, type MockChatCompletionRequest, type MockOpenAiServer } from '../src/testing/index.js';

const corpus = fileURLToPath(new URL('../examples/sample-corpus', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgrag-llm-'));

/** Answers like a model would: cites the first source row of the context, plus one id that does not exist. */
function answerFromContext(request: MockChatCompletionRequest): string {
  const system = request.messages.find((message) => message.role === 'system')?.content ?? '';
  const row = /^(\d+)\|Kester Weir Bridge\|/m.exec(system) ?? /-----Sources-----\nid\|title\|text\n(\d+)\|/.exec(system);
  return `The Kester Weir Bridge was opened on 14 May 1938 [Data: Sources (${row?.[1] ?? '0'}, 9999)].`;
}

describe('generated answers over real HTTP (loopback OpenAI-compatible mock)', () => {
  let server: MockOpenAiServer;
  const workspace = join(root, 'ws');
  const options = (): KgragOptions => ({
    workspace,
    env: {},
    config: {
      llm: {
        baseURL: server.url,
        model: 'mock-model',
        maxRetries: 3,
        retryBaseDelayMs: 1,
        retryMaxDelayMs: 5,
        prices: { 'Mock-Model': { input: 1, output: 10 } },
      },
    },
  });

  before(async () => {
    server = await startMockOpenAiServer({ reply: answerFromContext, faults: { sequence: ['429', '500'] } });
    const kgrag = await createKgrag(options());
    await kgrag.index([corpus]);
    assert.equal(server.stats.completions, 0, 'fast-mode indexing calls no LLM');
    await kgrag.close();
  });

  after(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('the answer is generated from the packed context, cites real ids, and counts invented ones', async () => {
    const kgrag = await createKgrag(options());
    const result = await kgrag.query('On what date was the Kester Weir Bridge opened?');
    assert.equal(result.answer.kind, 'generated');
    assert.equal(result.answer.label, undefined);
    assert.match(result.answer.text, /14 May 1938/);
    assert.equal(result.citations.length, 1);
    assert.equal(result.citations[0]?.title, 'Kester Weir Bridge');
    assert.equal(result.trace.unknownReferences, 1, 'the reference to source 9999 matched nothing in the context');
    assert.equal(result.usage.llmCalls, 1);
    assert.ok(result.usage.inputTokens > 100);
    assert.equal(server.stats.faults['429'], 1, 'the 429 was retried');
    assert.equal(server.stats.faults['500'], 1, 'the 500 was retried');
    assert.equal(kgrag.usage().calls, 1);
    const expectedCost = (result.usage.inputTokens * 1 + result.usage.outputTokens * 10) / 1e6;
    assert.ok(Math.abs(result.usage.costUsd - expectedCost) < 1e-12, 'the query is priced from llm.prices (ids match case-insensitively)');
    assert.ok(Math.abs(kgrag.usage().costUsd - expectedCost) < 1e-12, 'so is the workspace usage');
    await kgrag.close();
  });

  test('the answer of a repeated question comes from the workspace cache, also after reopening', async () => {
    const before = server.stats.completions;
    const kgrag = await createKgrag(options());
    const result = await kgrag.query('On what date was the Kester Weir Bridge opened?');
    assert.equal(server.stats.completions, before, 'no request reached the server');
    assert.equal(result.usage.llmCalls, 0);
    assert.match(result.answer.text, /14 May 1938/);
    assert.equal(kgrag.usage().cachedCalls, 1);
    await kgrag.close();
  });

  test('streaming delivers the answer in deltas that add up to the final text', async () => {
    const kgrag = await createKgrag(options());
    let streamed = '';
    const result = await kgrag.query('When was the bridge over the Kester opened, exactly?', { onText: (delta) => (streamed += delta) });
    assert.ok(streamed.length > 0);
    assert.equal(streamed.trim(), result.answer.text);
    await kgrag.close();
  });

  test('--context-only assembles the context without calling the model', async () => {
    const before = server.stats.completions;
    const kgrag = await createKgrag(options());
    const result = await kgrag.query('Who founded Quaymark Software?', { contextOnly: true });
    assert.equal(server.stats.completions, before);
    assert.equal(result.answer.kind, 'none');
    assert.ok(result.context.tokens > 0 && result.context.tokens <= kgrag.config.query.maxContextTokens);
    assert.match(result.context.text, /Quaymark/);
    await kgrag.close();
  });

  test('a server that keeps failing ends with one clear provider error', async () => {
    const failing = await startMockOpenAiServer({ faults: { rate: 1, kinds: ['500'], maxFaultsPerRequest: 100 } });
    const kgrag = await createKgrag({ ...options(), config: { llm: { baseURL: failing.url, maxRetries: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 2 } } });
    await assert.rejects(kgrag.query('On what date was the Kester Weir Bridge opened?'), (error: unknown) => {
      const message = (error as Error).message;
      return (error as { code?: string }).code === 'LLM_RETRIES_EXHAUSTED' && /3 attempts/.test(message);
    });
    await kgrag.close();
    await failing.close();
  });
});
