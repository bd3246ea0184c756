import type { ReportRecord } from '../../core/types.js';
import type { ScoredId } from '../../store/store.js';
import { localCommunities } from '../local/index.js';
import type { MethodContext } from '../query-method.js';

/**
 * The `k` reports nearest to `vector` by cosine over their full-content embeddings, among the reports
 * local search may use at `level` (the same roll-up, microsoft/graphrag `query/indexer_adapters.py`), best first.
 */
export async function topReports(context: MethodContext, vector: Float32Array, k: number, level: number): Promise<Array<{ report: ReportRecord; score: number }>> {
  const { reports: usable } = await localCommunities(context, level);
  const space = context.store.vectors('reports');
  let depth = Math.min(k * 4, usable.size);
  let hits: ScoredId[] = [];
  // Reports above the level are skipped, so search deeper until k usable ones are found or none are left.
  while (depth > 0) {
    hits = await space.search(vector, depth);
    const usableHits = hits.filter((hit) => usable.has(hit.id));
    if (usableHits.length >= k || hits.length < depth) {
      hits = usableHits;
      break;
    }
    depth *= 4;
  }
  const chosen = hits.filter((hit) => usable.has(hit.id)).slice(0, k);
  const rows = new Map((await context.store.table('reports').get(chosen.map((hit) => hit.id))).map((report) => [report.communityId, report]));
  return chosen.flatMap((hit) => {
    const report = rows.get(hit.id);
    return report ? [{ report, score: hit.score }] : [];
  });
}
