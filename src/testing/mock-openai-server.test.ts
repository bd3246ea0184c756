import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { generateObject } from '../providers/llm/generate-object.js';
import type { LanguageModel } from '../providers/llm/language-model.js';
import { FAULT_KINDS, startMockOpenAiServer } from './mock-openai-server.js';
import type { FaultKind, MockAnsweredRequest, MockChatCompletionRequest, MockOpenAiServer, MockOpenAiServerOptions } from './mock-openai-server.js';
import { createOpenAiCompatibleLanguageModel } from '../providers/llm/openai-compatible-language-model.js';
import { retryMiddleware } from '../providers/llm/retry-middleware.js';

const servers: MockOpenAiServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(options: MockOpenAiServerOptions = {}): Promise<MockOpenAiServer> {
  const server = await startMockOpenAiServer(options);
  servers.push(server);
  return server;
}

const questions = Array.from({ length: 12 }, (_, index) => `Question number ${index}: what happened in chapter ${index}?`);
const place = z.object({ question: z.string(), chapter: z.number() });
const reply = (request: MockChatCompletionRequest): string | object => {
  // The first user turn carries the question; a repair turn comes after it.
  const question = request.messages.find((message) => message.role === 'user')?.content ?? '';
  const chapter = Number(/chapter (\d+)/.exec(question)?.[1] ?? -1);
  return request.responseFormat === undefined ? `Chapter ${chapter} answer.` : { question: question.slice(0, 20), chapter };
};

/**
 * No per-call timeout: a client that gave up on a slow but successful reply (a loaded machine) would pay for
 * it twice and fail the "paid once" check, so the workloads here draw no `timeout` fault (it needs one; the
 * adapter's tests cover it with a deadline the test expires).
 */
function resilientModel(server: MockOpenAiServer): LanguageModel {
  return createOpenAiCompatibleLanguageModel({
    baseURL: server.url,
    modelId: 'mock-model',
    middleware: [retryMiddleware({ maxRetries: 8, sleep: async () => undefined, rng: () => 0 })],
  });
}

const withoutTimeouts = FAULT_KINDS.filter((kind) => kind !== 'timeout');

async function runWorkload(server: MockOpenAiServer): Promise<unknown[]> {
  const model = resilientModel(server);
  const outputs: unknown[] = [];
  for (const [index, question] of questions.entries()) {
    const messages = [{ role: 'user' as const, content: question }];
    if (index % 2 === 0) outputs.push((await model.generate({ messages })).text);
    else outputs.push((await generateObject({ model, messages, schema: place })).object);
  }
  return outputs;
}

