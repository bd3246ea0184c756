/** Options of {@link sanitizeForTerminal}. */
export interface SanitizeForTerminalOptions {
  /** Keep line feeds and tabs (an answer, a context table); otherwise they are escaped too (a file name, a title). @default false */
  multiline?: boolean;
}

/*
 * What a terminal may act on instead of showing: C0 controls (ESC starts colour, cursor and title
 * sequences; CR and BS overwrite what was printed), DEL, C1 controls (U+009B is a one-character CSI),
 * the bidirectional overrides, embeddings and isolates that reorder what is shown ("Trojan Source"),
 * and the Unicode line and paragraph separators that some terminals break lines on.
 */
const singleLineUnsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const multilineUnsafe = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

/**
 * Text that came from input (file names, titles, sources, warnings, document text, model replies) made safe
 * to print on a terminal: every control character and bidirectional override becomes a visible escape
 * (`\e`, `\n`, `\x07`, `\u202e`), so a file name cannot move the cursor, recolour the screen, set the
 * window title or split a `Sources:` line. Only for display: data (`--json`, the index) keeps the real text.
 */
export function sanitizeForTerminal(text: string, options: SanitizeForTerminalOptions = {}): string {
  return text.replace(options.multiline === true ? multilineUnsafe : singleLineUnsafe, escapeCharacter);
}

function escapeCharacter(character: string): string {
  const name = named[character];
  if (name !== undefined) return name;
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
