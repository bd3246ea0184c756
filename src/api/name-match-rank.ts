/** How a name matches a query, best first: the whole name, its start, the start of one of its words, anywhere. */
export const nameMatchKinds = ['exact', 'prefix', 'word', 'contains'] as const;

/** One of {@link nameMatchKinds}. */
export type NameMatchKind = (typeof nameMatchKinds)[number];

const wordCharacter = /[\p{L}\p{N}]/u;

/**
 * The rank (index into {@link nameMatchKinds}) of the best way `name` contains `query`, or -1 when it does not;
 * both are already folded the same way (`foldLabel`). A word starts where a letter or digit follows anything else,
 * so "weir" starts a word of "kester weir bridge" and of "st. kester's (weir)", but not of "kesterweir".
 */
export function nameMatchRank(name: string, query: string): number {
  if (name === query) return 0;
  if (name.startsWith(query)) return 1;
  let at = name.indexOf(query, 1);
  if (at < 0) return -1;
  for (; at > 0; at = name.indexOf(query, at + 1)) {
    if (!wordCharacter.test(name.charAt(at - 1))) return 2;
  }
  return 3;
}
