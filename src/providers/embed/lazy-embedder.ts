import type { Embedder } from './embedder.js';

/**
 * An embedder whose implementation is loaded on its first call: the HTTP embedder shares the LLM adapter's
 * error mapping, which imports the AI SDK, and a process that never embeds (a query that reads stored vectors
 * only) should not pay for loading it. Its id and batch size are known up front; its dimension once loaded.
 */
export function lazyEmbedder(id: string, maxBatchSize: number, load: () => Promise<Embedder>): Embedder {
  let loaded: Embedder | undefined;
  let loading: Promise<Embedder> | undefined;
  return {
    id,
    maxBatchSize,
    get dimensions() {
      return loaded?.dimensions;
    },
    async embed(texts, options) {
      loading ??= load().then((embedder) => (loaded = embedder));
      return (await loading).embed(texts, options);
    },
  };
}
