/**
 * Advance widths of printable ASCII (32–126) in thousandths of an em, from the Helvetica metrics that Arial
 * shares (Adobe's core-font AFM files).
 */
const asciiWidths = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space … /
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0 … 9
  278, 278, 584, 584, 584, 556, 1015, // : … @
  667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, // A … Z
  278, 278, 278, 469, 556, 333, // [ … `
  556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, // a … z
  334, 260, 334, 584, // { … ~
];

/**
 * Fonts that stand in for "sans-serif" (DejaVu Sans, Liberation Sans, Helvetica) are up to about 15 % wider
 * than Arial; layouts sized with this margin do not collide in any of them.
 */
const fallbackFontMargin = 1.15;

/** Bold glyphs are about 8 % wider than regular ones in these fonts. */
const boldFactor = 1.08;

/**
 * The width in pixels a line of `text` takes in a sans-serif font of `fontSize` pixels, slightly
 * overestimated: ASCII from real glyph widths, wide (CJK) characters at 1 em, anything else at 0.6 em.
 */
export function approximateTextWidth(text: string, fontSize: number, bold = false): number {
  let thousandths = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (code >= 32 && code <= 126) thousandths += asciiWidths[code - 32] ?? 600;
    else if (code >= 0x1100 && /\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}|[\u3000-\u303f\uff00-\uffef]/u.test(character)) thousandths += 1000;
    else thousandths += 600;
  }
  return (thousandths / 1000) * fontSize * fallbackFontMargin * (bold ? boldFactor : 1);
}
