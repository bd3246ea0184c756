/**
 * The distinct strings of `list` in ascending order (UTF-16 code units, as `Array.prototype.sort` orders them). A list
 * already strictly ascending is returned as it is, after one pass: community rows store their members and relations
 * sorted, and sorting them again on every update cost more than the rest of hashing them.
 */
export function sortedUnique(list: readonly string[]): readonly string[] {
  for (let index = 1; index < list.length; index++) {
    if (!((list[index - 1] as string) < (list[index] as string))) return Array.from(new Set(list)).sort();
  }
  return list;
}
