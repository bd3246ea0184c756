/**
 * The `count` most frequent values, most frequent first, ties in order of first occurrence: Python's
 * `Counter.most_common`, which the reference's `sample_k_outputs` uses to vote over oversampled
 * selections (amazon-science/tree-of-traversals `treeoftraversals.py`), made explicit so the kept selections never depend on
 * anything but the replies.
 */
export function mostCommon(values: readonly string[], count: number): string[] {
  const tally = new Map<string, number>();
  for (const value of values) tally.set(value, (tally.get(value) ?? 0) + 1);
  // A Map iterates in insertion order, i.e. first occurrence; the sort is stable.
  return [...tally]
    .sort((left, right) => right[1] - left[1])
    .slice(0, count)
    .map(([value]) => value);
}
