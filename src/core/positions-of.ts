/**
 * Each item's position in `items` (the last one for an item listed twice), built in one loop: `new Map(items.map((item,
 * index) => [item, index]))` allocates a pair per item, and an update builds such maps of tens of thousands of ids.
 */
export function positionsOf<T>(items: readonly T[]): Map<T, number> {
  const positions = new Map<T, number>();
  for (let index = 0; index < items.length; index++) positions.set(items[index] as T, index);
  return positions;
}
