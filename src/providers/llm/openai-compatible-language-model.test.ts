import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import type { Deadline } from '../../core/start-deadline.js';
import { generateObject } from './generate-object.js';
import type { ChatRequest, ChatStreamPart, LanguageModel } from './language-model.js';
import { LlmCallError } from './llm-call-error.js';
import { startMockOpenAiServer } from '../../testing/mock-openai-server.js';
import type { MockOpenAiServer, MockOpenAiServerOptions, MockRecordedRequest } from '../../testing/mock-openai-server.js';
import { createOpenAiCompatibleLanguageModel } from './openai-compatible-language-model.js';
import type { OpenAiCompatibleLanguageModelOptions } from './openai-compatible-language-model.js';
import type { RetryEvent } from './retry-policy.js';
import { retryMiddleware } from './retry-middleware.js';
import type { SdkLanguageModelMiddleware } from './sdk-types.js';
import { timeoutMiddleware } from './timeout-middleware.js';

const question: ChatRequest = { messages: [{ role: 'user', content: 'What is the capital of France?' }] };
const entitySchema = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
  additionalProperties: false,
};

interface Harness {
  server: MockOpenAiServer;
  bodies: Array<Record<string, unknown>>;
  model: LanguageModel;
}

const open: MockOpenAiServer[] = [];

async function harness(
  serverOptions: MockOpenAiServerOptions = {},
  modelOptions: Partial<OpenAiCompatibleLanguageModelOptions> = {},
): Promise<Harness> {
  const bodies: Array<Record<string, unknown>> = [];
  const server = await startMockOpenAiServer({
    ...serverOptions,
    onRequest: (request: MockRecordedRequest) => {
      if (request.path.endsWith('/chat/completions')) bodies.push(request.body as Record<string, unknown>);
      serverOptions.onRequest?.(request);
    },
  });
  open.push(server);
  const model = createOpenAiCompatibleLanguageModel({ baseURL: server.url, modelId: 'mock-model', ...modelOptions });
  return { server, bodies, model };
}

function recordingSleep(): { sleeps: number[]; sleep: (ms: number) => Promise<void> } {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms) => void sleeps.push(ms) };
}

async function collect(stream: AsyncIterable<ChatStreamPart>): Promise<{ text: string; parts: ChatStreamPart[] }> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  const text = parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
  return { text, parts };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

after(async () => {
  await Promise.all(open.map((server) => server.close()));
});

