import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatStreamPart, LanguageModel } from './language-model.js';
import { LlmCallError } from './llm-call-error.js';
import { timeoutMiddleware } from './timeout-middleware.js';
import type { TimeoutOptions } from './timeout-middleware.js';
import { wrapKgragLanguageModel } from './wrap-kgrag-language-model.js';

const withTimeout = (model: LanguageModel, options: TimeoutOptions): LanguageModel => wrapKgragLanguageModel(model, timeoutMiddleware(options));

const request = { messages: [{ role: 'user' as const, content: 'hi' }] };

/** Never answers; rejects with the signal's reason when aborted (as fetch does). */
const hangingModel: LanguageModel = {
  provider: 'fake',
  modelId: 'fake',
  generate: (call) =>
    new Promise((_, reject) => {
      call.abortSignal?.addEventListener('abort', () => reject(call.abortSignal?.reason));
    }),
  async *stream(call): AsyncGenerator<ChatStreamPart> {
    yield { type: 'text-delta', text: 'partial' };
    await new Promise((_, reject) => {
      call.abortSignal?.addEventListener('abort', () => reject(call.abortSignal?.reason));
    });
  },
};

describe('timeoutMiddleware', () => {
  it('turns an expired call into a retryable LLM_TIMEOUT', async () => {
    const error = await withTimeout(hangingModel, { timeoutMs: 10 }).generate(request).catch((caught: unknown) => caught);
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_TIMEOUT');
    assert.equal(error.retryable, true);
  });

  it('times out a model that ignores its abort signal', async () => {
    const deaf: LanguageModel = { ...hangingModel, generate: () => new Promise(() => undefined) };
    await assert.rejects(withTimeout(deaf, { timeoutMs: 10 }).generate(request), (error) => LlmCallError.isInstance(error) && error.code === 'LLM_TIMEOUT');
  });

  it('covers the whole stream', async () => {
    const parts: ChatStreamPart[] = [];
    await assert.rejects(async () => {
      for await (const part of withTimeout(hangingModel, { timeoutMs: 10 }).stream(request)) parts.push(part);
    }, (error) => LlmCallError.isInstance(error) && error.code === 'LLM_TIMEOUT');
    assert.equal(parts.length, 1);
  });

  it("keeps the caller's abort an abort", async () => {
    const controller = new AbortController();
    const pending = withTimeout(hangingModel, { timeoutMs: 60_000 }).generate({ ...request, abortSignal: controller.signal });
    controller.abort(new Error('user cancelled'));
    await assert.rejects(pending, /user cancelled/);
  });
});
