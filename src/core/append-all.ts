/**
 * Appends every item to `target` and returns it. Use it instead of `target.push(...items)`: a spread passes
 * each item as a call argument, and more than ~120,000 of them overflow the stack.
 */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
