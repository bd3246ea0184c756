import { normalizeText } from './normalize-text.js';
import { shortenText } from './shorten-text.js';

/** Longest title kept, in characters; longer ones are cut at a word boundary and end with `…`. */
export const maxTitleLength = 200;

/**
 * Normalizes a title the way {@link normalizeText} normalizes text, then joins its lines with single spaces,
 * because titles are shown on one line (CLI tables, citations, the graph explorer).
 */
export function normalizeTitle(title: string): string {
  return shortenText(normalizeText(title), maxTitleLength);
}
