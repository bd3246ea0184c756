import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LlmCallError } from './llm-call-error.js';
import { parseRetryAfter } from './parse-retry-after.js';
import { httpFailureToLlmCallError, toLlmCallError } from './to-llm-call-error.js';
import type { ProviderCallContext } from './to-llm-call-error.js';

const context: ProviderCallContext = { service: 'llm', baseURL: 'http://localhost:8000/v1', modelId: 'qwen' };
const openAiError = (message: string, code?: string) => JSON.stringify({ error: { message, type: 'x', ...(code === undefined ? {} : { code }) } });

describe('parseRetryAfter', () => {
  it('reads retry-after-ms first, then delta-seconds, then an HTTP-date', () => {
    assert.equal(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }), 250);
    assert.equal(parseRetryAfter({ 'retry-after': '2' }), 2000);
    assert.equal(parseRetryAfter({ 'retry-after': '0.5' }), 500);
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:30 GMT' }), () => now), 30_000);
    assert.equal(parseRetryAfter({ 'retry-after': 'Wed, 21 Oct 2015 07:27:00 GMT' }, () => now), 0);
  });

  it('ignores absent and unparseable values', () => {
    assert.equal(parseRetryAfter(undefined), undefined);
    assert.equal(parseRetryAfter({}), undefined);
    assert.equal(parseRetryAfter({ 'retry-after': 'soon' }), undefined);
    assert.equal(parseRetryAfter({ 'retry-after-ms': '-5' }), undefined);
  });
});

describe('httpFailureToLlmCallError', () => {
  const cases: Array<[number, string | undefined, string, boolean]> = [
    [401, openAiError('Incorrect API key'), 'LLM_AUTHENTICATION_FAILED', false],
    [403, undefined, 'LLM_AUTHENTICATION_FAILED', false],
    [404, openAiError('The model `qwen` does not exist'), 'LLM_NOT_FOUND', false],
    [400, openAiError("This model's maximum context length is 8192 tokens"), 'LLM_CONTEXT_LENGTH_EXCEEDED', false],
    [400, openAiError('Invalid value for temperature'), 'LLM_BAD_REQUEST', false],
    [429, openAiError('Rate limit reached'), 'LLM_RATE_LIMITED', true],
    [429, openAiError('You exceeded your current quota', 'insufficient_quota'), 'LLM_QUOTA_EXCEEDED', false],
    [408, undefined, 'LLM_REQUEST_FAILED', true],
    [409, undefined, 'LLM_REQUEST_FAILED', true],
    [500, 'Internal Server Error', 'LLM_SERVER_ERROR', true],
    [503, undefined, 'LLM_SERVER_ERROR', true],
    [200, '<html>', 'LLM_MALFORMED_RESPONSE', true],
  ];
  for (const [status, body, code, retryable] of cases) {
    it(`maps HTTP ${status} ${body === undefined ? '' : body.slice(0, 40)} to ${code}`, () => {
      const error = httpFailureToLlmCallError({ status, ...(body === undefined ? {} : { body }) }, context);
      assert.equal(error.code, code);
      assert.equal(error.retryable, retryable);
      assert.equal(error.status, status);
      assert.equal(error.category, 'provider');
      if (!retryable) assert.ok(error.hint, 'errors the user must fix carry a hint');
    });
  }

  it('carries the server message and the retry-after delay', () => {
    const error = httpFailureToLlmCallError({ status: 429, headers: { 'retry-after': '4' }, body: openAiError('Slow down') }, context);
    assert.match(error.message, /Slow down/);
    assert.equal(error.retryAfterMs, 4000);
  });

  it('names the /v1 suffix for a 404 that is not about the model', () => {
    const error = httpFailureToLlmCallError({ status: 404, body: '404 page not found' }, context);
    assert.match(error.hint ?? '', /\/v1/);
  });
});

describe('toLlmCallError', () => {
  it('leaves aborts and LlmCallErrors alone and wraps unknown errors as non-retryable', () => {
    const abort = new DOMException('aborted', 'AbortError');
    assert.equal(toLlmCallError(abort, context), abort);
    const existing = new LlmCallError('x', { code: 'LLM_TIMEOUT', retryable: true });
    assert.equal(toLlmCallError(existing, context), existing);
    const wrapped = toLlmCallError(new Error('weird'), context);
    assert.ok(LlmCallError.isInstance(wrapped));
    assert.equal(wrapped.code, 'LLM_REQUEST_FAILED');
    assert.equal(wrapped.retryable, false);
  });

  it('treats a reset connection as a retryable connection error with a hint', () => {
    const reset = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    const error = toLlmCallError(reset, context);
    assert.ok(LlmCallError.isInstance(error));
    assert.equal(error.code, 'LLM_CONNECTION_FAILED');
    assert.equal(error.retryable, true);
    assert.equal(error.retryLimit, undefined);
    assert.match(error.hint ?? '', /Is the server running at http:\/\/localhost:8000\/v1\?/);
  });

  it('a refused connection or an unresolvable host means no server there: one retry, and the fix', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']) {
      const failure = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`connect ${code}`), { code }) });
      const error = toLlmCallError(failure, context);
      assert.ok(LlmCallError.isInstance(error));
      assert.equal(error.code, 'LLM_SERVER_UNREACHABLE', code);
      assert.equal(error.retryLimit, 1);
      assert.match(error.message, /http:\/\/localhost:8000\/v1/);
      assert.match(error.hint ?? '', /^Start the LLM server, or point llm\.baseURL \(or KGRAG_LLM_BASE_URL\)/);
    }
  });
});
