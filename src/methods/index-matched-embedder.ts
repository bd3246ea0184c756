import { KgragError } from '../core/errors.js';
import { isCorpusFitted, type CorpusFittedEmbedder, type Embedder } from '../providers/embed/embedder.js';
import type { Store } from '../store/store.js';

/**
 * The query embedder, refusing to embed when the index's vectors were made by another embedder. A different model
 * of the same dimension gives vectors that compare without an error and rank nonsense, so the embedder id the
 * vectors record (model and dimension) is checked before the first query vector of a generation is made. The
 * chunk space stands for all: every vector step reads `embed-chunks` and re-embeds when the embedder changes.
 * Methods that read no vectors (basic:bm25) never embed and are not stopped.
 */
export function indexMatchedEmbedder(embedder: Embedder, store: Store): Embedder {
  let checked: Promise<void> | undefined;
  const check = (): Promise<void> => {
    checked ??= store
      .vectors('chunks')
      .info()
      .then((info) => {
        if (info === undefined || info.embedderId === embedder.id) return;
        throw new KgragError(`the index's vectors were made by the embedder "${info.embedderId}", but the configured embedder is "${embedder.id}"`, {
          code: 'QUERY_EMBEDDER_MISMATCH',
          category: 'config',
          hint: 'restore the embeddings settings the index was built with, or run `kgrag index` to re-embed with the new ones',
          details: { indexed: info.embedderId, configured: embedder.id },
        });
      });
    checked.catch(() => {
      checked = undefined;
    });
    return checked;
  };
  const matched: Embedder = {
    get id() {
      return embedder.id;
    },
    get dimensions() {
      return embedder.dimensions;
    },
    maxBatchSize: embedder.maxBatchSize,
    async embed(texts, options) {
      await check();
      return embedder.embed(texts, options);
    },
  };
  if (!isCorpusFitted(embedder)) return matched;
  const fitted: Omit<CorpusFittedEmbedder, keyof Embedder> = {
    corpusFitted: true,
    fit: (corpus) => embedder.fit(corpus),
    exportState: () => embedder.exportState(),
    importState: (state) => embedder.importState(state),
  };
  return Object.assign(matched, fitted);
}
