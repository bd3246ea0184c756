/**
 * HippoRAG 2's `min_max_normalize`: (x − min) / (max − min) over the given entries, into a new Float64Array;
 * all ones when every entry is equal (and there is at least one), as the reference's 0/0 guard gives.
 */
export function minMaxNormalize(values: ArrayLike<number>): Float64Array {
  const result = new Float64Array(values.length);
  if (values.length === 0) return result;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < values.length; index++) {
    const value = values[index] as number;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const range = max - min;
  for (let index = 0; index < values.length; index++) result[index] = range > 0 ? ((values[index] as number) - min) / range : 1;
  return result;
}
