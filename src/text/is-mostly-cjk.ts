import { cjkLetterClass, hasCjkLetter } from './cjk-letters.js';

const cjkLetters = new RegExp(`[${cjkLetterClass}]`, 'gu');
const otherWords = new RegExp(`(?:(?![${cjkLetterClass}])\\p{L})+`, 'gu');

/**
 * Whether `text` is mostly Chinese, Japanese or Korean: its CJK letters outnumber its other words (a CJK
 * letter is about a word's worth of text; an English word is several letters).
 */
export function isMostlyCjk(text: string): boolean {
  if (!hasCjkLetter(text)) return false;
  return (text.match(cjkLetters)?.length ?? 0) > (text.match(otherWords)?.length ?? 0);
}
