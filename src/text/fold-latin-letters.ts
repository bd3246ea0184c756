/** Latin letters beyond Latin-1 that have no canonical decomposition to a base letter. */
const undecomposable: Readonly<Record<string, string>> = {
  ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', ħ: 'h', Ħ: 'H', ı: 'i', ŧ: 't', Ŧ: 'T', ŋ: 'n', Ŋ: 'N', œ: 'o', Œ: 'O', ƒ: 'f', ɖ: 'd', Ɖ: 'D', ĸ: 'k', ŀ: 'l', Ŀ: 'L',
};

/**
 * `text` with each Latin letter beyond Latin-1 replaced by its base letter, one UTF-16 unit for one, so offsets are
 * unchanged. For wink-nlp, whose tokenizer ends a word at such a letter: "Miloš Zličić" becomes the tokens "Milo",
 * "š", "Zli", "č", "i", "ć", tagged as noise, so Czech, Polish, Croatian or Vietnamese names never come out whole.
 * The tagger reads the folded text; names are cut from the original by offset. Other scripts are left alone.
 */
export function foldLatinLetters(text: string): string {
  if (!/[\u0100-\u024f\u1e00-\u1eff]/u.test(text)) return text;
  return text.replace(/[\u0100-\u024f\u1e00-\u1eff]/gu, (letter) => {
    const mapped = undecomposable[letter];
    if (mapped !== undefined) return mapped;
    const base = letter.normalize('NFD').charAt(0);
    return /^[A-Za-z]$/.test(base) ? base : letter;
  });
}