describe('startMockOpenAiServer', () => {
  it('faults change neither the results nor the number of successful calls per request', async () => {
    const clean = await serve({ reply });
    const faulty = await serve({ reply, faults: { rate: 0.4, seed: 7, kinds: withoutTimeouts } });
    const expected = await runWorkload(clean);
    const actual = await runWorkload(faulty);
    assert.deepEqual(actual, expected);
    const injected = Object.values(faulty.stats.faults).reduce((sum, count) => sum + count, 0);
    assert.ok(injected >= 3, `expected several faults, got ${JSON.stringify(faulty.stats.faults)}`);
    assert.ok([...faulty.stats.successByRequestHash.values()].every((count) => count === 1));
    const cleanHashes = [...clean.stats.successByRequestHash.keys()].sort();
    const faultyHashes = [...faulty.stats.successByRequestHash.keys()];
    for (const hash of cleanHashes) assert.ok(faultyHashes.includes(hash));
  });

  it('decides faults deterministically for a seed', async () => {
    const decisions = async (seed: number): Promise<Record<FaultKind, number>> => {
      const server = await serve({ reply, faults: { rate: 0.5, seed, kinds: ['429', '500', 'malformed-body'] } });
      await runWorkload(server);
      return { ...server.stats.faults };
    };
    const first = await decisions(3);
    assert.deepEqual(await decisions(3), first);
  });

  it('applies a fault sequence to the first requests, then caps rate faults per request', async () => {
    const server = await serve({ faults: { sequence: ['500', '429'], rate: 1, kinds: ['500'], maxFaultsPerRequest: 2 } });
    const model = resilientModel(server);
    await model.generate({ messages: [{ role: 'user', content: 'hello' }] });
    assert.equal(server.stats.faults['500'], 3, 'one from the sequence, then two drawn');
    assert.equal(server.stats.faults['429'], 1);
    assert.equal(server.stats.completions, 5, 'two sequenced + two drawn faults, then success');
  });

  it('answers concurrent requests concurrently when latency is set', async () => {
    // Every reply waits until all four requests are in: a server that answered one request at a time would
    // never get there (and the test would time out), however fast or slow the machine.
    let received = 0;
    let allReceived: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (allReceived = resolve));
    const server = await serve({
      latencyMs: 1,
      onRequest: () => {
        if (++received === 4) allReceived();
      },
      reply: async (request) => {
        await gate;
        return `answer to ${request.messages.at(-1)?.content}`;
      },
    });
    const model = createOpenAiCompatibleLanguageModel({ baseURL: server.url, modelId: 'mock-model' });
    const replies = await Promise.all(Array.from({ length: 4 }, (_, index) => model.generate({ messages: [{ role: 'user', content: `q${index}` }] })));
    assert.deepEqual(
      replies.map((result) => result.text),
      ['answer to q0', 'answer to q1', 'answer to q2', 'answer to q3'],
    );
  });

  it('reports every answered request with its reply and when it arrived and was answered', async () => {
    // Two requests held until both are in, then one sent after the first two were answered: the log must show the
    // overlap of the first two and the third's wait for them.
    let received = 0;
    let bothReceived: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (bothReceived = resolve));
    const answered: MockAnsweredRequest[] = [];
    const server = await serve({
      faults: { sequence: ['429'] },
      onRequest: () => {
        if (++received === 3) bothReceived();
      },
      onResponse: (request) => answered.push(request),
      reply: async (request) => {
        await gate;
        return `answer to ${request.messages.at(-1)?.content}`;
      },
    });
    const model = createOpenAiCompatibleLanguageModel({
      baseURL: server.url,
      modelId: 'mock-model',
      middleware: [retryMiddleware({ maxRetries: 2, sleep: async () => undefined, rng: () => 0 })],
    });
    const first = await Promise.all([model.generate({ messages: [{ role: 'user', content: 'q0' }] }), model.generate({ messages: [{ role: 'user', content: 'q1' }] })]);
    let text = '';
    for await (const part of model.stream({ messages: [{ role: 'user', content: 'q2' }] })) if (part.type === 'text-delta') text += part.text;
    assert.deepEqual([...first.map((result) => result.text), text], ['answer to q0', 'answer to q1', 'answer to q2']);

    const chats = answered.filter((entry) => entry.status === 200);
    assert.equal(answered.length, 4, 'the 429 is reported too');
    assert.equal(answered.filter((entry) => entry.status === 429 && entry.content === undefined).length, 1);
    assert.deepEqual(chats.map((entry) => entry.content).sort(), ['answer to q0', 'answer to q1', 'answer to q2']);
    for (const entry of answered) {
      assert.equal(entry.path, '/v1/chat/completions');
      assert.ok(entry.receivedAt <= entry.answeredAt);
    }
    const last = chats.find((entry) => entry.content === 'answer to q2');
    const pair = chats.filter((entry) => entry !== last);
    assert.ok(last !== undefined && pair.length === 2);
    for (const entry of pair) assert.ok(entry.answeredAt <= last.receivedAt, 'the streamed request was sent after the pair was answered');
    assert.ok(Math.max(...pair.map((entry) => entry.receivedAt)) <= Math.min(...pair.map((entry) => entry.answeredAt)), 'the pair overlapped');
  });

  it('lists models and answers unknown paths with 404', async () => {
    const server = await serve({ models: ['a', 'b'] });
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
    assert.deepEqual(
      models.data.map((model) => model.id),
      ['a', 'b'],
    );
    assert.equal((await fetch(`${server.url}/nothing`)).status, 404);
  });

  it('returns float embeddings, or base64 when asked', async () => {
    const server = await serve({ embed: () => [0.5, -0.25, 1] });
    const post = async (format?: string) =>
      (await (
        await fetch(`${server.url}/embeddings`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'e', input: ['x'], ...(format === undefined ? {} : { encoding_format: format }) }),
        })
      ).json()) as { data: Array<{ embedding: unknown }> };
    assert.deepEqual((await post('float')).data[0]?.embedding, [0.5, -0.25, 1]);
    const encoded = (await post('base64')).data[0]?.embedding;
    assert.equal(typeof encoded, 'string');
    const bytes = Buffer.from(encoded as string, 'base64');
    assert.deepEqual([...new Float32Array(bytes.buffer, bytes.byteOffset, 3)], [0.5, -0.25, 1]);
  });

  it('closes promptly while a timeout fault holds a connection open', async () => {
    const server = await startMockOpenAiServer({ faults: { sequence: ['timeout'] } });
    const pending = fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    }).then(
      () => 'answered',
      () => 'dropped',
    );
    while (server.stats.completions === 0) await new Promise((resolve) => setImmediate(resolve));
    await server.close();
    assert.equal(await pending, 'dropped');
  });
});
