import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyUsage } from '../pipeline/run-pipeline.js';
import { createUsageMeter } from '../providers/llm/usage-meter.js';
import { formatRunCost } from './format-run-cost.js';

const price = { input: 0.4, output: 1.6, source: 'built-in' as const };

test('a run without LLM calls or cache hits has no cost summary', () => {
  const meter = createUsageMeter();
  assert.deepEqual(formatRunCost([{ step: 'chunk', durationMs: 10, usage: emptyUsage() }], meter.snapshot(), { modelId: 'gpt-4.1-mini', price }), []);
});

test('cache hits, failures and calls without server usage are reported under the table', () => {
  const meter = createUsageMeter();
  meter.record({ modelId: 'gpt-4.1-mini', usage: { inputTokens: 1_000_000, outputTokens: 0 }, cached: true });
  meter.record({ modelId: 'gpt-4.1-mini', usage: { inputTokens: 100, outputTokens: 10, estimated: true } });
  meter.recordFailure({ modelId: 'gpt-4.1-mini' });
  const usage = { ...emptyUsage(), llmCalls: 1, inputTokens: 100, outputTokens: 10, costUsd: 0.000056 };
  const lines = formatRunCost([{ step: 'summarize', durationMs: 1500, usage }], meter.snapshot(), { modelId: 'gpt-4.1-mini', price });
  assert.equal(lines[0], 'LLM usage of this run, model gpt-4.1-mini at $0.40 / $1.60 per million input / output tokens (built-in price)');
  assert.match(lines.join('\n'), /^summarize +1 +100 +10 +< 0\.0001 +1\.50s$/m);
  assert.ok(lines.includes("cached: 1 call answered from the workspace's LLM cache, not counted above (saved $0.4000)"));
  assert.ok(lines.includes('failed: 1 call (retried, or the item recorded as failed; not counted above)'));
  assert.ok(lines.includes('estimated: 1 call without usage from the server (tokens counted with the tokenizer)'));
});
