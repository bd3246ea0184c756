import type { DocumentSection } from './load-types.js';

/*
 * The opening of an ATX heading; its text is read by atxHeadingText. One pattern for the whole line
 * (`(.*?)(?:[ \t]+#+)?[ \t]*$`) is quadratic on a heading line with a long run of spaces.
 */
const atxHeading = /^ {0,3}(#{1,6})(?=[ \t]|$)/;
const closingHashes = /[ \t]#+$/;
const setextUnderline = /^ {0,3}(=+|-+)[ \t]*$/;
const fence = /^ {0,3}(```|~~~)/;
const notParagraph = /^\s*$|^ {0,3}(?:[-*+>|]|\d{1,9}[.)])(?:\s|$)/;

/**
 * Finds the headings of Markdown text, in order: ATX (`## Title`) and single-line setext headings
 * (`Title` over `===` or `---`), ignoring fenced code blocks. Offsets refer to `text` as given, so pass the
 * normalized text.
 */
export function findMarkdownSections(text: string): DocumentSection[] {
  const sections: DocumentSection[] = [];
  let openFence: string | undefined;
  let previousLine = '';
  let previousStart = 0;
  let previousIsParagraphStart = false;
  let beforePreviousBlank = true;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const fenceMatch = fence.exec(line);
    let paragraphLine = false;
    if (openFence !== undefined) {
      if (fenceMatch?.[1] === openFence) openFence = undefined;
    } else if (fenceMatch) {
      openFence = fenceMatch[1];
    } else {
      const atx = atxHeading.exec(line);
      const underline = setextUnderline.exec(line);
      if (atx) {
        sections.push({ heading: atxHeadingText(line.slice(atx[0].length)), level: atx[1]!.length, start: lineStart });
      } else if (underline && previousIsParagraphStart && beforePreviousBlank) {
        sections.push({ heading: previousLine.trim(), level: underline[1]!.startsWith('=') ? 1 : 2, start: previousStart });
      } else {
        paragraphLine = !notParagraph.test(line);
      }
    }
    beforePreviousBlank = previousLine.trim() === '';
    previousIsParagraphStart = paragraphLine;
    previousLine = line;
    previousStart = lineStart;
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  return sections;
}

/** The text of an ATX heading after its opening `#`s: trimmed, without an optional closing run of `#`. */
function atxHeadingText(rest: string): string {
  const text = rest.trimEnd();
  // `# #` is an empty heading: the `#` is a closing run, the space before it the one after the opening.
  if (/^[ \t]+#+$/.test(text)) return '';
  return text.replace(closingHashes, '').trim();
}
