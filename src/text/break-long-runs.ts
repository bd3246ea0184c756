/**
 * `text` with a space in place of one character in every `maxRun` of each run of non-whitespace characters
 * longer than `maxRun` (two spaces for a character of two UTF-16 units), so the result has the same length and
 * offsets. For parsers whose tokenizers are quadratic in the length of such a run: wink-nlp's e-mail pattern,
 * tried at every position of a run of `*` or of letters, takes minutes on a 70,000-character run. Ordinary
 * text (words, URLs) has no runs that long and is returned unchanged.
 */
export function breakLongRuns(text: string, maxRun = 256): string {
  let result: string[] | undefined;
  let runStart = 0;
  let copied = 0;
  for (let index = 0; index <= text.length; index += 1) {
    if (index < text.length && !isWhitespace(text.charCodeAt(index))) continue;
    for (let cut = runStart + maxRun; index - runStart > maxRun && cut < index; cut += maxRun) {
      // Whole characters only: a surrogate pair becomes two spaces, never one half of it.
      if (isLowSurrogate(text.charCodeAt(cut))) cut += 1;
      if (cut >= index) break;
      const width = isHighSurrogate(text.charCodeAt(cut)) && isLowSurrogate(text.charCodeAt(cut + 1)) ? 2 : 1;
      result ??= [];
      result.push(text.slice(copied, cut), width === 2 ? '  ' : ' ');
      copied = cut + width;
    }
    runStart = index + 1;
  }
  if (result === undefined) return text;
  result.push(text.slice(copied));
  return result.join('');
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
