import type { WorkspaceStats } from '../api-types';

const count = new Intl.NumberFormat('en-US');
const percent = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/**
 * How far the corpus drifted from the statistics the index was fitted with, as the header says it: "statistics from
 * 6,058 documents; 3.1 % changed since". Undefined for an index without stored statistics (not built yet, or older).
 */
export function statisticsDrift(statistics: WorkspaceStats['statistics']): { text: string; title: string } | undefined {
  if (!statistics) return undefined;
  const documents = `${count.format(statistics.documents)} document${statistics.documents === 1 ? '' : 's'}`;
  const text = `statistics from ${documents}; ${percent.format(statistics.changedShare * 100)} % changed since`;
  const refresh = statistics.refreshShare > 0 ? `they are refitted once ${percent.format(statistics.refreshShare * 100)} % of the passages changed` : 'they are refitted on every update';
  const title = `Corpus statistics fitted ${new Date(statistics.fittedAt).toLocaleString()} from ${documents} (${count.format(statistics.chunks)} passages); ${count.format(statistics.changedChunks)} passages added, changed or removed since; ${refresh}.`;
  return { text, title };
}
