import type { KgragConfig } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import type { RetryEvent } from '../llm/retry-policy.js';
import type { Embedder } from './embedder.js';
import { createLocalEmbedder } from './local-embedder.js';
import { lazyEmbedder } from './lazy-embedder.js';
import { openAiCompatibleEmbedderId } from './openai-compatible-embedder-id.js';

/**
 * The configured embedder: `local` (no weights, the default) or an OpenAI-compatible endpoint, which
 * falls back to the LLM's base URL and key so that one server can serve both.
 */
export function createEmbedder(
  config: Pick<KgragConfig, 'embeddings' | 'llm'>,
  fetchImplementation?: typeof fetch,
  dependencies: { onRetry?: (event: RetryEvent) => void } = {},
): Embedder {
  const embeddings = config.embeddings;
  if (embeddings.provider === 'local') {
    return createLocalEmbedder(embeddings.dimensions === undefined ? {} : { dimensions: embeddings.dimensions });
  }
  const baseURL = embeddings.baseURL ?? config.llm.baseURL ?? (config.llm.apiKey || embeddings.apiKey ? 'https://api.openai.com/v1' : undefined);
  if (!baseURL) {
    throw new KgragError('embeddings.provider is "openai-compatible" but no endpoint is configured', {
      code: 'CONFIG_EMBEDDINGS_ENDPOINT_MISSING',
      category: 'config',
      hint: 'set embeddings.baseURL (or llm.baseURL), e.g. http://localhost:11434/v1, or use embeddings.provider: local',
    });
  }
  const apiKey = embeddings.apiKey ?? config.llm.apiKey;
  const options = {
    baseURL,
    modelId: embeddings.model,
    batchSize: embeddings.batchSize,
    concurrency: embeddings.concurrency,
    queryPrefix: embeddings.queryPrefix,
    documentPrefix: embeddings.documentPrefix,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(embeddings.dimensions === undefined ? {} : { dimensions: embeddings.dimensions }),
    ...(embeddings.maxReplyBytes === undefined ? {} : { maxReplyBytes: embeddings.maxReplyBytes }),
    ...(config.llm.headers === undefined ? {} : { headers: config.llm.headers }),
    ...(fetchImplementation === undefined ? {} : { fetch: fetchImplementation }),
    ...(dependencies.onRetry === undefined ? {} : { retry: { onRetry: dependencies.onRetry } }),
  };
  return lazyEmbedder(openAiCompatibleEmbedderId(options), embeddings.batchSize, async () =>
    (await import('./openai-compatible-embedder.js')).createOpenAiCompatibleEmbedder(options),
  );
}
