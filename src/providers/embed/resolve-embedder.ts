import type { KgragConfig } from '../../core/config/config-schema.js';
import { KgragError } from '../../core/errors.js';
import type { RetryEvent } from '../llm/retry-policy.js';
import type { SdkEmbeddingModel, SdkEmbeddingModelV2 } from '../llm/sdk-types.js';
import { createEmbedder } from './create-embedder.js';
import type { Embedder } from './embedder.js';
import { lazyEmbedder } from './lazy-embedder.js';

/**
 * An embedder as `createKgrag({ embedder })` takes it: any AI SDK embedding model (`openai.embedding(…)`,
 * `ollama.embedding(…)`, `MockEmbeddingModelV3`…), or kgrag's own {@link Embedder}.
 */
export type EmbedderInput = Embedder | SdkEmbeddingModel;

/**
 * The workspace's embedder: the configured one (`createEmbedder`) when none is `given`; a given AI SDK model through
 * `embedderFromSdk` with the configured `embeddings.batchSize`, `concurrency` and prefixes (its vector-space id is
 * `ai-sdk:<provider>:<modelId>`); kgrag's own embedder as it is.
 */
export function resolveEmbedder(
  given: EmbedderInput | SdkEmbeddingModelV2 | undefined,
  config: Pick<KgragConfig, 'embeddings' | 'llm'>,
  fetchImplementation?: typeof fetch,
  dependencies: { onRetry?: (event: RetryEvent) => void } = {},
): Embedder {
  if (given === undefined) return createEmbedder(config, fetchImplementation, dependencies);
  if (!('specificationVersion' in given)) return given;
  if (given.specificationVersion !== 'v3') {
    throw new KgragError(`The AI SDK embedding model "${given.modelId}" of ${given.provider} implements specification ${given.specificationVersion}; kgrag takes v3 models`, {
      code: 'CONFIG_EMBEDDINGS_UNSUPPORTED_MODEL',
      category: 'config',
      hint: 'Upgrade its provider package to the release for AI SDK 6 (`ai@6`), whose models implement specification v3',
    });
  }
  const { embeddings } = config;
  const id = `ai-sdk:${given.provider}:${given.modelId}`;
  return lazyEmbedder(id, embeddings.batchSize, async () =>
    (await import('./embedder-from-sdk.js')).embedderFromSdk(given, {
      id,
      batchSize: embeddings.batchSize,
      concurrency: embeddings.concurrency,
      queryPrefix: embeddings.queryPrefix,
      documentPrefix: embeddings.documentPrefix,
      ...(dependencies.onRetry === undefined ? {} : { retry: { onRetry: dependencies.onRetry } }),
    }),
  );
}
