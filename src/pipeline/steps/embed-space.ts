import { contentId } from '../../core/ids.js';
import { embedInBatches, embedSparseInBatches } from '../../providers/embed/embed-in-batches.js';
import { isCorpusFitted, isSparseEmbedder, type SparseVector } from '../../providers/embed/embedder.js';
import type { Store, VectorSpace } from '../../store/store.js';
import type { StepContext, StepOutput } from '../pipeline-step.js';

/** A text to embed under an id. */
export interface EmbeddingItem {
  id: string;
  text: string;
}

/**
 * Brings one vector space in line with `items`. With a corpus-fitted (local) embedder everything is
 * re-embedded and written in the step's transaction — it is cheap and its vectors change with every
 * fit. With a remote embedder only items without a vector are embedded, and each batch is stored as it
 * arrives, so a crash never pays for the same embeddings twice; vectors of vanished items are dropped.
 */
export async function embedSpace(
  context: StepContext,
  space: VectorSpace,
  items: readonly EmbeddingItem[],
  extraWrite?: (tx: Store) => Promise<void>,
): Promise<StepOutput> {
  const { store, embedder, config } = context;
  const vectors = store.vectors(space);
  const batchSize = Math.min(config.embeddings.batchSize, embedder.maxBatchSize);
  const itemIds = new Set(items.map((item) => item.id));

  if (isCorpusFitted(embedder)) {
    const texts = items.map((item) => item.text);
    let done = 0;
    const onBatch = (_start: number, batch: readonly unknown[]): void => {
      done += batch.length;
      context.progress(done, items.length, space);
    };
    const embedded = isSparseEmbedder(embedder) ? await embedSparseInBatches(embedder, texts, { batchSize: 512, onBatch }) : await embedInBatches(embedder, texts, { batchSize: 512, onBatch });
    return {
      counts: { [space]: items.length, embedded: items.length },
      outputVersion: contentId('vectors', space, embedder.id, Array.from(itemIds).sort()),
      async write(tx) {
        const target = tx.vectors(space);
        await target.clear();
        await target.upsert(
          items.map((item, index) => ({ id: item.id, vector: embedded[index] as Float32Array | SparseVector })),
          embedder.id,
        );
        await extraWrite?.(tx);
      },
    };
  }

  const info = await vectors.info();
  if (info && info.embedderId !== embedder.id) await vectors.clear();
  const present = new Set(info && info.embedderId === embedder.id ? await vectors.ids() : []);
  const missing = items.filter((item) => !present.has(item.id));
  let done = items.length - missing.length;
  context.progress(done, items.length, space);
  await embedInBatches(
    embedder,
    missing.map((item) => item.text),
    {
      batchSize,
      concurrency: config.embeddings.concurrency,
      inputType: 'document',
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
      onBatch: async (start, batch) => {
        await vectors.upsert(
          batch.map((vector, offset) => ({ id: (missing[start + offset] as EmbeddingItem).id, vector })),
          embedder.id,
        );
        done += batch.length;
        context.progress(done, items.length, space);
      },
    },
  );
  const stale = [...present].filter((id) => !itemIds.has(id));
  return {
    counts: { [space]: items.length, embedded: missing.length, removed: stale.length },
    outputVersion: contentId('vectors', space, embedder.id, Array.from(itemIds).sort()),
    async write(tx) {
      await tx.vectors(space).delete(stale);
      await extraWrite?.(tx);
    },
  };
}

