import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { QueryResult } from '../methods/query-engine.js';
import { formatQueryResult } from './format-result.js';

function result(usage: QueryResult['usage']): QueryResult {
  return {
    question: 'Who keeps the lighthouse?',
    method: 'basic',
    variant: 'dense',
    answer: { text: 'Ada keeps it.', kind: 'generated' },
    citations: [],
    context: { chunks: [], text: '', tokens: 12 },
    trace: { steps: [], params: {}, unknownReferences: 0 },
    usage,
    index: { generation: 1, publishedAt: null },
    warnings: [],
  } as QueryResult;
}

describe('formatQueryResult', () => {
  const usage = { llmCalls: 1, inputTokens: 1000, outputTokens: 200, costUsd: 0, latencyMs: 42 };

  test('shows the cost of a query whose model has a price', () => {
    const footer = formatQueryResult(result({ ...usage, costUsd: 0.0031 }), { priced: true }).split('\n').at(-1);
    assert.equal(footer, 'method basic:dense · 42 ms · 1200 tokens · $0.0031');
  });

  test('says the cost is unknown, not $0.0000, when the model has no known price', () => {
    const footer = formatQueryResult(result(usage), { priced: false }).split('\n').at(-1);
    assert.equal(footer, 'method basic:dense · 42 ms · 1200 tokens · cost unknown');
  });
});
