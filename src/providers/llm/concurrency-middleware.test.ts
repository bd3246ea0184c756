import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest, ChatResult, ChatStreamPart, LanguageModel } from './language-model.js';
import type { CallPriority } from './priority-queues.js';
import { concurrencyMiddleware } from './concurrency-middleware.js';
import type { ConcurrencyOptions } from './concurrency-middleware.js';
import { wrapKgragLanguageModel } from './wrap-kgrag-language-model.js';

const withConcurrency = (model: LanguageModel, options: ConcurrencyOptions): LanguageModel => wrapKgragLanguageModel(model, concurrencyMiddleware(options));

const ok: ChatResult = { text: 'ok', usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop', modelId: 'fake' };

/** A model whose calls stay in flight until the test releases them; it counts the peak. */
function gatedModel() {
  const gates: Array<{ name: string; open: () => void; fail: (error: Error) => void }> = [];
  const started: string[] = [];
  let inFlight = 0;
  let peak = 0;
  const enter = (request: ChatRequest) => {
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    const name = request.messages[0]?.content ?? '';
    started.push(name);
    return new Promise<void>((resolve, reject) => {
      gates.push({ name, open: resolve, fail: reject });
    }).finally(() => {
      inFlight -= 1;
    });
  };
  const model: LanguageModel = {
    provider: 'fake',
    modelId: 'fake',
    generate: async (request) => {
      await enter(request);
      return ok;
    },
    async *stream(request): AsyncGenerator<ChatStreamPart> {
      yield { type: 'text-delta', text: 'first' };
      await enter(request);
      yield { type: 'finish', result: ok };
    },
  };
  return {
    model,
    started,
    gates,
    peak: () => peak,
    inFlight: () => inFlight,
    release: async (name: string, error?: Error) => {
      const gate = gates.find((candidate) => candidate.name === name);
      assert.ok(gate, `${name} should be in flight`);
      gates.splice(gates.indexOf(gate), 1);
      if (error === undefined) gate.open();
      else gate.fail(error);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const ask = (content: string, priority?: CallPriority): ChatRequest => ({
  messages: [{ role: 'user', content }],
  ...(priority === undefined ? {} : { priority }),
});
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('concurrencyMiddleware', () => {
  it('never exceeds the limit and releases slots on errors', async () => {
    const fake = gatedModel();
    const model = withConcurrency(fake.model, { maxConcurrency: 3 });
    const calls = Array.from({ length: 10 }, (_, index) => model.generate(ask(`call-${index}`)).then(() => 'ok', () => 'failed'));
    await settle();
    assert.equal(fake.inFlight(), 3);
    for (let index = 0; index < 10; index += 1) {
      await fake.release(`call-${index}`, index % 3 === 0 ? new Error('boom') : undefined);
      assert.ok(fake.inFlight() <= 3);
    }
    const outcomes = await Promise.all(calls);
    assert.equal(fake.peak(), 3);
    assert.equal(outcomes.filter((outcome) => outcome === 'failed').length, 4);
    assert.equal(fake.inFlight(), 0);
  });

  it('starts waiting interactive calls first, then batch calls, then batch continuations, each in arrival order', async () => {
    const fake = gatedModel();
    const model = withConcurrency(fake.model, { maxConcurrency: 1 });
    const calls = [
      model.generate(ask('running')),
      model.generate(ask('gleaning-1', 'batch-continuation')),
      model.generate(ask('batch-1', 'batch')),
      model.generate(ask('batch-2')),
      model.generate(ask('gleaning-2', 'batch-continuation')),
      model.generate(ask('query', 'interactive')),
    ];
    await settle();
    const order = ['running', 'query', 'batch-1', 'batch-2', 'gleaning-1', 'gleaning-2'];
    for (const name of order) await fake.release(name);
    await Promise.all(calls);
    assert.deepEqual(fake.started, order);
  });

  it('a stream holds its slot until it ends, and releases it when the consumer stops early', async () => {
    const fake = gatedModel();
    const model = withConcurrency(fake.model, { maxConcurrency: 1 });
    const iterator = model.stream(ask('stream'))[Symbol.asyncIterator]();
    assert.deepEqual(await iterator.next(), { done: false, value: { type: 'text-delta', text: 'first' } });
    const waiting = model.generate(ask('after-stream'));
    await settle();
    assert.deepEqual(fake.started, [], 'the stream still holds the only slot');
    await iterator.return?.();
    await settle();
    assert.deepEqual(fake.started, ['after-stream']);
    await fake.release('after-stream');
    await waiting;
  });

  it('an aborted waiter leaves the queue', async () => {
    const fake = gatedModel();
    const model = withConcurrency(fake.model, { maxConcurrency: 1 });
    const running = model.generate(ask('running'));
    const controller = new AbortController();
    const abandoned = model.generate({ ...ask('abandoned'), abortSignal: controller.signal });
    await settle();
    controller.abort(new Error('gave up'));
    await assert.rejects(abandoned, /gave up/);
    await fake.release('running');
    await running;
    assert.deepEqual(fake.started, ['running']);
  });
});
