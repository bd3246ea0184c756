/**
 * Characters XML 1.0 does not allow anywhere, not even as character references: the C0 controls other than tab,
 * line feed and carriage return, lone surrogates (with the `u` flag a valid pair is one code point and does not
 * match), and U+FFFE/U+FFFF. Extracted text can carry them (a PDF's form feeds, a broken surrogate cut by a loader).
 */
const forbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/gu;

/** Markup characters, and the whitespace a parser would change: `\r` is normalized to `\n` everywhere. */
const inText = /[&<>"\r]/g;
/** In attribute values a parser also turns tab and line feed into spaces. */
const inAttribute = /[&<>"\t\n\r]/g;

const references: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/**
 * `value` as XML 1.0 character data (or, with `attribute`, as a double-quoted attribute value) that a parser
 * reads back unchanged, except that each character XML 1.0 forbids becomes U+FFFD: dropping it silently would
 * hide that the text held something, and no escape can carry it.
 */
export function escapeXml(value: string, attribute = false): string {
  return value.replace(forbidden, '\uFFFD').replace(attribute ? inAttribute : inText, (character) => references[character] ?? character);
}
