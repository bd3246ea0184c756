import type { Citation } from './answer-types.js';

/**
 * The "Sources:" lines of an answer, each cited record once, in citation order: `[3] Title (source)` for a
 * passage, `[Reports 12] Title (community)` for another dataset. The CLI and the OpenAI-compatible chat print the
 * same lines; `clean` escapes text for where it is shown (a terminal).
 */
export function sourceList(citations: readonly Citation[], clean: (text: string) => string = (text) => text): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const citation of citations) {
    const key = `${citation.dataset}:${citation.hid}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const origin = citation.source && citation.source !== citation.title ? ` (${clean(citation.source)})` : '';
    lines.push(`[${citation.dataset === 'Sources' ? '' : `${citation.dataset} `}${citation.hid}] ${clean(citation.title)}${origin}`);
  }
  return lines;
}
