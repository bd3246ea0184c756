/**
 * `text` with a space put in place of one character in every `maxRun` of each run of non-whitespace characters
 * longer than `maxRun`, so the result has the same length and the same offsets. For parsers whose
 * tokenizers are quadratic in the length of such a run: wink-nlp's e-mail pattern, tried at every position of
 * a run of `*` or of letters, takes minutes on a 70,000-character run. Ordinary text (words, URLs) has no
 * runs that long and is returned unchanged.
 */
export function breakLongRuns(text: string, maxRun = 256): string {
  let result: string[] | undefined;
  let runStart = 0;
  let copied = 0;
  for (let index = 0; index <= text.length; index += 1) {
    if (index < text.length && !isWhitespace(text.charCodeAt(index))) continue;
    for (let cut = runStart + maxRun; index - runStart > maxRun && cut < index; cut += maxRun) {
      // A space in place of half a surrogate pair would leave the other half alone.
      while (cut < index && isSurrogate(text.charCodeAt(cut))) cut += 1;
      if (cut >= index) break;
      result ??= [];
      result.push(text.slice(copied, cut), ' ');
      copied = cut + 1;
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

function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}
