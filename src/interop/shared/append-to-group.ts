/** Appends `value` to the list of `key` in `groups`, starting the list when the key is new. */
export function appendToGroup<K, V>(groups: Map<K, V[]>, key: K, value: V): void {
  const list = groups.get(key);
  if (list) list.push(value);
  else groups.set(key, [value]);
}
