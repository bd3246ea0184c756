/** A label compared loosely: NFKC, lower case, whitespace runs as one space, trimmed. */
export function foldLabel(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}
