import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import type { RunUsage } from '../core/types.js';
import { createProgressRenderer } from './progress-renderer.js';

/** The lines a plain-text (not a terminal) renderer writes for a step and the run's end. */
function renderedLines(priced: boolean, usage: RunUsage, counts: Record<string, number> = { entities: 4 }): string[] {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const renderer = createProgressRenderer(stream, { priced: () => priced });
  renderer.onEvent({ type: 'step-end', step: 'llm-extract', counts, durationMs: 1500, usage });
  renderer.onEvent({ type: 'pipeline-end', durationMs: 2000, usage });
  renderer.stop();
  return written.trimEnd().split('\n');
}

describe('createProgressRenderer', () => {
  const usage: RunUsage = { llmCalls: 3, inputTokens: 900, outputTokens: 100, costUsd: 0, byModel: {} };

  test('shows what a run cost when the model has a price', () => {
    assert.deepEqual(renderedLines(true, { ...usage, costUsd: 0.0125 }), ['llm-extract: 4 entities in 1.50s · 3 LLM calls · 1000 tokens · $0.0125', 'indexed in 2.00s · 3 LLM calls · 1000 tokens · $0.0125']);
  });

  test('a step line speaks to a person: its first count always, others only when not zero, in words, no internal timings', () => {
    const [line] = renderedLines(false, { ...usage, llmCalls: 0, inputTokens: 0, outputTokens: 0 }, { passages: 2, links: 0, knnLinks: 0, hubEntitiesSkipped: 3, countedPassages: 1, clusterMs: 10 });
    assert.equal(line, 'llm-extract: 2 passages, 3 hub entities skipped, 1 counted passages in 1.50s');
    assert.equal(renderedLines(false, { ...usage, llmCalls: 0, inputTokens: 0, outputTokens: 0 }, { reports: 0, failed: 0 })[0], 'llm-extract: 0 reports in 1.50s');
  });

  test('says the cost is unknown, not $0.0000, when the model has no known price', () => {
    assert.deepEqual(renderedLines(false, usage), ['llm-extract: 4 entities in 1.50s · 3 LLM calls · 1000 tokens · cost unknown', 'indexed in 2.00s · 3 LLM calls · 1000 tokens · cost unknown']);
  });
});
