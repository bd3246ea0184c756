/** Result of {@link orderCandidates}. */
export interface OrderedCandidates {
  /** Fact indices, most question-similar first, ties by fact index. */
  facts: Int32Array;
  /** Candidates dropped because there were more than the cap. */
  evicted: number;
}

/**
 * The expanded facts in the one deterministic order `relations` uses for them (the notebook lists a Python
 * set, in no defined order): question similarity descending, ties by fact index ascending. Above `cap`
 * only the first `cap` are kept, which is vector-graph-rag's eviction (`relation_number_threshold`: keep the
 * most query-similar relations), so that one hub phrase cannot flood the rerank prompt or its latency.
 */
export function orderCandidates(candidates: Int32Array, questionSimilarity: Float32Array, cap: number): OrderedCandidates {
  const order = Array.from(candidates);
  order.sort((left, right) => (questionSimilarity[right] as number) - (questionSimilarity[left] as number) || left - right);
  const kept = Math.min(cap, order.length);
  return { facts: Int32Array.from(order.slice(0, kept)), evicted: order.length - kept };
}
