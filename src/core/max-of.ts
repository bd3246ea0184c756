/**
 * The largest of `values`, `-Infinity` when there are none and NaN when one is NaN, like `Math.max` of them
 * all — but without passing each value as a call argument, which overflows the stack past ~120,000 values.
 */
export function maxOf(values: Iterable<number>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const value of values) max = Math.max(max, value);
  return max;
}

/** The smallest of `values`, `Infinity` when there are none: `Math.min` of lists of any length. */
export function minOf(values: Iterable<number>): number {
  let min = Number.POSITIVE_INFINITY;
  for (const value of values) min = Math.min(min, value);
  return min;
}
