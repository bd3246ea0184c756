import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { llmConfigSchema } from '../src/core/config/config-schema.js';
import { loadConfig } from '../src/core/config/load-config.js';
import { KgragError } from '../src/core/errors.js';
import { createOpenAiCompatibleEmbedder } from '../src/providers/embed/openai-compatible-embedder.js';
import { createLanguageModel } from '../src/providers/llm/create-language-model.js';
import { LlmCallError } from '../src/providers/llm/llm-call-error.js';
import { type MockOpenAiServer, type MockOpenAiServerOptions, startMockOpenAiServer } from '../src/testing/mock-openai-server.js';
import { createOpenAiCompatibleLanguageModel } from '../src/providers/llm/openai-compatible-language-model.js';
import { runCliCaptured } from './helpers/run-cli-captured.js';

/*
 * Issue 16, item 5 and the URL secrets: a runaway reply from the model server is cut at a configured size
 * (the request aborted, the failure reported as the model's, never retried), and credentials written into
 * a base URL never reach a message. Everything runs against the loopback mock server over real HTTP.
 */

const root = mkdtempSync(join(tmpdir(), 'kgrag-reliability-llm-'));
const servers: MockOpenAiServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(root, { recursive: true, force: true });
});

async function serve(options: MockOpenAiServerOptions): Promise<MockOpenAiServer> {
  const server = await startMockOpenAiServer(options);
  servers.push(server);
  return server;
}

/** 64 MiB: big enough that accepting it is unmistakable, small enough to stream in about a second. */
const hugeReplyBytes = 64 * 1024 * 1024;
const smallCap = 256 * 1024;
const question = { messages: [{ role: 'user' as const, content: 'Say something.' }] };

function isReplyTooLarge(error: unknown): boolean {
  assert.ok(LlmCallError.isInstance(error), `expected an LlmCallError, got ${String(error)}`);
  assert.equal(error.code, 'LLM_REPLY_TOO_LARGE');
  assert.equal(error.category, 'provider');
  assert.equal(error.retryable, false);
  assert.match(error.message, /262,144 bytes/, 'names the limit');
  assert.match(error.message, /llm\.maxReplyBytes|embeddings\.maxReplyBytes/, 'names the key');
  assert.match(error.hint ?? '', /Raise (llm|embeddings)\.maxReplyBytes/);
  return true;
}

describe('an oversized reply', () => {
  test('a streamed, endless reply is aborted at llm.maxReplyBytes and not retried', async () => {
    const server = await serve({ faults: { sequence: ['oversized-reply'] } });
    const model = createLanguageModel(llmConfigSchema.parse({ baseURL: server.url, model: 'mock-model', maxReplyBytes: smallCap, retryBaseDelayMs: 0, timeoutMs: 20_000 }));
    assert.ok(model);
    await assert.rejects(async () => {
      for await (const part of model.stream(question)) void part;
    }, isReplyTooLarge);
    assert.equal(server.stats.completions, 1, 'the runaway reply is not asked for again');
    assert.equal(server.stats.faults['oversized-reply'], 1);
  });

  test('a 64 MiB JSON reply is aborted at the cap, and the next call works', async () => {
    const server = await serve({ faults: { sequence: ['oversized-reply'], oversizedReplyBytes: hugeReplyBytes } });
    const model = createOpenAiCompatibleLanguageModel({ baseURL: server.url, modelId: 'mock-model', maxReplyBytes: smallCap });
    await assert.rejects(model.generate(question), isReplyTooLarge);
    const next = await model.generate(question);
    assert.match(next.text, /^mock reply/);
  });

  test('a Content-Length over the cap fails before the body is read', async () => {
    const server = await serve({ reply: () => 'x'.repeat(2 * smallCap) });
    const model = createOpenAiCompatibleLanguageModel({ baseURL: server.url, modelId: 'mock-model', maxReplyBytes: smallCap });
    await assert.rejects(model.generate(question), (error: unknown) => {
      assert.ok(LlmCallError.isInstance(error) && error.code === 'LLM_REPLY_TOO_LARGE');
      return true;
    });
  });

  test('an embeddings response past embeddings.maxReplyBytes is aborted the same way', async () => {
    const server = await serve({ faults: { sequence: ['oversized-reply'], oversizedReplyBytes: hugeReplyBytes } });
    const embedder = createOpenAiCompatibleEmbedder({ baseURL: server.url, modelId: 'mock-embed', batchSize: 8, maxReplyBytes: smallCap, retry: { maxRetries: 2, baseDelayMs: 0 } });
    await assert.rejects(embedder.embed(['one text', 'another']), isReplyTooLarge);
    assert.equal(server.stats.embeddings, 1);
  });

  test('the CLI survives it: exit 1, one line blaming the model server, not a crash or a bug report', async () => {
    const server = await serve({ faults: { sequence: ['oversized-reply'], oversizedReplyBytes: hugeReplyBytes } });
    const run = await runCliCaptured(
      ['generate-questions', '--description', 'a corpus', '--personas', '1', '--tasks', '1', '--questions', '1', '-w', join(root, 'ws')],
      { cwd: root, env: { KGRAG_LLM_BASE_URL: server.url, KGRAG_LLM_MODEL: 'mock-model', KGRAG_LLM_MAX_REPLY_BYTES: String(smallCap) } },
    );
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /^kgrag: error: LLM call to "mock-model" was aborted: .* over the 262,144 bytes .* limit of llm\.maxReplyBytes — .*Raise llm\.maxReplyBytes/m);
    assert.doesNotMatch(run.stderr, /bug in kgrag/);
    assert.equal(server.stats.completions, 1);
  });

  test('llm.maxReplyBytes is a validated key with a default well above a real completion', async () => {
    const { config } = await loadConfig({ workspace: join(root, 'defaults'), env: {} });
    assert.equal(config.llm.maxReplyBytes, 32 * 1024 * 1024);
    await assert.rejects(loadConfig({ workspace: join(root, 'defaults'), env: { KGRAG_LLM_MAX_REPLY_BYTES: '0' } }), /llm\.maxReplyBytes/);
  });
});

