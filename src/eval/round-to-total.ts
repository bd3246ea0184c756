/**
 * Rounds `values` to `decimals` places so that the rounded values sum to exactly `total` (largest-remainder
 * rounding: every value is rounded down, then the units still missing go to the largest remainders, ties to
 * the earlier value). Shares of one whole shown side by side then add up, where rounding each alone can
 * give 99.9 or 100.1. `values` should already sum to `total` up to floating-point error.
 */
export function roundToTotal(values: readonly number[], total: number, decimals: number): number[] {
  const scale = 10 ** decimals;
  const scaled = values.map((value) => value * scale);
  // The epsilon keeps 33.3 × 10 = 332.99999… from flooring to 332.
  const floors = scaled.map((value) => Math.floor(value + 1e-9));
  let missing = Math.round(total * scale) - floors.reduce((sum, value) => sum + value, 0);
  const byRemainder = scaled
    // Remainders are compared to 1e-6, so that float noise does not decide between equal shares.
    .map((value, index) => ({ index, remainder: Math.round((value - (floors[index] as number)) * 1e6) / 1e6 }))
    .sort((left, right) => right.remainder - left.remainder || left.index - right.index);
  for (let position = 0; missing > 0 && byRemainder.length > 0; position = (position + 1) % byRemainder.length, missing -= 1) {
    const index = (byRemainder[position] as { index: number }).index;
    floors[index] = (floors[index] as number) + 1;
  }
  // Values that summed above the total (floating-point excess) give back from the smallest remainders.
  for (let position = byRemainder.length - 1; missing < 0 && byRemainder.length > 0; position = (position - 1 + byRemainder.length) % byRemainder.length) {
    const index = (byRemainder[position] as { index: number }).index;
    if ((floors[index] as number) > 0) {
      floors[index] = (floors[index] as number) - 1;
      missing += 1;
    }
  }
  return floors.map((value) => value / scale);
}
