import { escapeRegExp } from '../../text/escape-reg-exp.js';

/**
 * A pattern that finds any of `ids` as a whole token (not touching a letter, digit or `_`), longest id first,
 * case-insensitive; the id is the group `id`. `before` is pattern source matched just before the token (the
 * relation choice's optional `~`). `undefined` when there is no id.
 */
export function wholeIdPattern(ids: readonly string[], before = ''): RegExp | undefined {
  const sorted = [...new Set(ids)].filter((id) => id.length > 0).sort((left, right) => right.length - left.length);
  if (sorted.length === 0) return undefined;
  return new RegExp(`${before}(?<![\\p{L}\\p{N}_])(?<id>${sorted.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
}

/**
 * The ids of `options` that occur in `text` as whole tokens (case-insensitive), in order of first
 * occurrence, each once. The reference matched entity ids as substrings (`ent.casefold() in argument`),
 * so `Q1` was also found in `Q12`; here an id must not touch a letter, digit or `_` on either side.
 * Longer ids are tried first, as in the reference's alternation (`sorted(options, key=len, reverse=True)`).
 */
export function findIds(text: string, options: readonly string[]): string[] {
  const pattern = wholeIdPattern(options);
  if (pattern === undefined) return [];
  const byFolded = new Map(options.map((id) => [id.toLowerCase(), id]));
  const found: string[] = [];
  for (const match of text.matchAll(pattern)) {
    const id = byFolded.get((match.groups?.id ?? '').toLowerCase());
    if (id !== undefined && !found.includes(id)) found.push(id);
  }
  return found;
}
