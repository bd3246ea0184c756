/**
 * LLM settings of the tests that index through the loopback mock server: the mock's `timeout` fault never
 * answers, so the per-call timeout is short, and retries back off in milliseconds instead of seconds.
 */
export function standardTestLlmConfig(baseURL: string): Record<string, unknown> {
  return {
    provider: 'openai-compatible',
    baseURL,
    apiKey: 'test-key',
    model: 'mock-model',
    concurrency: 8,
    timeoutMs: 1_500,
    maxRetries: 6,
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 50,
  };
}
