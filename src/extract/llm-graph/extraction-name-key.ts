import { foldLabel } from '../../text/fold-label.js';

/**
 * The key under which one chunk's extraction turns merge an entity: Unicode-compatible (NFKC),
 * lower-cased, whitespace collapsed, wrapping quotes dropped. Deliberately literal — "Holmes" and
 * "Sherlock Holmes" stay apart here; entity resolution decides such pairs later with the whole corpus.
 */
export function extractionNameKey(name: string): string {
  return foldLabel(name)
    .replace(/^["'`“”‘’]+|["'`“”‘’]+$/g, '')
    .trim();
}
