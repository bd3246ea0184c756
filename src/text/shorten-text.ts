/**
 * `text` on one line (whitespace runs as one space, trimmed), and when longer than `limit` characters cut to
 * at most `limit` with a final `…`: after a whole word (at the last space when it lies in the second half),
 * never inside a surrogate pair.
 */
export function shortenText(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= limit) return flat;
  let cut = flat.slice(0, Math.max(1, limit - 1));
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  if (flat[cut.length] === ' ') return `${cut}…`;
  const space = cut.lastIndexOf(' ');
  return `${space > limit / 2 ? cut.slice(0, space) : cut}…`;
}
