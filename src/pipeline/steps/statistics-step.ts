import { contentId } from '../../core/ids.js';
import { corpusStatisticsKey, readCorpusStatistics, type CorpusStatistics } from '../corpus-statistics.js';
import type { PipelineStep } from '../pipeline-step.js';

/**
 * Decides whether this run refits the corpus statistics (`src/pipeline/corpus-statistics.ts`): on a first build, on
 * `kgrag index --refresh`, with `index.refreshShare` 0, and when the chunks added or removed since the last refresh,
 * this run's included, pass that share of the chunks fitted on. Otherwise it only counts the drift, and keeps the
 * epoch, so the steps that read it update their output with the stored figures.
 */
export const statisticsStep: PipelineStep = {
  name: 'statistics',
  version: 1,
  reads: ['chunk'],
  // The share decides when the next refresh comes, not what this run computed: changing it refits nothing by itself.
  settings: () => ({}),
  mustRun: (context) => context.inputs.refresh === true,

  async run(context) {
    const { store, config, inputs } = context;
    const previous = await readCorpusStatistics(store);
    const [chunkRun] = await store.table('runs').get(['chunk']);
    const changed = (chunkRun?.counts['added'] ?? 0) + (chunkRun?.counts['removed'] ?? 0);
    const chunks = await store.table('chunks').count();
    const documents = await store.table('documents').count();
    const share = config.index.refreshShare;
    const drift = previous === undefined ? Number.POSITIVE_INFINITY : (previous.changedChunks + changed) / Math.max(1, previous.chunks);
    const refresh = previous === undefined || inputs.refresh === true || share === 0 || drift > share;
    const chunkVersion = chunkRun?.outputVersion ?? '';
    const next: CorpusStatistics = refresh
      ? {
          version: 1,
          // Chained to the previous epoch, so that a refresh of an unchanged corpus is still a new epoch.
          epoch: contentId('statistics', chunkVersion, previous?.epoch ?? ''),
          fittedAt: new Date().toISOString(),
          documents,
          chunks,
          changedChunks: 0,
        }
      : { ...(previous as CorpusStatistics), changedChunks: (previous as CorpusStatistics).changedChunks + changed };
    return {
      counts: { refreshed: refresh ? 1 : 0, chunks, changedChunks: next.changedChunks, fittedChunks: next.chunks },
      outputVersion: next.epoch,
      changedRecords: !refresh,
      async write(tx) {
        await tx.setMeta(corpusStatisticsKey, next);
      },
    };
  },
};
