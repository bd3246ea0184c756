/** A character only markdown, or a line break, brings; and a start of a line that is a list marker, a quote or a rule. */
const markdownCharacter = /[\r\n#[*_`>]/;
const markdownLineStart = /^\s*(?:[-+]\s|\d+[.)]\s|=|---)/;

/**
 * A sentence as prose: markdown headings glued to it by the sentence splitter left out ("# The Analytical Engine
 * He then conceived …" is "He then conceived …"), list and quote markers, emphasis, code ticks and link targets
 * removed, whitespace collapsed.
 */
export function plainSentence(raw: string): string {
  // Most sentences of prose have no line break and no mark of markdown: only their whitespace to collapse.
  if (!markdownCharacter.test(raw) && !markdownLineStart.test(raw)) return raw.replace(/\s+/g, ' ').trim();
  const lines = raw.split(/\r?\n/).map((line) => line.trim()).filter((line) => line.length > 0 && !/^(?:=+|-{3,}|\*{3,})$/.test(line));
  const heading = (line: string): boolean => /^#{1,6}\s/.test(line);
  const prose = lines.some((line) => !heading(line)) ? lines.filter((line) => !heading(line)) : lines.map((line) => line.replace(/^#{1,6}\s+/, ''));
  return prose
    .map((line) => line.replace(/^(?:[-*+]\s+|\d+[.)]\s+|>\s*)+/, ''))
    .join(' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|\*|`)(\S(?:[^*`]*?\S)?)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
}
