/** The value of `key` in `map`, made by `make` and kept on first use (a store's table and space handles). */
export function memoized<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
