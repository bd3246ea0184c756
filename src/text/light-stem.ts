/**
 * A light English suffix stripper for matching, not linguistics: plural and verb endings
 * ("designed", "designs", "designing" → "design"; "floods" → "flood"; "companies" → "company"),
 * in the spirit of Harman's S-stemmer (JASIS 1991) extended to -ed/-ing. Short words are left alone.
 */
export function lightStem(word: string): string {
  if (word.length <= 3) return word;
  // A final silent "e" goes too, so that "collapse" and "collapsed" (or "closes", "closing") meet at "collaps".
  return withoutFinalE(suffixStripped(word));
}

function suffixStripped(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('ing') && word.length > 5) return undouble(word.slice(0, -3));
  if (word.endsWith('ed') && word.length > 4) return undouble(word.slice(0, -2));
  if (word.endsWith('es') && /(?:ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

function withoutFinalE(stem: string): string {
  return stem.length > 4 && stem.endsWith('e') && !stem.endsWith('ee') ? stem.slice(0, -1) : stem;
}

function undouble(stem: string): string {
  return /([bdgmnprt])\1$/.test(stem) ? stem.slice(0, -1) : stem;
}
