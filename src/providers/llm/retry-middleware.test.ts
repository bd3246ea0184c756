import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { abortableSleep } from './abortable-sleep.js';
import type { ChatResult, ChatStreamPart, LanguageModel } from './language-model.js';
import { LlmCallError } from './llm-call-error.js';
import type { RetryEvent } from './retry-policy.js';
import { retryMiddleware } from './retry-middleware.js';
import type { RetryOptions } from './retry-policy.js';
import { wrapKgragLanguageModel } from './wrap-kgrag-language-model.js';

const withRetry = (model: LanguageModel, options: RetryOptions = {}): LanguageModel => wrapKgragLanguageModel(model, retryMiddleware(options));

const ok: ChatResult = { text: 'ok', usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop', modelId: 'fake' };
const request = { messages: [{ role: 'user' as const, content: 'hi' }] };

function failure(code: 'LLM_RATE_LIMITED' | 'LLM_SERVER_ERROR' | 'LLM_BAD_REQUEST', extra: { retryAfterMs?: number } = {}): LlmCallError {
  const status = code === 'LLM_RATE_LIMITED' ? 429 : code === 'LLM_SERVER_ERROR' ? 503 : 400;
  return new LlmCallError(`fake ${status}`, { code, status, retryable: code !== 'LLM_BAD_REQUEST', ...extra });
}

/** A model that throws the scripted errors in order, then succeeds; streams yield `deltasBeforeError` first. */
function flakyModel(errors: unknown[], deltasBeforeError = 0): LanguageModel & { attempts: number } {
  const model = {
    provider: 'fake',
    modelId: 'fake',
    attempts: 0,
    async generate() {
      model.attempts += 1;
      const error = errors.shift();
      if (error !== undefined) throw error;
      return ok;
    },
    async *stream(): AsyncGenerator<ChatStreamPart> {
      model.attempts += 1;
      const error = errors.shift();
      for (let delta = 0; delta < (error === undefined ? 1 : deltasBeforeError); delta += 1) yield { type: 'text-delta', text: 'ok' };
      if (error !== undefined) throw error;
      yield { type: 'finish', result: ok };
    },
  };
  return model;
}

function recorder() {
  const sleeps: number[] = [];
  const events: RetryEvent[] = [];
  return { sleeps, events, sleep: async (ms: number) => void sleeps.push(ms), onRetry: (event: RetryEvent) => void events.push(event) };
}

describe('retryMiddleware', () => {
  it('backs off exponentially with full jitter, capped by maxDelayMs', async () => {
    const { sleeps, sleep } = recorder();
    const model = flakyModel(Array.from({ length: 5 }, () => failure('LLM_SERVER_ERROR')));
    const rolls = [0.5, 0.5, 0.5, 0.25, 1 - 1e-9];
    const result = await withRetry(model, { baseDelayMs: 1000, maxDelayMs: 5000, maxRetries: 6, rng: () => rolls.shift() ?? 0, sleep }).generate(request);
    assert.equal(result.text, 'ok');
    assert.deepEqual(sleeps, [500, 1000, 2000, 1250, 5000]);
    assert.equal(model.attempts, 6);
  });

  it('waits at least retry-after, even when the jitter is smaller', async () => {
    const { sleeps, sleep } = recorder();
    const model = flakyModel([failure('LLM_RATE_LIMITED', { retryAfterMs: 7000 })]);
    await withRetry(model, { baseDelayMs: 100, rng: () => 0.1, sleep }).generate(request);
    assert.deepEqual(sleeps, [7000]);
  });

  it('does not retry non-retryable or foreign errors', async () => {
    const { sleeps, sleep } = recorder();
    const badRequest = flakyModel([failure('LLM_BAD_REQUEST')]);
    await assert.rejects(withRetry(badRequest, { sleep }).generate(request), (error) => LlmCallError.isInstance(error) && error.code === 'LLM_BAD_REQUEST');
    const bug = flakyModel([new TypeError('a bug')]);
    await assert.rejects(withRetry(bug, { sleep }).generate(request), TypeError);
    assert.deepEqual(sleeps, []);
    assert.equal(badRequest.attempts + bug.attempts, 2);
  });

  it('gives up with LLM_RETRIES_EXHAUSTED naming attempts and the rate-limit remedy', async () => {
    const { sleep, events, onRetry } = recorder();
    const model = flakyModel(Array.from({ length: 3 }, () => failure('LLM_RATE_LIMITED')));
    const error = await withRetry(model, { maxRetries: 2, sleep, onRetry, rng: () => 0 }).generate(request).catch((caught: unknown) => caught);
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_RETRIES_EXHAUSTED');
    assert.equal(error.status, 429);
    assert.match(error.message, /Gave up after 3 attempts \(last: HTTP 429\)/);
    assert.match(error.hint ?? '', /llm\.concurrency/);
    assert.match(error.hint ?? '', /llm\.requestsPerMinute/);
    assert.deepEqual(
      events.map((event) => [event.attempt, event.delayMs, event.error.code]),
      [
        [1, 0, 'LLM_RATE_LIMITED'],
        [2, 0, 'LLM_RATE_LIMITED'],
      ],
    );
  });

  it('an abort cancels the backoff wait', async () => {
    const controller = new AbortController();
    const model = flakyModel([failure('LLM_SERVER_ERROR'), failure('LLM_SERVER_ERROR')]);
    const pending = withRetry(model, {
      baseDelayMs: 3_600_000,
      rng: () => 1 - 1e-9,
      sleep: abortableSleep,
      onRetry: () => controller.abort(new Error('stop waiting')),
    }).generate({ ...request, abortSignal: controller.signal });
    await assert.rejects(pending, /stop waiting/);
    assert.equal(model.attempts, 1);
  });

  it('retries a stream that failed before its first delta', async () => {
    const { sleep } = recorder();
    const model = flakyModel([failure('LLM_SERVER_ERROR')], 0);
    const parts: ChatStreamPart[] = [];
    for await (const part of withRetry(model, { sleep }).stream(request)) parts.push(part);
    assert.deepEqual(parts, [{ type: 'text-delta', text: 'ok' }, { type: 'finish', result: ok }]);
    assert.equal(model.attempts, 2);
  });

  it('does not retry a stream that already yielded text', async () => {
    const { sleep } = recorder();
    const model = flakyModel([failure('LLM_SERVER_ERROR')], 1);
    const parts: ChatStreamPart[] = [];
    await assert.rejects(async () => {
      for await (const part of withRetry(model, { sleep }).stream(request)) parts.push(part);
    }, /fake 503/);
    assert.equal(parts.length, 1);
    assert.equal(model.attempts, 1);
  });
});
