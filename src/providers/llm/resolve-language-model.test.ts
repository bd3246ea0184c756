import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APICallError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { llmConfigSchema } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import { createMemoryLlmCache } from '../../testing/memory-llm-cache.js';
import { resolveLanguageModel } from './resolve-language-model.js';
import type { SdkLanguageModelV2 } from './sdk-types.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { createUsageMeter } from './usage-meter.js';

const usage = { inputTokens: { total: 7, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 3, text: undefined, reasoning: undefined } };
const request = { messages: [{ role: 'user' as const, content: 'Capital of France?' }], purpose: 'answer', priority: 'interactive' as const };

describe('resolveLanguageModel', () => {
  it("puts a given AI SDK model under the configured middleware: defaults, retries, cache and meter", async () => {
    let failures = 1;
    const sdkModel = new MockLanguageModelV3({
      provider: 'lab.chat',
      modelId: 'lab-1',
      doGenerate: async () => {
        if (failures-- > 0) throw new APICallError({ message: 'overloaded', url: 'http://lab/v1/chat/completions', requestBodyValues: {}, statusCode: 503 });
        return { content: [{ type: 'text', text: 'Paris' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      },
    });
    const meter = createUsageMeter();
    const retries: number[] = [];
    const config = llmConfigSchema.parse({ temperature: 0.25, maxRetries: 2 });
    const model = resolveLanguageModel(sdkModel, config, { cache: createMemoryLlmCache(), meter, sleep: async () => undefined, onRetry: (event) => void retries.push(event.attempt) });
    assert.ok(model);
    assert.equal(`${model.provider}:${model.modelId}`, 'lab.chat:lab-1');

    const first = await model.generate(request);
    const second = await model.generate(request);
    assert.equal(first.text, 'Paris');
    assert.deepEqual(first.usage, { inputTokens: 7, outputTokens: 3 });
    assert.equal(second.cached, true, 'the second identical request is answered from the cache');
    assert.deepEqual(retries, [1], 'the 503 was retried once');
    assert.equal(sdkModel.doGenerateCalls.length, 2);
    assert.equal(sdkModel.doGenerateCalls[0]?.temperature, 0.25, 'llm.temperature filled in');
    assert.equal(sdkModel.doGenerateCalls[0]?.providerOptions?.['kgrag'], undefined, "kgrag's fields never reach the provider");
    const snapshot = meter.snapshot();
    assert.equal(snapshot.calls, 1);
    assert.equal(snapshot.cachedCalls, 1);
    assert.equal(snapshot.byPurpose['answer']?.calls, 1);
  });

  it("meters kgrag's own model and passes it every request field", async () => {
    const scripted = createScriptedLanguageModel({ responses: [{ reply: 'Paris' }] });
    const meter = createUsageMeter();
    const model = resolveLanguageModel(scripted, llmConfigSchema.parse({}), { meter, cache: createMemoryLlmCache() });
    assert.ok(model);
    await model.generate({ ...request, sources: ['chunk-hash'], refreshCache: true });
    await model.generate(request);
    assert.equal(scripted.calls.length, 2, 'no cache in front of a model given in code');
    assert.deepEqual(scripted.calls[0], { ...request, sources: ['chunk-hash'], refreshCache: true });
    assert.equal(meter.snapshot().calls, 2);
  });

  it('takes an AI SDK 5 model (specification v2): its usage and finish reason converted', async () => {
    const v2Usage = { inputTokens: 11, outputTokens: 4, totalTokens: 15 };
    const legacy = {
      specificationVersion: 'v2',
      provider: 'old.chat',
      modelId: 'old-1',
      supportedUrls: {},
      doGenerate: async () => ({ content: [{ type: 'text', text: 'Paris' }], finishReason: 'length', usage: v2Usage, warnings: [] }),
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: '1' });
            controller.enqueue({ type: 'text-delta', id: '1', delta: 'Par' });
            controller.enqueue({ type: 'text-delta', id: '1', delta: 'is' });
            controller.enqueue({ type: 'text-end', id: '1' });
            controller.enqueue({ type: 'finish', finishReason: 'stop', usage: v2Usage });
            controller.close();
          },
        }),
      }),
    } as unknown as SdkLanguageModelV2;
    const model = resolveLanguageModel(legacy, llmConfigSchema.parse({ cache: false }));
    assert.ok(model);
    const result = await model.generate(request);
    assert.deepEqual([result.text, result.finishReason, result.usage], ['Paris', 'length', { inputTokens: 11, outputTokens: 4 }]);
    const parts = [];
    for await (const part of model.stream(request)) parts.push(part);
    assert.deepEqual(parts.at(-1), { type: 'finish', result: { text: 'Paris', finishReason: 'stop', usage: { inputTokens: 11, outputTokens: 4 }, modelId: 'old-1' } });
  });

  it('refuses a model of a specification it does not know, with the fix', () => {
    const future = { specificationVersion: 'v4', provider: 'new.chat', modelId: 'new-1' } as unknown as SdkLanguageModelV2;
    assert.throws(
      () => resolveLanguageModel(future, llmConfigSchema.parse({})),
      (error) => KgragError.isInstance(error) && error.code === 'CONFIG_LLM_UNSUPPORTED_MODEL' && /specification v4/.test(error.message),
    );
  });
});
