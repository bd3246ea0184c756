import { z } from 'zod';
import type { Store } from '../../../store/store.js';

/*
 * What the `keywords` step keeps between runs so that a small change of the corpus neither clusters the chunks again
 * nor names every cluster again: the cluster of every chunk in each clustering, every cluster's keywords (and, with
 * the LLM, the chunks its prompt showed), the inputs and outputs of the passes over whole lists, and how far the
 * corpus has moved since the last full clustering. One blob, rewritten on every run of the step from the chunks the
 * index holds then, so a deleted document's chunks leave it with the run that removes them. Stored as plain JSON
 * (UTF-8): it holds ids and keywords, nothing a search of the index for a deleted text should have to inflate.
 */

/** Store blob of the state. */
export const keywordClusterStateKey = 'autokg-keyword-clusters';

const rewrittenList = z.object({ input: z.array(z.string()), output: z.array(z.string()) });

const storedClustering = z.object({
  method: z.enum(['spectral', 'k-means']),
  clusters: z.number().int().min(0),
  /** Cluster of `chunkIds[i]`. */
  assignments: z.array(z.number().int()),
  /** LLM keywords: per cluster, its refined keywords and the chunks shown (indices into `chunkIds`). */
  named: z.array(z.object({ keywords: z.array(z.string()), shown: z.array(z.number().int().min(0)) })).optional(),
  /** LLM keywords: the clustering's list and its refinement. */
  list: rewrittenList.optional(),
  /** c-TF-IDF keywords: per cluster, [phrase key, surface] pairs. */
  tfidf: z.array(z.array(z.tuple([z.string(), z.string()]))).optional(),
});

const keywordClusterState = z.object({
  version: z.literal(1),
  /** Hash of everything besides the chunks that shapes the clusters and their keywords. */
  settings: z.string(),
  /** `llm` or `tfidf`: who named the clusters. */
  naming: z.enum(['llm', 'tfidf']),
  /** Chunks at the last full clustering. */
  baseChunks: z.number().int().min(0),
  /** Chunks added or removed since the last full clustering, summed over the runs. */
  changedChunks: z.number().int().min(0),
  /** The clustered chunks, in the order of every clustering's `assignments`. */
  chunkIds: z.array(z.string()),
  clusterings: z.array(storedClustering),
  /** LLM keywords: the united list the final passes read, and their keywords. */
  final: rewrittenList.optional(),
  /** The keywords the step wrote, in order. */
  keywords: z.array(z.string()),
  /**
   * The Laplace seeds each keyword's members were solved with, [positives, negatives] as indices into `chunkIds`: an
   * update keeps the members of a keyword whose seeds are the same (build-keyword-graph.ts).
   */
  seeds: z.array(z.tuple([z.array(z.number().int().min(0)), z.array(z.number().int().min(0))])).optional(),
});

/** The state of the `keywords` step between runs (see the file header). */
export type KeywordClusterState = z.output<typeof keywordClusterState>;

/** One stored clustering of {@link KeywordClusterState}. */
export type StoredKeywordClustering = z.output<typeof storedClustering>;

/** The stored state, or undefined when there is none or it cannot be read (then the step clusters from scratch). */
export async function readKeywordClusterState(store: Store): Promise<KeywordClusterState | undefined> {
  const bytes = await store.getBlob(keywordClusterStateKey);
  if (bytes === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  const parsed = keywordClusterState.safeParse(json);
  if (!parsed.success) return undefined;
  const state = parsed.data;
  const consistent = state.clusterings.every((clustering) => clustering.assignments.length === state.chunkIds.length && clustering.assignments.every((cluster) => cluster >= 0 && cluster < clustering.clusters));
  return consistent ? state : undefined;
}

/** The bytes of `state` for {@link keywordClusterStateKey}. */
export function encodeKeywordClusterState(state: KeywordClusterState): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(state));
}
