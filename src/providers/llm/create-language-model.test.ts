import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { llmConfigSchema } from '../../core/config/config-schema.js';
import type { LlmConfig } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import { createLanguageModel } from './create-language-model.js';
import { createMemoryLlmCache } from '../../testing/memory-llm-cache.js';
import { startMockOpenAiServer } from '../../testing/mock-openai-server.js';
import type { MockOpenAiServer } from '../../testing/mock-openai-server.js';
import type { RetryEvent } from './retry-policy.js';
import { createUsageMeter } from './usage-meter.js';

const config = (input: Record<string, unknown> = {}): LlmConfig => llmConfigSchema.parse(input);
const question = { messages: [{ role: 'user' as const, content: 'Who wrote A Christmas Carol?' }] };

/** A fetch that records where requests go and answers like an OpenAI server. */
function recordingFetch() {
  const calls: Array<{ url: string; authorization: string | null; body: Record<string, unknown> }> = [];
  const fetchSpy = (async (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    calls.push({ url: String(input), authorization: headers.get('authorization'), body: JSON.parse(String(init?.body)) as Record<string, unknown> });
    return new Response(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'gpt-4.1-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Dickens.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
      }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );
  }) as typeof fetch;
  return { calls, fetch: fetchSpy };
}

const servers: MockOpenAiServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('createLanguageModel', () => {
  it('returns undefined when no LLM is configured', () => {
    assert.equal(createLanguageModel(config({ provider: 'none', apiKey: 'sk-x' }), { env: {} }), undefined);
    assert.equal(createLanguageModel(config(), { env: {} }), undefined);
    assert.equal(createLanguageModel(config(), { env: { OPENAI_API_KEY: '  ' } }), undefined);
  });

  it('uses OPENAI_API_KEY with the OpenAI base URL when only a key is given', async () => {
    const spy = recordingFetch();
    const model = createLanguageModel(config(), { env: { OPENAI_API_KEY: 'sk-env' }, fetch: spy.fetch });
    assert.ok(model);
    const result = await model.generate(question);
    assert.equal(result.text, 'Dickens.');
    assert.equal(spy.calls[0]?.url, 'https://api.openai.com/v1/chat/completions');
    assert.equal(spy.calls[0]?.authorization, 'Bearer sk-env');
    assert.equal(spy.calls[0]?.body['model'], 'gpt-4.1-mini');
    assert.equal(spy.calls[0]?.body['temperature'], 0, 'the configured temperature is sent');
  });

  it('uses OPENAI_BASE_URL with a placeholder key for local servers', async () => {
    const spy = recordingFetch();
    const model = createLanguageModel(config({ model: 'llama3.1' }), { env: { OPENAI_BASE_URL: 'http://localhost:11434/v1' }, fetch: spy.fetch });
    assert.ok(model);
    await model.generate(question);
    assert.equal(spy.calls[0]?.url, 'http://localhost:11434/v1/chat/completions');
    assert.match(spy.calls[0]?.authorization ?? '', /^Bearer \S+/);
  });

  it('prefers the configuration over the environment', async () => {
    const spy = recordingFetch();
    const model = createLanguageModel(config({ baseURL: 'http://config.example/v1', apiKey: 'sk-config' }), {
      env: { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: 'http://env.example/v1' },
      fetch: spy.fetch,
    });
    await model?.generate(question);
    assert.equal(spy.calls[0]?.url, 'http://config.example/v1/chat/completions');
    assert.equal(spy.calls[0]?.authorization, 'Bearer sk-config');
  });

  it('rejects an explicit openai-compatible provider without an endpoint', () => {
    assert.throws(
      () => createLanguageModel(config({ provider: 'openai-compatible' }), { env: {} }),
      (error) => KgragError.isInstance(error) && error.category === 'config' && error.hint !== undefined,
    );
  });

  it('composes meter, cache and retry over the real adapter', async () => {
    const server = await startMockOpenAiServer({ reply: () => 'Charles Dickens.', faults: { sequence: ['429', '500'] } });
    servers.push(server);
    const meter = createUsageMeter({ pricePerMillionTokens: { input: 1, output: 1 } });
    const retries: RetryEvent[] = [];
    const model = createLanguageModel(config({ baseURL: server.url, model: 'mock-model', requestsPerMinute: 600, tokensPerMinute: 1_000_000 }), {
      env: {},
      cache: createMemoryLlmCache(),
      meter,
      sleep: async () => undefined,
      rng: () => 0,
      onRetry: (event) => retries.push(event),
    });
    assert.ok(model);
    const first = await model.generate({ ...question, purpose: 'answer' });
    const second = await model.generate({ ...question, purpose: 'answer' });
    assert.equal(first.text, 'Charles Dickens.');
    assert.equal(second.cached, true);
    assert.deepEqual(
      retries.map((event) => event.error.code),
      ['LLM_RATE_LIMITED', 'LLM_SERVER_ERROR'],
    );
    assert.equal(server.stats.completions, 3);
    const usage = meter.snapshot();
    assert.equal(usage.calls, 1);
    assert.equal(usage.cachedCalls, 1);
    assert.equal(usage.failedCalls, 0, 'retried faults are not failures of the call');
    assert.equal(usage.byPurpose['answer']?.outputTokens, first.usage.outputTokens);
  });
});