describe('secrets in a base URL', () => {
  const secrets = ['hunter2', 'sk-live-123', 'tok-456'];
  const assertNoSecret = (text: string): void => {
    for (const secret of secrets) assert.ok(!text.includes(secret), `"${secret}" leaked into: ${text}`);
  };
  const everything = (error: unknown): string => {
    assert.ok(KgragError.isInstance(error), String(error));
    return [error.message, error.hint ?? '', JSON.stringify(error.details ?? {})].join('\n');
  };

  test('query keys are redacted from provider errors; the API version stays readable', async () => {
    const server = await serve({ models: ['served-model'] });
    const baseURL = `${server.url}?api-version=2024-06-01&key=sk-live-123&token=tok-456`;
    const model = createOpenAiCompatibleLanguageModel({ baseURL, modelId: 'missing-model' });
    const error = await model.generate(question).catch((caught: unknown) => caught);
    assert.ok(LlmCallError.isInstance(error) && error.code === 'LLM_NOT_FOUND', String(error));
    const text = everything(error);
    assertNoSecret(text);
    assert.match(text, /api-version=2024-06-01&key=\*\*\*&token=\*\*\*/);
  });

  test('a user and password in the URL are redacted from a failed request and refused by the configuration', async () => {
    const server = await serve({ models: ['served-model'] });
    const withPassword = server.url.replace('http://', 'http://admin:hunter2@');
    const model = createOpenAiCompatibleLanguageModel({ baseURL: withPassword, modelId: 'mock-model' });
    const error = await model.generate(question).catch((caught: unknown) => caught);
    assertNoSecret(everything(error));
    const embedder = createOpenAiCompatibleEmbedder({ baseURL: `${server.url}?key=sk-live-123`, modelId: 'missing-model', batchSize: 4, retry: { maxRetries: 0 } });
    const embedError = await embedder.embed(['text']).catch((caught: unknown) => caught);
    assert.ok(LlmCallError.isInstance(embedError) && embedError.code === 'LLM_NOT_FOUND', String(embedError));
    assert.match(everything(embedError), /key=\*\*\*/);
    assertNoSecret(everything(embedError));
    const config = await loadConfig({ workspace: join(root, 'config'), env: { KGRAG_LLM_BASE_URL: withPassword } }).catch((caught: unknown) => caught);
    assert.ok(KgragError.isInstance(config) && config.code === 'CONFIG_INVALID');
    assert.match(config.message, /llm\.baseURL: must not contain a user name or password/);
    assertNoSecret(everything(config));
  });

  test('the CLI never prints them', async () => {
    const server = await serve({ models: ['served-model'] });
    const run = await runCliCaptured(['generate-questions', '--description', 'a corpus', '-w', join(root, 'ws-secret')], {
      cwd: root,
      env: { KGRAG_LLM_BASE_URL: `${server.url}?key=sk-live-123`, KGRAG_LLM_MODEL: 'missing-model', KGRAG_LLM_MAX_RETRIES: '0' },
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /key=\*\*\*/);
    assertNoSecret(run.stdout + run.stderr);
  });
});
