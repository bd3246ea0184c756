/**
 * The indices of the `k` highest `scores` (only those with a score above `floor`), best first; equal scores
 * rank by lower index, so the result never depends on anything but the scores. A binary heap of k entries
 * whose root is the lowest-ranked one: O(n log k).
 */
export function topIndices(scores: ArrayLike<number>, k: number, floor = Number.NEGATIVE_INFINITY): number[] {
  const heap: number[] = [];
  const below = (a: number, b: number): boolean => {
    const left = scores[a] as number;
    const right = scores[b] as number;
    return left < right || (left === right && a > b);
  };
  const siftDown = (start: number): void => {
    let parent = start;
    for (;;) {
      let child = 2 * parent + 1;
      if (child >= heap.length) return;
      if (child + 1 < heap.length && below(heap[child + 1] as number, heap[child] as number)) child++;
      if (!below(heap[child] as number, heap[parent] as number)) return;
      [heap[parent], heap[child]] = [heap[child] as number, heap[parent] as number];
      parent = child;
    }
  };
  if (k <= 0) return [];
  // Once the heap is full, an index enters only with a score above its root's: an equal score never does,
  // because every index in the heap is lower. Comparing with a number first skips most entries cheaply.
  let threshold = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < scores.length; index++) {
    const value = scores[index] as number;
    if (!(value > floor)) continue;
    if (heap.length < k) {
      heap.push(index);
      for (let child = heap.length - 1; child > 0; ) {
        const parent = (child - 1) >> 1;
        if (!below(heap[child] as number, heap[parent] as number)) break;
        [heap[parent], heap[child]] = [heap[child] as number, heap[parent] as number];
        child = parent;
      }
      if (heap.length === k) threshold = scores[heap[0] as number] as number;
    } else if (value > threshold) {
      heap[0] = index;
      siftDown(0);
      threshold = scores[heap[0] as number] as number;
    }
  }
  return heap.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
}
