import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest, ChatStreamPart, LanguageModel } from './language-model.js';
import { llmCacheKey } from './llm-cache-key.js';
import { createMemoryLlmCache } from '../../testing/memory-llm-cache.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import type { ScriptedResponse } from '../../testing/scripted-language-model.js';
import { cacheMiddleware } from './cache-middleware.js';
import type { CacheOptions } from './cache-middleware.js';
import { wrapKgragLanguageModel } from './wrap-kgrag-language-model.js';

/** The model under the cache middleware, as the workspace composes it. */
const withCache = (model: LanguageModel, options: CacheOptions): LanguageModel => wrapKgragLanguageModel(model, cacheMiddleware(options));

const base: ChatRequest = {
  messages: [
    { role: 'system', content: 'You answer briefly.' },
    { role: 'user', content: 'Capital of France?' },
  ],
  temperature: 0,
  responseFormat: { type: 'json', schema: { type: 'object', properties: { city: { type: 'string' } } } },
};

function cached(responses: ScriptedResponse[] = [{ reply: { city: 'Paris' } }], modelId = 'model-a') {
  const inner = createScriptedLanguageModel({ modelId, responses });
  const cache = createMemoryLlmCache();
  return { inner, cache, model: withCache(inner, { cache }) };
}

async function drain(stream: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('cacheMiddleware', () => {
  it('answers an identical request from the cache, marked cached', async () => {
    const { inner, model } = cached();
    const first = await model.generate(base);
    const second = await model.generate({ ...base, purpose: 'other-purpose', priority: 'interactive', abortSignal: new AbortController().signal });
    assert.equal(first.cached, undefined);
    assert.equal(second.cached, true);
    assert.equal(second.text, first.text);
    assert.deepEqual(second.usage, first.usage);
    assert.equal(inner.calls.length, 1);
  });

  it('misses when the model id, a parameter, the schema or the messages differ', async () => {
    const cache = createMemoryLlmCache();
    const modelA = withCache(createScriptedLanguageModel({ modelId: 'model-a', responses: [{ reply: 'a' }] }), { cache });
    const innerB = createScriptedLanguageModel({ modelId: 'model-b', responses: [{ reply: 'b' }] });
    const modelB = withCache(innerB, { cache });
    await modelA.generate(base);
    assert.equal((await modelB.generate(base)).text, 'b', 'GraphRAG would have reused model-a here');

    const variants: ChatRequest[] = [
      { ...base, temperature: 0.7 },
      { ...base, maxOutputTokens: 10 },
      { ...base, topP: 0.5 },
      { ...base, seed: 1 },
      { ...base, stop: ['\n'] },
      { ...base, responseFormat: { type: 'json', schema: { type: 'object', properties: { town: { type: 'string' } } } } },
      { ...base, responseFormat: undefined },
      { ...base, messages: [...base.messages, { role: 'user', content: 'And Spain?' }] },
    ];
    for (const variant of variants) {
      const result = await modelB.generate(variant);
      assert.equal(result.cached, undefined, JSON.stringify(variant));
    }
    assert.equal(innerB.calls.length, 1 + variants.length);
  });

  it('ignores key order inside schemas', () => {
    const model = { provider: 'p', modelId: 'm' };
    const one = llmCacheKey(model, { ...base, responseFormat: { type: 'json', schema: { type: 'object', required: ['a'] } } });
    const two = llmCacheKey(model, { ...base, responseFormat: { schema: { required: ['a'], type: 'object' }, type: 'json' } });
    assert.equal(one, two);
  });

  it('does not cache errors', async () => {
    const { inner, model } = cached([{ reply: new Error('server down'), times: 1 }, { reply: 'recovered' }]);
    await assert.rejects(model.generate(base), /server down/);
    assert.equal((await model.generate(base)).text, 'recovered');
    assert.equal((await model.generate(base)).cached, true);
    assert.equal(inner.calls.length, 2);
  });

  it('pays a request with refreshCache and keeps its reply in place of the stored one, generated or streamed', async () => {
    const { inner, model } = cached([{ reply: '{"city": "Par', times: 1 }, { reply: { city: 'Paris' }, times: 1 }, { reply: { city: 'Lyon' } }]);
    assert.equal((await model.generate(base)).text, '{"city": "Par');
    const refreshed = await model.generate({ ...base, refreshCache: true });
    assert.equal(refreshed.cached, undefined);
    assert.equal(refreshed.text, '{"city":"Paris"}');
    assert.equal((await model.generate(base)).text, '{"city":"Paris"}', 'the new reply replaced the unusable one');
    const finish = (await drain(model.stream({ ...base, refreshCache: true }))).at(-1);
    assert.equal(finish?.type === 'finish' ? finish.result.text : undefined, '{"city":"Lyon"}');
    assert.equal(inner.calls.length, 3);
  });

  it('does not cache replies that did not finish normally', async () => {
    const inner = createScriptedLanguageModel({ responses: [{ reply: 'filtered' }], finishReason: 'content-filter' });
    const cache = createMemoryLlmCache();
    const model = withCache(inner, { cache });
    await model.generate(base);
    await model.generate(base);
    assert.equal(inner.calls.length, 2);
    assert.equal(cache.entries.size, 0);
  });

  it('records a completed stream and replays it as one delta', async () => {
    const { inner, model } = cached([{ reply: 'streamed answer' }]);
    const live = await drain(model.stream(base));
    assert.ok(live.length > 2);
    const replay = await drain(model.stream(base));
    assert.deepEqual(replay[0], { type: 'text-delta', text: 'streamed answer' });
    assert.equal(replay.length, 2);
    const finish = replay[1];
    assert.ok(finish?.type === 'finish' && finish.result.cached === true);
    assert.equal((await model.generate(base)).cached, true);
    assert.equal(inner.calls.length, 1);
  });

  it('does not record a stream that failed', async () => {
    const failing: LanguageModel = {
      provider: 'fake',
      modelId: 'fake',
      generate: async () => assert.fail('not used'),
      async *stream() {
        yield { type: 'text-delta', text: 'half' };
        throw new Error('cut');
      },
    };
    const cache = createMemoryLlmCache();
    await assert.rejects(drain(withCache(failing, { cache }).stream(base)), /cut/);
    assert.equal(cache.entries.size, 0);
  });

  it('tags a stored reply with the request\'s sources, which are not part of the key', async () => {
    const { inner, cache, model } = cached();
    await model.generate({ ...base, sources: ['chunk-a', 'chunk-b'] });
    const key = llmCacheKey(inner, base);
    assert.deepEqual([...(cache.sources.get(key) ?? [])], ['chunk-a', 'chunk-b']);
    assert.equal((await model.generate(base)).cached, true, 'the same prompt without sources is the same entry');
    assert.equal(inner.calls.length, 1);
  });

  it('adds the sources of a request answered from the cache to its entry', async () => {
    const { inner, cache, model } = cached([{ reply: 'streamed' }]);
    await model.generate({ ...base, sources: ['old-version'] });
    const hit = await model.generate({ ...base, sources: ['new-version', 'old-version'] });
    assert.equal(hit.cached, true);
    await drain(model.stream({ ...base, sources: ['third'] }));
    assert.deepEqual([...(cache.sources.get(llmCacheKey(inner, base)) ?? [])].sort(), ['new-version', 'old-version', 'third']);
    assert.equal(inner.calls.length, 1);
  });

  it('tags a live stream when it is stored', async () => {
    const { inner, cache, model } = cached([{ reply: 'streamed answer' }]);
    await drain(model.stream({ ...base, sources: ['s'] }));
    assert.deepEqual([...(cache.sources.get(llmCacheKey(inner, base)) ?? [])], ['s']);
  });

  it('forgets every entry tagged with any of the given sources, and only those', async () => {
    const cache = createMemoryLlmCache();
    const model = withCache(createScriptedLanguageModel({ responses: [{ reply: (request) => `re: ${request.messages[0]?.content}` }] }), { cache });
    const ask = (content: string, sources?: string[]) => model.generate({ messages: [{ role: 'user', content }], ...(sources ? { sources } : {}) });
    await ask('extract chunk 1', ['h1']);
    await ask('extract chunk 2', ['h2']);
    await ask('summarize 1 and 2', ['h1', 'h2']);
    await ask('a question');
    assert.equal(cache.forget(['h9']), 0);
    assert.equal(cache.forget(['h1']), 2);
    assert.deepEqual([...cache.entries.values()].map((entry) => entry.text).sort(), ['re: a question', 're: extract chunk 2']);
    assert.equal((await ask('extract chunk 1', ['h1'])).cached, undefined, 'a forgotten reply is paid for again');
  });

  describe('identical requests in flight at once', () => {
    /** A model whose replies wait until `open` is called, so that requests overlap for as long as a test needs. */
    const gated = (responses: (release: Promise<void>) => ScriptedResponse[]) => {
      let open!: () => void;
      const release = new Promise<void>((resolve) => (open = resolve));
      const inner = createScriptedLanguageModel({ responses: responses(release) });
      const cache = createMemoryLlmCache();
      return { inner, cache, model: withCache(inner, { cache }), open };
    };
    const settle = () => new Promise((resolve) => setImmediate(resolve));

    it('are paid once: the later ones get the first one\'s reply as a cache hit, and tag its entry with their sources', async () => {
      const { inner, cache, model, open } = gated((release) => [{ reply: async () => (await release, { city: 'Paris' }) }]);
      const first = model.generate({ ...base, sources: ['a'] });
      const others = [model.generate({ ...base, sources: ['b'] }), model.generate(base)];
      await settle();
      open();
      const [paid, ...shared] = await Promise.all([first, ...others]);
      assert.equal(inner.calls.length, 1);
      assert.equal(paid?.cached, undefined);
      assert.deepEqual(shared.map((result) => [result.cached, result.text]), [[true, paid?.text], [true, paid?.text]]);
      assert.deepEqual([...(cache.sources.get(llmCacheKey(inner, base)) ?? [])].sort(), ['a', 'b']);
    });

    it('make their own call when the first one fails, once between them', async () => {
      const { inner, model, open } = gated((release) => [
        { reply: async () => (await release, new Error('server down')), times: 1 },
        { reply: { city: 'Paris' } },
      ]);
      const first = model.generate(base);
      const others = [model.generate(base), model.generate(base)];
      await settle();
      open();
      await assert.rejects(first, /server down/);
      const results = await Promise.all(others);
      assert.equal(inner.calls.length, 2, 'one failed call, then one call for both waiters');
      assert.deepEqual(results.map((result) => result.cached).sort(), [true, undefined]);
    });

    it('make their own call when the first one ends in a reply the cache does not keep', async () => {
      let open!: () => void;
      const release = new Promise<void>((resolve) => (open = resolve));
      let calls = 0;
      const inner: LanguageModel = {
        provider: 'test',
        modelId: 'filtered-once',
        generate: async () => {
          calls++;
          if (calls === 1) {
            await release;
            return { text: '', finishReason: 'content-filter', usage: { inputTokens: 1, outputTokens: 0 }, modelId: 'filtered-once' };
          }
          return { text: 'ok', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 }, modelId: 'filtered-once' };
        },
        stream: () => {
          throw new Error('not used');
        },
      };
      const model = withCache(inner, { cache: createMemoryLlmCache() });
      const first = model.generate(base);
      const second = model.generate(base);
      await settle();
      open();
      assert.equal((await first).finishReason, 'content-filter');
      assert.equal((await second).text, 'ok');
      assert.equal(calls, 2);
    });

    it('a waiter aborted stops waiting, and the call it waited for goes on', async () => {
      const { inner, model, open } = gated((release) => [{ reply: async () => (await release, { city: 'Paris' }) }]);
      const first = model.generate(base);
      const controller = new AbortController();
      const waiter = model.generate({ ...base, abortSignal: controller.signal });
      await settle();
      controller.abort(new Error('user cancelled'));
      await assert.rejects(waiter, /user cancelled/);
      open();
      assert.equal((await first).text, '{"city":"Paris"}');
      assert.equal(inner.calls.length, 1);
    });

    it('a stream waits for an identical call in flight and replays its reply', async () => {
      const { inner, model, open } = gated((release) => [{ reply: async () => (await release, { city: 'Paris' }) }]);
      const first = model.generate(base);
      const streamed = drain(model.stream(base));
      await settle();
      open();
      await first;
      const parts = await streamed;
      assert.equal(inner.calls.length, 1);
      assert.deepEqual(parts.at(-1)?.type === 'finish' ? parts.at(-1) : undefined, { type: 'finish', result: { ...(await first), cached: true } });
    });
  });
});

