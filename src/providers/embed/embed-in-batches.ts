import type { EmbedOptions, Embedder, SparseEmbedder, SparseVector } from './embedder.js';

/** Options of {@link embedInBatches}. */
export interface EmbedInBatchesOptions extends EmbedOptions {
  /** Texts per call; capped by the embedder's `maxBatchSize`. */
  batchSize?: number;
  /** Calls in flight at once. @default 1 */
  concurrency?: number;
  /** Called as each batch completes (in completion order) with its first index and vectors. */
  onBatch?: (start: number, vectors: Float32Array[]) => void | Promise<void>;
}

/**
 * Embeds many texts in batches, a few batches in flight at once, and returns the vectors in input
 * order. Policy (batching, parallelism) lives here so adapters stay thin (the AI SDK's `embedMany`).
 */
export async function embedInBatches(
  embedder: Embedder,
  texts: readonly string[],
  options: EmbedInBatchesOptions = {},
): Promise<Float32Array[]> {
  const embedOptions: EmbedOptions = {};
  if (options.abortSignal) embedOptions.abortSignal = options.abortSignal;
  if (options.inputType) embedOptions.inputType = options.inputType;
  return inBatches(embedder, texts, options, (batch) => embedder.embed(batch, embedOptions));
}

/**
 * {@link embedInBatches} for an embedder that gives vectors by their non-zero coordinates (`embedSparse`), so that
 * many mostly-zero vectors are never held as dense arrays.
 */
export function embedSparseInBatches(
  embedder: SparseEmbedder,
  texts: readonly string[],
  options: Omit<EmbedInBatchesOptions, 'onBatch'> & { onBatch?: (start: number, vectors: SparseVector[]) => void | Promise<void> } = {},
): Promise<SparseVector[]> {
  return inBatches(embedder, texts, options, (batch) => embedder.embedSparse(batch));
}

/** Batches of `texts` through `embed`, `concurrency` at once, results in input order. */
async function inBatches<V>(
  embedder: Embedder,
  texts: readonly string[],
  options: { batchSize?: number; concurrency?: number; onBatch?: (start: number, vectors: V[]) => void | Promise<void> },
  embed: (batch: readonly string[]) => Promise<V[]>,
): Promise<V[]> {
  const batchSize = Math.max(1, Math.min(options.batchSize ?? embedder.maxBatchSize, embedder.maxBatchSize));
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const results: V[] = new Array<V>(texts.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < texts.length) {
      const start = next;
      next += batchSize;
      const vectors = await embed(texts.slice(start, start + batchSize));
      vectors.forEach((vector, offset) => {
        results[start + offset] = vector;
      });
      await options.onBatch?.(start, vectors);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.ceil(texts.length / batchSize)) }, worker));
  return results;
}
