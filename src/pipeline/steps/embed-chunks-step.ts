import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { isCorpusFitted } from '../../providers/embed/embedder.js';
import type { PipelineStep } from '../pipeline-step.js';
import { embedSpace } from './embed-space.js';

/** Meta key of the fitted state of a corpus-fitted embedder. */
export const embedderStateKey = 'embedder:state';

/** First bytes of a stored state that is deflated ("kgz1"); states of earlier versions are stored as exported. */
const deflatedStateMagic = Buffer.from('kgz1');

/**
 * The embedder state as stored: deflated. The local embedder's state is 2^20 document-frequency counters, mostly
 * zero (4 MB on 2Wiki, 0.3 MB deflated); the embedder's id hashes the state itself, not this form.
 */
export function storedEmbedderState(state: Uint8Array): Uint8Array {
  return Buffer.concat([deflatedStateMagic, deflateRawSync(state)]);
}

/** The embedder state from its stored form (deflated, or as exported by an earlier version). */
export function embedderStateOf(stored: Uint8Array): Uint8Array {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  return bytes.subarray(0, deflatedStateMagic.length).equals(deflatedStateMagic) ? inflateRawSync(bytes.subarray(deflatedStateMagic.length)) : stored;
}

/** Settings that change vectors: the embedder and its prefixes. */
export function embeddingSettings(config: { embeddings: Record<string, unknown> }): unknown {
  const { batchSize: _batchSize, concurrency: _concurrency, apiKey: _apiKey, ...settings } = config.embeddings;
  return settings;
}

/**
 * Embeds every chunk as "document title + chunk text" (a contextual header: a chunk of a long
 * document rarely names its subject). A local embedder is first fitted on all chunks, and its state is
 * stored with the vectors so that queries embed in the same space.
 */
export const embedChunksStep: PipelineStep = {
  name: 'embed-chunks',
  // 2: sparse vectors are stored sparsely (a workspace of version 1 re-embeds once; the vectors are the same).
  version: 2,
  reads: ['chunk'],
  settings: embeddingSettings,

  async run(context) {
    const { store, embedder } = context;
    const chunks = await store.table('chunks').all();
    const titles = new Map((await store.table('documents').pick(['id', 'title'])).map((document) => [document.id, document.title]));
    const items = chunks.map((chunk) => {
      const title = titles.get(chunk.documentId) ?? '';
      return { id: chunk.id, text: title && !chunk.text.startsWith(title) ? `${title}\n${chunk.text}` : chunk.text };
    });
    if (isCorpusFitted(embedder)) embedder.fit(items.map((item) => item.text));
    return embedSpace(context, 'chunks', items, async (tx) => {
      if (isCorpusFitted(embedder)) await tx.setBlob(embedderStateKey, storedEmbedderState(embedder.exportState()));
    });
  },
};
