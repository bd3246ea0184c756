import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { LlmCallError } from '../providers/llm/llm-call-error.js';
import type { RetryEvent } from '../providers/llm/retry-policy.js';
import { createRetryReporter } from './retry-reporter.js';

function event(attempt: number, delayMs: number, error: LlmCallError, purpose = 'extract-graph'): RetryEvent {
  return { attempt, maxAttempts: 7, delayMs, error, service: 'llm', purpose };
}

const rateLimited = new LlmCallError('429', { code: 'LLM_RATE_LIMITED', retryable: true, status: 429 });
const serverError = new LlmCallError('503', { code: 'LLM_SERVER_ERROR', retryable: true, status: 503 });

describe('createRetryReporter', () => {
  it('writes one line for the retries that fail together, naming the step, the kind, the attempt, why and the wait', () => {
    const lines: string[] = [];
    const reporter = createRetryReporter((line) => lines.push(line), { windowMs: 60_000 });
    reporter.setScope('llm-extract');
    for (let call = 0; call < 6; call += 1) reporter.onRetry(event(1, 200 + call * 100, rateLimited));
    reporter.onRetry(event(1, 900, serverError));
    assert.deepEqual(lines, [], 'the wave is written when it closes');
    reporter.stop();
    assert.deepEqual(lines, [
      'llm-extract: 7 LLM call attempts (extract-graph) failed, attempt 1 of 7: 6× rate-limited (HTTP 429), 1× server error (HTTP 503); retrying in 0.2–0.9 s',
    ]);
  });

  it('starts a new line for a later wave and for a new step', async () => {
    const lines: string[] = [];
    const reporter = createRetryReporter((line) => lines.push(line), { windowMs: 5 });
    reporter.setScope('summarize');
    reporter.onRetry(event(1, 1000, serverError, 'summarize-descriptions'));
    await delay(30);
    reporter.onRetry(event(2, 2500, serverError, 'summarize-descriptions'));
    reporter.setScope('reports');
    reporter.onRetry(event(1, 12_000, rateLimited, 'community-report'));
    reporter.stop();
    assert.deepEqual(lines, [
      'summarize: LLM call (summarize-descriptions) attempt 1 of 7 failed: server error (HTTP 503); retrying in 1.0 s',
      'summarize: LLM call (summarize-descriptions) attempt 2 of 7 failed: server error (HTTP 503); retrying in 2.5 s',
      'reports: LLM call (community-report) attempt 1 of 7 failed: rate-limited (HTTP 429); retrying in 12 s',
    ]);
  });
});
