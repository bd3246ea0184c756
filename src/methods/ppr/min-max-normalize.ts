/**
 * HippoRAG 2's `min_max_normalize` as a function of one value: (x − min) / (max − min) over the given entries;
 * 1 when every entry is equal, as the reference's 0/0 guard gives. For reading a few normalized values of a long
 * vector without normalizing all of it.
 */
export function minMaxScale(values: ArrayLike<number>): (value: number) => number {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < values.length; index++) {
    const value = values[index] as number;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const range = max - min;
  return range > 0 ? (value) => (value - min) / range : () => 1;
}

/** {@link minMaxScale} applied to every entry, into a new Float64Array. */
export function minMaxNormalize(values: ArrayLike<number>): Float64Array {
  const scale = minMaxScale(values);
  const result = new Float64Array(values.length);
  for (let index = 0; index < values.length; index++) result[index] = scale(values[index] as number);
  return result;
}
