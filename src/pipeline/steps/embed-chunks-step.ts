import { inflateRawSync } from 'node:zlib';
import { isCorpusFitted } from '../../providers/embed/embedder.js';
import { recordStatisticsEpoch, statisticsEpochOf } from '../corpus-statistics.js';
import type { PipelineStep } from '../pipeline-step.js';
import { embedSpace } from './embed-space.js';

/** Meta key of the fitted state of a corpus-fitted embedder. */
export const embedderStateKey = 'embedder:state';

/** First bytes of a stored state that is deflated ("kgz1"), as earlier versions stored it; others are as exported. */
const deflatedStateMagic = Buffer.from('kgz1');

/**
 * The embedder state from its stored form: as exported, or deflated as earlier versions stored it. The local embedder's
 * state is 2^20 document-frequency counters (4 MB; 0.3 MB deflated), written only when the corpus statistics are
 * refitted but read by every update and every query process: inflating it cost 20-50 ms each time, reading the 4 MB
 * about 2, so it is stored as exported.
 */
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
 * Embeds every chunk as "document title + chunk text" (a contextual header: a chunk of a long document rarely names
 * its subject). A local embedder is fitted on all chunks when the corpus statistics are refitted (the `statistics`
 * step), and its state is stored with the vectors so that queries embed in the same space; between refreshes it keeps
 * the stored state, so only new chunks are embedded and every other vector stays as it is.
 */
export const embedChunksStep: PipelineStep = {
  name: 'embed-chunks',
  // 3: the local embedder's state is refitted only with the corpus statistics.
  version: 3,
  reads: ['chunk', 'statistics'],
  settings: embeddingSettings,

  async run(context) {
    const { store, embedder } = context;
    const chunks = await store.table('chunks').all();
    const titles = new Map((await store.table('documents').pick(['id', 'title'])).map((document) => [document.id, document.title]));
    const items = chunks.map((chunk) => {
      const title = titles.get(chunk.documentId) ?? '';
      return { id: chunk.id, text: title && !chunk.text.startsWith(title) ? `${title}\n${chunk.text}` : chunk.text };
    });
    const { epoch, incremental } = await statisticsEpochOf(context, 'embed-chunks');
    let refit = false;
    if (isCorpusFitted(embedder)) {
      const stored = incremental ? await store.getBlob(embedderStateKey) : undefined;
      if (stored === undefined) {
        embedder.fit(items.map((item) => item.text));
        refit = true;
      } else {
        embedder.importState(embedderStateOf(stored));
      }
    }
    const output = await embedSpace(context, 'chunks', items, {
      async extraWrite(tx) {
        if (refit && isCorpusFitted(embedder)) await tx.setBlob(embedderStateKey, embedder.exportState());
        await recordStatisticsEpoch(tx, 'embed-chunks', epoch);
      },
    });
    return { ...output, counts: { ...output.counts, refitted: refit ? 1 : 0 } };
  },
};
