/**
 * Positions of the `limit` best scores, best first, ties by lower position (the release's `argsort` is not
 * stable, so its tie order is arbitrary; candidate lists here are in passage order, so ties go to the
 * earlier passage). With `positiveOnly`, scores ≤ 0 — texts sharing no term with the query — never rank.
 */
export function rankByScore(scores: ArrayLike<number>, limit: number, positiveOnly = false): number[] {
  const positions: number[] = [];
  for (let position = 0; position < scores.length; position++) {
    if (!positiveOnly || (scores[position] as number) > 0) positions.push(position);
  }
  // Only the positive scores need sorting; zeros (when kept) follow in position order, as ties do.
  const positive = positions.filter((position) => (scores[position] as number) > 0);
  positive.sort((left, right) => (scores[right] as number) - (scores[left] as number) || left - right);
  if (positive.length >= limit || positiveOnly) return positive.slice(0, limit);
  const rest = positions.filter((position) => !((scores[position] as number) > 0));
  return [...positive, ...rest.slice(0, limit - positive.length)];
}