describe('createOpenAiCompatibleLanguageModel against the mock server', () => {
  it('returns the text, server-reported usage and model id', async () => {
    const { model } = await harness({ reply: () => 'Paris.' });
    const result = await model.generate(question);
    assert.equal(result.text, 'Paris.');
    assert.equal(result.finishReason, 'stop');
    assert.equal(result.modelId, 'mock-model');
    assert.ok(result.usage.inputTokens > 0);
    assert.equal(result.usage.outputTokens, 2);
    assert.equal(result.usage.estimated, undefined);
  });

  it('estimates usage with countTokens when the server reports none', async () => {
    const { model } = await harness({ reply: () => 'one two three', reportUsage: false }, { countTokens: (text) => text.split(' ').length });
    const result = await model.generate(question);
    assert.equal(result.usage.outputTokens, 3);
    assert.equal(result.usage.estimated, true);
    assert.ok(result.usage.inputTokens > 0);
  });

  it('maps temperature, maxOutputTokens, topP, seed and stop onto the request body', async () => {
    const { model, bodies } = await harness();
    await model.generate({ ...question, temperature: 0.3, maxOutputTokens: 50, topP: 0.9, seed: 7, stop: ['END'] });
    const body = bodies[0] ?? {};
    assert.equal(body['temperature'], 0.3);
    assert.equal(body['max_tokens'], 50);
    assert.equal(body['top_p'], 0.9);
    assert.equal(body['seed'], 7);
    assert.deepEqual(body['stop'], ['END']);
    assert.equal(body['model'], 'mock-model');
  });

  it('reports finishReason length when the reply hits maxOutputTokens', async () => {
    const { model } = await harness({ reply: () => 'x'.repeat(400) });
    const result = await model.generate({ ...question, maxOutputTokens: 10 });
    assert.equal(result.finishReason, 'length');
  });

  it('returns the raw text of JSON requests, even when it is not valid JSON, and sends json_schema', async () => {
    const { model, bodies } = await harness({ reply: () => '```json\n{"name": "Paris",}\n```' });
    const result = await model.generate({ ...question, responseFormat: { type: 'json', schema: entitySchema, name: 'entity' } });
    assert.equal(result.text, '```json\n{"name": "Paris",}\n```');
    const format = bodies[0]?.['response_format'] as { type: string; json_schema: { name: string; schema: unknown; strict: boolean } };
    assert.equal(format.type, 'json_schema');
    assert.equal(format.json_schema.name, 'entity');
    assert.deepEqual(format.json_schema.schema, entitySchema);
    assert.equal(format.json_schema.strict, true);
  });

  it('sends a non-strict schema when OpenAI strict mode would reject it (optional properties, open maps)', async () => {
    const { model, bodies } = await harness({ reply: () => '{}' });
    const optional = { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false };
    const map = {
      type: 'object',
      properties: { scores: { type: 'object', additionalProperties: { type: 'number' } } },
      required: ['scores'],
      additionalProperties: false,
    };
    for (const schema of [optional, map]) await model.generate({ ...question, responseFormat: { type: 'json', schema } });
    const strictness = bodies.map((body) => (body['response_format'] as { json_schema: { strict: boolean } }).json_schema.strict);
    assert.deepEqual(strictness, [false, false]);
  });

  it('in json_object mode sends JSON mode and puts the schema into the system prompt', async () => {
    const { model, bodies } = await harness({ reply: () => '{"name":"Paris"}' }, { structuredOutputs: 'json_object' });
    await model.generate({
      messages: [
        { role: 'system', content: 'You extract entities.' },
        { role: 'user', content: 'Paris is in France.' },
      ],
      responseFormat: { type: 'json', schema: entitySchema },
    });
    const body = bodies[0] ?? {};
    assert.deepEqual(body['response_format'], { type: 'json_object' });
    const messages = body['messages'] as Array<{ role: string; content: string }>;
    assert.equal(messages.length, 2);
    assert.equal(messages[0]?.role, 'system');
    assert.match(messages[0]?.content ?? '', /^You extract entities\.[\s\S]*JSON Schema:\n\{"type":"object"/);
  });

  it('auto mode falls back to json_object for good when the server rejects json_schema', async () => {
    const { model, bodies, server } = await harness({ rejectJsonSchema: true, reply: () => '{"name":"Paris"}' });
    const request: ChatRequest = { ...question, responseFormat: { type: 'json', schema: entitySchema } };
    const first = await model.generate(request);
    assert.equal(first.text, '{"name":"Paris"}');
    const streamed = await collect(model.stream(request));
    assert.equal(streamed.text, '{"name":"Paris"}');
    assert.deepEqual(
      bodies.map((body) => (body['response_format'] as { type: string }).type),
      ['json_schema', 'json_object', 'json_object'],
    );
    assert.equal(server.stats.completions, 3);
  });

  it('a json_schema mode model does not fall back: the rejection is a clear bad-request error', async () => {
    const { model } = await harness({ rejectJsonSchema: true }, { structuredOutputs: 'json_schema' });
    const error = await rejection(model.generate({ ...question, responseFormat: { type: 'json', schema: entitySchema } }));
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_BAD_REQUEST');
    assert.equal(error.status, 400);
    assert.equal(error.retryable, false);
  });

  it('streams deltas and a finish part with server usage (include_usage honoured)', async () => {
    const { model, bodies } = await harness({ reply: () => 'Paris is the capital of France.' });
    const { text, parts } = await collect(model.stream(question));
    assert.equal(text, 'Paris is the capital of France.');
    assert.ok(parts.filter((part) => part.type === 'text-delta').length > 1);
    const finish = parts.at(-1);
    assert.equal(finish?.type, 'finish');
    if (finish?.type !== 'finish') return;
    assert.equal(finish.result.text, text);
    assert.equal(finish.result.usage.estimated, undefined);
    assert.equal(finish.result.usage.outputTokens, Math.ceil(text.length / 4));
    assert.deepEqual(bodies[0]?.['stream_options'], { include_usage: true });
  });

  it('passes an aborted signal through as an abort, not as an LlmCallError', async () => {
    const { model } = await harness();
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(model.generate({ ...question, abortSignal: controller.signal }));
    assert.equal(LlmCallError.isInstance(error), false);
    assert.equal((error as Error).name, 'AbortError');
  });
});

describe('error mapping', () => {
  it('401 becomes LLM_AUTHENTICATION_FAILED with an API key hint', async () => {
    const { model } = await harness({ apiKey: 'right' }, { apiKey: 'wrong' });
    const error = await rejection(model.generate(question));
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_AUTHENTICATION_FAILED');
    assert.equal(error.status, 401);
    assert.equal(error.retryable, false);
    assert.match(error.hint ?? '', /API key/);
  });

  it('404 for an unknown model names the model and the /models list', async () => {
    const { model } = await harness({ models: ['other-model'] });
    const error = await rejection(model.generate(question));
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_NOT_FOUND');
    assert.match(error.message, /mock-model/);
    assert.match(error.hint ?? '', /llm\.model/);
  });

  it('404 for a wrong base URL suggests /v1', async () => {
    const server = await startMockOpenAiServer();
    open.push(server);
    const model = createOpenAiCompatibleLanguageModel({ baseURL: server.url.replace(/\/v1$/, ''), modelId: 'mock-model' });
    const error = await rejection(model.generate(question));
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_NOT_FOUND');
    assert.match(error.hint ?? '', /\/v1/);
  });

  it('connection refused names the URL and says to start the server', async () => {
    const server = await startMockOpenAiServer();
    await server.close();
    const model = createOpenAiCompatibleLanguageModel({ baseURL: server.url, modelId: 'mock-model' });
    const error = await rejection(model.generate(question));
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_SERVER_UNREACHABLE');
    assert.equal(error.retryable, true);
    assert.ok(error.message.includes(server.url));
    assert.match(error.hint ?? '', /Start the LLM server/);
  });

  it('context-length errors get their own code and hint', async () => {
    const { model } = await harness({ maxContextTokens: 5 });
    const error = await rejection(model.generate(question));
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_CONTEXT_LENGTH_EXCEEDED');
    assert.equal(error.retryable, false);
    assert.match(error.hint ?? '', /maxContextTokens/);
  });

  it('a stream that ends without a finish reason throws a retryable LLM_TRUNCATED_STREAM', async () => {
    const { model } = await harness({ reply: () => 'a fairly long reply that is cut half way', faults: { sequence: ['truncated-stream'] } });
    const parts: ChatStreamPart[] = [];
    const error = await rejection(
      (async () => {
        for await (const part of model.stream(question)) parts.push(part);
      })(),
    );
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_TRUNCATED_STREAM');
    assert.equal(error.retryable, true);
    assert.ok(parts.length > 0, 'the partial deltas reached the caller');
    assert.ok(parts.every((part) => part.type === 'text-delta'));
  });

  it('a stream whose connection drops mid-way (the SDK throws instead of emitting an error part) is LLM_TRUNCATED_STREAM too', async () => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: 'partial' }, finish_reason: null }] };
        response.write(`data: ${JSON.stringify(chunk)}\n\n`, () => setImmediate(() => response.socket?.destroy()));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const model = createOpenAiCompatibleLanguageModel({ baseURL: `http://127.0.0.1:${port}/v1`, modelId: 'm' });
      const error = await rejection(collect(model.stream(question)));
      assert.ok(LlmCallError.isInstance(error));
      assert.equal(error.code, 'LLM_TRUNCATED_STREAM');
      assert.equal(error.retryable, true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('faults, retried through retryMiddleware (injected sleep and jitter)', () => {
  let retries: RetryEvent[] = [];
  let sleeps: number[] = [];
  let sleep: (ms: number) => Promise<void>;
  const retrying = (below: SdkLanguageModelMiddleware[] = [], maxRetries = 3): SdkLanguageModelMiddleware[] => [
    retryMiddleware({ maxRetries, baseDelayMs: 100, rng: () => 0.5, sleep, onRetry: (event) => retries.push(event) }),
    ...below,
  ];

  before(() => {
    ({ sleeps, sleep } = recordingSleep());
  });
  const reset = (): void => {
    retries = [];
    ({ sleeps, sleep } = recordingSleep());
  };

  it('429 then success, waiting at least retry-after', async () => {
    reset();
    const { model, server } = await harness({ reply: () => 'ok', faults: { sequence: ['429'], retryAfterSeconds: 3 } }, { middleware: retrying() });
    const result = await model.generate(question);
    assert.equal(result.text, 'ok');
    assert.equal(server.stats.faults['429'], 1);
    assert.equal(retries[0]?.error.code, 'LLM_RATE_LIMITED');
    assert.equal(retries[0]?.error.retryAfterMs, 3000);
    assert.deepEqual(sleeps, [3000]);
  });

  it('500 until the retries run out: LLM_RETRIES_EXHAUSTED with attempts, last status and a hint', async () => {
    reset();
    const { model, server } = await harness({ faults: { sequence: ['500', '500', '500', '500'] } }, { middleware: retrying() });
    const error = await rejection(model.generate(question));
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_RETRIES_EXHAUSTED');
    assert.equal(error.status, 500);
    assert.equal(error.retryable, false);
    assert.match(error.message, /after 4 attempts \(last: HTTP 500\)/);
    assert.match(error.hint ?? '', /server-side problem/);
    assert.equal(server.stats.completions, 4);
    assert.deepEqual(sleeps, [50, 100, 200]);
  });

  it('a malformed body is retried', async () => {
    reset();
    const { model } = await harness({ reply: () => 'fine', faults: { sequence: ['malformed-body'] } }, { middleware: retrying() });
    const result = await model.generate(question);
    assert.equal(result.text, 'fine');
    assert.equal(retries[0]?.error.code, 'LLM_MALFORMED_RESPONSE');
  });

  it('a body cut mid-way is retried', async () => {
    reset();
    const { model } = await harness({ reply: () => 'complete', faults: { sequence: ['truncated-stream'] } }, { middleware: retrying() });
    const result = await model.generate(question);
    assert.equal(result.text, 'complete');
    assert.equal(retries[0]?.error.code, 'LLM_MALFORMED_RESPONSE');
  });

  it('a timeout becomes LLM_TIMEOUT and is retried', async () => {
    reset();
    // Each call's deadline expires when the test says so: the first once the server holds the request (its
    // timeout fault never answers), the retry never — so a slow machine cannot time out the retry too.
    const deadlines: AbortController[] = [];
    const deadline = (_timeoutMs: number, callerSignal: AbortSignal | undefined): Deadline => {
      const timer = new AbortController();
      deadlines.push(timer);
      return { signal: callerSignal ? AbortSignal.any([callerSignal, timer.signal]) : timer.signal, expired: timer.signal, clear: () => undefined };
    };
    let chats = 0;
    const { model, server } = await harness({
      reply: () => 'eventually',
      faults: { sequence: ['timeout'] },
      onRequest: (request) => {
        if (request.path.endsWith('/chat/completions') && chats++ === 0) deadlines[0]?.abort(new DOMException('timed out after 150 ms', 'TimeoutError'));
      },
    }, { middleware: retrying([timeoutMiddleware({ timeoutMs: 150, deadline })]) });
    const result = await model.generate(question);
    assert.equal(result.text, 'eventually');
    assert.equal(retries[0]?.error.code, 'LLM_TIMEOUT');
    assert.equal(server.stats.completions, 2);
  });

  it('a stream cut before its first delta is retried', async () => {
    reset();
    const { model } = await harness({ reply: () => 'streamed reply', faults: { sequence: ['truncated-stream'], truncatedStreamDeltas: 0 } }, { middleware: retrying() });
    const { text, parts } = await collect(model.stream(question));
    assert.equal(text, 'streamed reply');
    assert.equal(parts.at(-1)?.type, 'finish');
    assert.equal(retries[0]?.error.code, 'LLM_TRUNCATED_STREAM');
  });

  it('a stream cut after deltas reached the caller is not retried (it would duplicate text)', async () => {
    reset();
    const { model, server } = await harness({ reply: () => 'a longer streamed reply', faults: { sequence: ['truncated-stream'] } }, { middleware: retrying() });
    const error = await rejection(collect(model.stream(question)));
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_TRUNCATED_STREAM');
    assert.equal(server.stats.completions, 1);
    // The hint the user reads under a cut `--stream` answer says what happened and what to do, not that it is retried.
    assert.doesNotMatch(error.hint ?? '', /retried automatically/);
    assert.match(error.hint ?? '', /^Part of the reply had already been shown, so it was not retried \(that would repeat it\): ask again\. The server at .* cut the stream; if it keeps happening, check its timeouts for long replies$/);
    assert.equal(error.retryable, false);
  });

  it('malformed JSON content gets exactly one repair turn, then succeeds', async () => {
    reset();
    const { model, bodies } = await harness({
      reply: () => ({ name: 'Paris', country: 'France' }),
      faults: { sequence: ['malformed-json'] },
    }, { middleware: retrying() });
    const schema = z.object({ name: z.string(), country: z.string() });
    const outcome = await generateObject({ model, messages: question.messages, schema, schemaName: 'place' });
    assert.deepEqual(outcome.object, { name: 'Paris', country: 'France' });
    assert.equal(outcome.repaired, true);
    assert.equal(outcome.attempts, 2);
    assert.equal(bodies.length, 2);
    const repairMessages = bodies[1]?.['messages'] as Array<{ role: string; content: string }>;
    assert.equal(repairMessages.length, 3);
    const broken = JSON.stringify({ name: 'Paris', country: 'France' });
    assert.deepEqual(repairMessages[1], { role: 'assistant', content: broken.slice(0, Math.floor(broken.length * 0.6)) });
    assert.equal(repairMessages[2]?.role, 'user');
    assert.match(repairMessages[2]?.content ?? '', /^Your previous reply could not be used:\n- the reply is not valid JSON: .*truncated/);
    assert.match(repairMessages[2]?.content ?? '', /only the corrected JSON/);
    assert.equal(retries.length, 0, 'invalid content is repaired, not retried');
  });
});
