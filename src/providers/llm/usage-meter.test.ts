import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryLlmCache } from '../../testing/memory-llm-cache.js';
import { findModelPrice } from './model-prices.js';
import { createScriptedLanguageModel } from '../../testing/scripted-language-model.js';
import { createUsageMeter } from './usage-meter.js';
import type { UsageSnapshot } from './usage-meter.js';
import { cacheMiddleware } from './cache-middleware.js';
import { usageMeterMiddleware } from './usage-meter-middleware.js';
import { wrapKgragLanguageModel } from './wrap-kgrag-language-model.js';



const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≈ ${expected}`);

describe('createUsageMeter', () => {
  it('totals calls, tokens and cost per model and per purpose', () => {
    const meter = createUsageMeter();
    meter.record({ modelId: 'gpt-4.1-mini', purpose: 'extract-graph', usage: { inputTokens: 1_000_000, outputTokens: 500_000 } });
    meter.record({ modelId: 'gpt-4.1-mini', purpose: 'answer', usage: { inputTokens: 2000, outputTokens: 1000, estimated: true } });
    meter.record({ modelId: 'gpt-4o', usage: { inputTokens: 1000, outputTokens: 0 } });
    const snapshot = meter.snapshot();
    assert.equal(snapshot.calls, 3);
    assert.equal(snapshot.inputTokens, 1_003_000);
    assert.equal(snapshot.outputTokens, 501_000);
    close(snapshot.costUsd, 0.4 + 0.8 + (2000 * 0.4 + 1000 * 1.6) / 1e6 + (1000 * 2.5) / 1e6);
    assert.equal(snapshot.estimatedCalls, 1);
    assert.equal(snapshot.byModel['gpt-4.1-mini']?.calls, 2);
    close(snapshot.byPurpose['extract-graph']?.costUsd ?? -1, 1.2);
    assert.equal(snapshot.byPurpose['other']?.calls, 1);
    assert.deepEqual(snapshot.unpricedModels, []);
  });

  it('counts cache hits separately, as savings rather than cost', () => {
    const meter = createUsageMeter();
    meter.record({ modelId: 'gpt-4o-mini', usage: { inputTokens: 1_000_000, outputTokens: 0 }, cached: true });
    const snapshot = meter.snapshot();
    assert.equal(snapshot.calls, 0);
    assert.equal(snapshot.costUsd, 0);
    assert.equal(snapshot.cachedCalls, 1);
    assert.equal(snapshot.cachedInputTokens, 1_000_000);
    close(snapshot.savedUsd, 0.15);
  });

  it('uses the configured price over the table and lists unpriced models', () => {
    const configured = createUsageMeter({ pricePerMillionTokens: { input: 1, output: 2 } });
    configured.record({ modelId: 'llama3.1:8b', usage: { inputTokens: 1_000_000, outputTokens: 1_000_000 } });
    close(configured.snapshot().costUsd, 3);
    const table = createUsageMeter();
    table.record({ modelId: 'llama3.1:8b', usage: { inputTokens: 10, outputTokens: 10 } });
    assert.deepEqual(table.snapshot().unpricedModels, ['llama3.1:8b']);
    assert.equal(table.snapshot().costUsd, 0);
  });

  it('prices dated snapshots by their family, but not lookalikes', () => {
    assert.deepEqual(findModelPrice('gpt-4o-mini-2024-07-18'), { input: 0.15, output: 0.6 });
    assert.deepEqual(findModelPrice('gpt-5-2025-08-07'), { input: 1.25, output: 10 });
    assert.equal(findModelPrice('gpt-4o-realtime-preview'), undefined);
  });

  it('notifies subscribers after every record until they unsubscribe', () => {
    const meter = createUsageMeter();
    const seen: UsageSnapshot[] = [];
    const unsubscribe = meter.subscribe((snapshot) => seen.push(snapshot));
    meter.record({ modelId: 'gpt-5-nano', usage: { inputTokens: 10, outputTokens: 5 } });
    meter.recordFailure({ modelId: 'gpt-5-nano' });
    unsubscribe();
    meter.record({ modelId: 'gpt-5-nano', usage: { inputTokens: 10, outputTokens: 5 } });
    assert.equal(seen.length, 2);
    assert.equal(seen[0]?.inputTokens, 10);
    assert.equal(seen[1]?.failedCalls, 1);
  });
});

describe('usageMeterMiddleware', () => {
  it('records paid calls, cache hits, streams and failures by purpose', async () => {
    const meter = createUsageMeter({ pricePerMillionTokens: { input: 1, output: 1 } });
    const inner = createScriptedLanguageModel({ modelId: 'm', responses: [{ match: 'fail', reply: new Error('no') }, { reply: 'answer' }] });
    const model = wrapKgragLanguageModel(inner, [usageMeterMiddleware({ meter }), cacheMiddleware({ cache: createMemoryLlmCache() })]);
    const request = { messages: [{ role: 'user' as const, content: 'question' }], purpose: 'answer' };
    await model.generate(request);
    await model.generate(request);
    for await (const part of model.stream({ ...request, purpose: 'stream' })) void part;
    await assert.rejects(model.generate({ messages: [{ role: 'user', content: 'fail' }] }));
    const snapshot = meter.snapshot();
    assert.equal(snapshot.calls, 1);
    assert.equal(snapshot.cachedCalls, 2);
    assert.equal(snapshot.failedCalls, 1);
    assert.equal(snapshot.byPurpose['answer']?.calls, 1);
    assert.equal(snapshot.byPurpose['answer']?.cachedCalls, 1);
    assert.equal(snapshot.byPurpose['stream']?.cachedCalls, 1);
    assert.equal(snapshot.byPurpose['other']?.failedCalls, 1);
  });
});
