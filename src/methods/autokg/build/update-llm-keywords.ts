import type { Random } from '../../../core/random.js';
import type { LanguageModel } from '../../../providers/llm/language-model.js';
import type { ChunkClusteringMethod } from './cluster-chunk-embeddings.js';
import { filterKeywords } from './filter-keywords.js';
import { createLlmKeywordCalls, type LlmKeywordCall, type LlmKeywordCallInput, type NamedCluster } from './llm-keyword-calls.js';
import { type KeywordChain, type LlmKeywordResult, type RewrittenList, runKeywordChains, sameList } from './run-keyword-chains.js';

/*
 * AutoKG's LLM keywords after a small change of the corpus (the clustering kept, new chunks joined to the nearest
 * cluster: update-chunk-clustering.ts). Only the clusters whose member set changed are named again, with the same
 * extraction and refinement prompts as a full run (llm-keyword-calls.ts); the others keep the keywords they were
 * named with. A renamed cluster's avoid list is sampled (m, seeded per clustering) from the current keywords of the
 * other clusters of its clustering in cluster order — the kept clusters' and those renamed before it in this update
 * — rather than from the clusters before it as in the full run's chain: the chain's order has no meaning once the
 * earlier clusters are not asked again. A cluster left without members loses its keywords.
 *
 * The passes over whole lists run only when their input changed: a clustering's global refinement when its list of
 * cluster keywords differs from the list it last refined, the three final passes when the united list differs from
 * the one they last read; otherwise their stored output is kept. So an update that renames one cluster of each
 * clustering costs 2 × 2 + 2 + 3 = 9 calls instead of 2 × (2n + 1) + 3, and one whose renamed clusters come back
 * with the same keywords costs only the renaming.
 *
 * Sources (`ChatRequest.sources`): a renamed cluster's calls name its shown chunks and those of the other clusters of
 * its clustering (its avoid list is drawn from their keywords); a global refinement names every chunk its clustering
 * shows; the final passes every chunk shown.
 */

/** One cluster as the update finds it: named before and unchanged, or to be named from these chunks. */
export type ClusterToName = { kept: NamedCluster } | { show: Int32Array };

/** One clustering of an update. */
export interface ClusteringToUpdate {
  method: ChunkClusteringMethod;
  /** Per cluster, in cluster order. An empty `show`: the cluster lost every member. */
  clusters: readonly ClusterToName[];
  /** The clustering's list as last refined. */
  list: RewrittenList;
}

/** Input of {@link updateLlmKeywords}. */
export interface LlmKeywordUpdateInput extends LlmKeywordCallInput {
  clusterings: readonly ClusteringToUpdate[];
  /** The united list the final passes last read, and their keywords. */
  final: RewrittenList;
  /** Seed of the avoid-list sampling (one generator per clustering: seed + its position). */
  seed: number;
}

/** Names the changed clusters again and re-runs the list passes whose input changed. Deterministic given the replies. */
export async function updateLlmKeywords(llm: LanguageModel, input: LlmKeywordUpdateInput): Promise<LlmKeywordResult> {
  const model = createLlmKeywordCalls(llm, input);
  const runClustering = async (clustering: ClusteringToUpdate, random: Random, log: LlmKeywordCall[]): Promise<KeywordChain> => {
    const current: Array<NamedCluster | undefined> = clustering.clusters.map((cluster) => ('kept' in cluster ? cluster.kept : undefined));
    const toShow = clustering.clusters.map((cluster) => ('show' in cluster && cluster.show.length > 0 ? cluster.show : undefined));
    const order = toShow.flatMap((chunks, index) => (chunks === undefined ? [] : [index]));
    clustering.clusters.forEach((cluster, index) => {
      if ('show' in cluster && cluster.show.length === 0) current[index] = { keywords: [], shown: [] };
    });
    for (const [position, cluster] of order.entries()) {
      const others = current.flatMap((named, index) => (index !== cluster && named !== undefined ? [named] : []));
      const avoidFrom = filterKeywords(
        others.flatMap((named) => named.keywords),
        { substringFilter: false },
      );
      const sources = new Set(others.flatMap((named) => named.shown));
      const next = order[position + 1];
      current[cluster] = await model.nameCluster(log, clustering.method, cluster, toShow[cluster] as Int32Array, avoidFrom, random, sources, next === undefined ? undefined : toShow[next]);
    }
    const named = current.map((entry) => entry ?? { keywords: [], shown: [] });
    const found = filterKeywords(
      named.flatMap((entry) => entry.keywords),
      { substringFilter: false },
    );
    if (sameList(found, clustering.list.input)) return { named, list: clustering.list };
    const shown = new Set(named.flatMap((entry) => entry.shown));
    const output = filterKeywords(await model.refine(log, 'autokg-refine-all', clustering.method, -1, found, shown), { substringFilter: false });
    return { named, list: { input: found, output } };
  };

  return runKeywordChains(model, input.clusterings, input.seed, runClustering, input.final);
}
