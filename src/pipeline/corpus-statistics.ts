import { z } from 'zod';
import type { Store } from '../store/store.js';
import type { StepContext, StepName } from './pipeline-step.js';

/*
 * Frozen corpus statistics (docs/ARCHITECTURE.md, "Updates at the cost of the change"). Some fast-mode figures are
 * functions of the whole corpus: the local embedder's document frequencies, the noun-phrase graph's PMI totals and
 * percentile threshold, the passage graph's hub cut-off. Recomputing them on every update changes every vector and
 * edge for a one-document change. Instead they are fitted at a *refresh* and kept, with a count of how far the corpus
 * has moved since, until that drift passes `index.refreshShare` (or `kgrag index --refresh`). An *epoch* names one
 * refresh; a step that depends on such figures records the epoch its output was computed under, and between refreshes
 * computes only what the change touches, with the stored figures.
 */

/** Meta key of the {@link CorpusStatistics} record. */
export const corpusStatisticsKey = 'corpus-statistics';

const corpusStatisticsSchema = z.object({
  version: z.literal(1),
  /** Names the refresh; a step whose output was computed under another epoch recomputes in full. */
  epoch: z.string(),
  /** ISO-8601 time of the refresh. */
  fittedAt: z.string(),
  /** Documents and chunks the statistics were fitted on. */
  documents: z.number().int().min(0),
  chunks: z.number().int().min(0),
  /** Chunks added or removed since the refresh, summed over the runs (a changed chunk counts as both). */
  changedChunks: z.number().int().min(0),
});

/** When the corpus statistics were fitted and how far the corpus has moved since. */
export type CorpusStatistics = z.output<typeof corpusStatisticsSchema>;

/** The statistics record of an index, or undefined when it has none (built before epochs, or empty). */
export async function readCorpusStatistics(store: Store): Promise<CorpusStatistics | undefined> {
  const parsed = corpusStatisticsSchema.safeParse(await store.getMeta(corpusStatisticsKey));
  return parsed.success ? parsed.data : undefined;
}

/** The share of the chunks fitted on that changed since, as `kgrag documents` and `/stats` report it. */
export function driftShare(statistics: CorpusStatistics): number {
  return statistics.changedChunks / Math.max(1, statistics.chunks);
}

/** What a step that depends on the corpus statistics does in this run. */
export interface StatisticsEpoch {
  /** The current epoch (record it with {@link recordStatisticsEpoch} in the step's write). */
  epoch: string;
  /**
   * True when the step's stored output was computed under the current epoch: it updates that output with the stored
   * figures. False after a refresh, on a first build, or after a crash between the refresh and the step: it refits.
   */
  incremental: boolean;
}

const epochKey = (step: StepName): string => `statistics-epoch:${step}`;

/** Whether `step` may update its stored output with the stored statistics this run (see {@link StatisticsEpoch}). */
export async function statisticsEpochOf(context: Pick<StepContext, 'store'>, step: StepName): Promise<StatisticsEpoch> {
  const statistics = await readCorpusStatistics(context.store);
  if (statistics === undefined) return { epoch: '', incremental: false };
  return { epoch: statistics.epoch, incremental: (await context.store.getMeta<string>(epochKey(step))) === statistics.epoch };
}

/** Records, in the step's write, that its output is computed under `epoch`. */
export async function recordStatisticsEpoch(tx: Store, step: StepName, epoch: string): Promise<void> {
  await tx.setMeta(epochKey(step), epoch);
}
