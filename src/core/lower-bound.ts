/**
 * The first position in `sorted` (ascending by `<`) whose item is not below `value`: where `value` is, or would be
 * inserted to keep the order. A binary search.
 */
export function lowerBound<T extends number | string>(sorted: ArrayLike<T>, value: T): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as T) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
