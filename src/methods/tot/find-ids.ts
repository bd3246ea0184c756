const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The ids of `options` that occur in `text` as whole tokens (case-insensitive), in order of first
 * occurrence, each once. The reference matched entity ids as substrings (`ent.casefold() in argument`),
 * so `Q1` was also found in `Q12`; here an id must not touch a letter, digit or `_` on either side.
 * Longer ids are tried first, as in the reference's alternation (`sorted(options, key=len, reverse=True)`).
 */
export function findIds(text: string, options: readonly string[]): string[] {
  const ids = [...new Set(options)].filter((id) => id.length > 0).sort((left, right) => right.length - left.length);
  if (ids.length === 0) return [];
  const byFolded = new Map(ids.map((id) => [id.toLowerCase(), id]));
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${ids.map(escape).join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  const found: string[] = [];
  for (const match of text.matchAll(pattern)) {
    const id = byFolded.get(match[0].toLowerCase());
    if (id !== undefined && !found.includes(id)) found.push(id);
  }
  return found;
}
