/*
 * Characters removed outright: C0 controls except tab and newline, DEL, C1 controls, lone surrogates, and
 * invisible format characters that only hurt matching (zero-width space, word joiner, BOM / zero-width
 * no-break space, soft hyphen, Mongolian vowel separator, bidi embedding controls). Zero-width joiner and
 * non-joiner stay: emoji sequences and Persian or Indic words change meaning without them.
 */
const removedCharacters =
  /[\u0000-\u0008\u000E-\u001F\u007F-\u009F\u00AD\u180E\u200B\u2060\u202A-\u202E\u2066-\u2069\uFEFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Vertical tab, form feed (PDF page breaks), and the Unicode line and paragraph separators end lines. */
const lineBreaks = /\r\n?|[\u000B\u000C\u0085\u2028\u2029]/g;

/*
 * The lookbehind starts a match only where a run of spaces starts: without it a run inside a line is tried
 * again from each of its characters, which is quadratic (a 2 MB run took minutes).
 */
const trailingSpaces = /(?<![^\S\n])[^\S\n]+$/gm;

const excessBlankLines = /\n{4,}/g;

/**
 * Puts text into the one form kgrag stores, so that offsets, hashes and token counts are stable:
 * Unicode NFC; every line break as `\n`; BOM, zero-width and control characters (except `\n` and `\t`)
 * removed; trailing spaces of each line removed; three or more consecutive blank lines reduced to two;
 * leading and trailing whitespace trimmed. Idempotent: `normalizeText(normalizeText(x)) === normalizeText(x)`.
 */
export function normalizeText(text: string): string {
  return text
    .replace(lineBreaks, '\n')
    .replace(removedCharacters, '')
    .normalize('NFC')
    .replace(trailingSpaces, '')
    .replace(excessBlankLines, '\n\n\n')
    .trim();
}
