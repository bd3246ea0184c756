/** The non-standard number tokens Python's `json.dump` writes (allow_nan=True). */
const bareTokens = ['-Infinity', 'Infinity', 'NaN'] as const;

/** `charCodeAt` outside the text gives NaN, which is no word character, so the text's ends are boundaries. */
function isWordCharacter(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** Result of {@link parseLenientJson}. */
export interface LenientJson {
  value: unknown;
  /** Character offsets (in the input) of the `NaN` / `Infinity` / `-Infinity` tokens that became `null`. */
  replaced: number[];
}

/**
 * Parses JSON that Python wrote with `allow_nan=True`: bare `NaN`, `Infinity` and `-Infinity` tokens
 * outside strings become `null`, then the text goes through `JSON.parse`. A small scanner tracks
 * strings (with escapes), so the same words inside strings are left alone. Any other syntax error is
 * thrown by `JSON.parse` unchanged.
 */
export function parseLenientJson(text: string): LenientJson {
  const parts: string[] = [];
  const replaced: number[] = [];
  let copiedUpTo = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === 34) {
      // Skip a string: find its closing quote, stepping over escaped characters.
      index += 1;
      while (index < text.length) {
        const inner = text.charCodeAt(index);
        if (inner === 92) index += 2;
        else if (inner === 34) break;
        else index += 1;
      }
      index += 1;
      continue;
    }
    if (code === 78 || code === 73 || code === 45) {
      const token = bareTokens.find((candidate) => text.startsWith(candidate, index));
      if (token !== undefined && !isWordCharacter(text.charCodeAt(index - 1)) && !isWordCharacter(text.charCodeAt(index + token.length))) {
        parts.push(text.slice(copiedUpTo, index), 'null');
        replaced.push(index);
        index += token.length;
        copiedUpTo = index;
        continue;
      }
    }
    index += 1;
  }
  if (replaced.length === 0) return { value: JSON.parse(text) as unknown, replaced };
  parts.push(text.slice(copiedUpTo));
  return { value: JSON.parse(parts.join('')) as unknown, replaced };
}
