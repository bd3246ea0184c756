/*
 * The k× corpus of the scale benchmark (issue 22): k copies of a passage corpus, copy 0 the original and every
 * other copy with its titles and names renamed, the same way in every passage of that copy. Each copy is then a
 * corpus of its own documents and entities (a film of copy 3 has a director of copy 3, born in a town of copy 3),
 * with the original's multi-hop structure inside it, and nothing in common with the other copies but common words.
 *
 * What is a name: a capitalized word (letters or digits, 2+ characters) that is not a function word, a month or
 * weekday, or a Roman numeral, and that the corpus writes capitalized at least four times as often as in lower case
 * ("Lothair", "Tuscany", "American", "Duke" are names; "The", "Film", "Love" are not). A title without such a word
 * ("The Love Route", "Dark River (2017 film)") is a name as a whole phrase: where the phrase, less a trailing
 * "(…)", appears in a passage it is renamed as one (its last word changes); a title with no letters ("1917")
 * gets its copy's made-up name in parentheses, in the title only, since renaming the number would change years.
 *
 * A name's variant in copy c ≥ 1 is a made-up, pronounceable name of as many syllables, drawn from a generator
 * seeded by the name and c ("Lambert" → "Ravom", "Tuscany" → "Dekisu"); one that would equal any word of the corpus
 * (ignoring case) or a variant already given is drawn again. Variants of copy c depend only on the corpus and c,
 * not on how many copies are made: copy 1 of the 4× corpus is copy 1 of the 16× corpus.
 */
import { createRandom } from '../src/core/random.js';
import { englishStopwords } from '../src/text/stopwords.js';

/** One passage of a corpus file (`[{title, text}]`, as 2Wiki's corpus.json). */
export interface Passage {
  title: string;
  text: string;
}

/** A k× corpus and the renaming that made it. */
export interface ScaledCorpus {
  /** Copy 0's passages, then copy 1's, … */
  passages: Passage[];
  /** `text` as copy `copy` writes it (e.g. a question about copy 0's passages, asked of copy `copy`). */
  rename(text: string, copy: number): string;
  /** How many distinct words the renaming treats as names (title phrases not counted). */
  nameCount: number;
  /** How many titles are renamed as a whole phrase (they have no name word). */
  titlePhraseCount: number;
}

const wordPattern = /[\p{L}\p{M}\p{N}]+/gu;
const calendarWords = new Set('January February March April May June July August September October November December Monday Tuesday Wednesday Thursday Friday Saturday Sunday'.split(' '));
const consonants = 'bdfgklmnprstvz';
const vowels = 'aeiou';
/** Seed of every variant draw; any fixed number would do. */
const renameSeed = 22;

/** FNV-1a of a string, the seed of that string's variant draws. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function isCapitalized(word: string): boolean {
  return /^\p{Lu}/u.test(word);
}

/**
 * A made-up name in place of `word`, from a generator seeded by the word, the copy and the attempt: one syllable per
 * vowel group of `word` (consonant–vowel, or a bare vowel first when `word` starts with one), closed by a consonant
 * when `word` ends in one, capitalized like `word` (an acronym becomes random capitals of its length), then the
 * word's digits. Each retry after the fourth adds a syllable, so a free variant is always found. No letters are kept:
 * the local embedder's character n-grams must not tie a copy's name to the original's.
 */
function drawVariant(word: string, copy: number, attempt: number): string {
  const random = createRandom(hashOf(`${renameSeed}|${copy}|${attempt}|${word}`));
  const pick = (letters: string): string => letters[Math.floor(random() * letters.length)] as string;
  const letters = word.replace(/[^\p{L}]/gu, '');
  const digits = word.replace(/[^\p{N}]/gu, '');
  const longer = Math.floor(attempt / 4);
  if (letters.length >= 2 && letters === letters.toUpperCase()) {
    let acronym = '';
    for (let index = 0; index < letters.length + longer; index++) acronym += pick(consonants + vowels).toUpperCase();
    return acronym + digits;
  }
  const syllables = Math.max(1, letters.match(/[aeiouyàáâäãåæèéêëìíîïòóôöõøùúûüý]+/giu)?.length ?? 0) + longer;
  let made = /^[aeiouàáâäãåæèéêëìíîïòóôöõøùúûüý]/iu.test(letters) ? pick(vowels) : '';
  for (let syllable = made.length; syllable < syllables; syllable++) made += pick(consonants) + pick(vowels);
  if (/[^aeiouyàáâäãåæèéêëìíîïòóôöõøùúûüý]$/iu.test(letters)) made += pick(consonants);
  return made.charAt(0).toUpperCase() + made.slice(1) + digits;
}

/** Counts of every word of the corpus, in its own case. */
function wordCounts(passages: readonly Passage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const passage of passages) {
    for (const text of [passage.title, passage.text]) {
      for (const match of text.matchAll(wordPattern)) counts.set(match[0], (counts.get(match[0]) ?? 0) + 1);
    }
  }
  return counts;
}

/** A title less its trailing disambiguation ("Dark River (2017 film)" → "Dark River"), as passages cite it. */
function citedTitle(title: string): string {
  return title.replace(/\s*\([^()]*\)\s*$/, '').trim();
}

/**
 * Makes `copies` copies of `passages` (copy 0 unchanged, the others renamed as the file's comment says). Words of
 * `questions` count as corpus words too, so a name that only a question has (a film the corpus lacks) is renamed
 * in that question's copies as well. The same input gives the same output.
 */
export function scaleCorpus(passages: readonly Passage[], copies: number, questions: readonly string[] = []): ScaledCorpus {
  if (!Number.isInteger(copies) || copies < 1) throw new Error(`copies must be a positive integer, not ${copies}`);
  const counts = wordCounts([...passages, ...questions.map((question) => ({ title: '', text: question }))]);
  const isName = (word: string): boolean =>
    word.length >= 2 &&
    isCapitalized(word) &&
    !/^[IVXLCDM]+$/.test(word) &&
    !calendarWords.has(word) &&
    !englishStopwords.has(word.toLowerCase()) &&
    (counts.get(word.toLowerCase()) ?? 0) * 4 <= (counts.get(word) ?? 0);
  const names = [...counts.keys()].filter(isName).sort();
  const nameSet = new Set(names);

  // Title phrases: titles with no name word, renamed as a whole by changing one word (the last capitalized
  // non-function word, else the last capitalized word, else the last word with a letter).
  const phrases = new Map<string, { words: string[]; changed: number }>();
  const titleOnly = new Set<string>();
  for (const passage of passages) {
    const words = [...passage.title.matchAll(wordPattern)].map((match) => match[0]);
    if (words.some((word) => nameSet.has(word))) continue;
    const cited = [...citedTitle(passage.title).matchAll(wordPattern)];
    const first = cited[0];
    const last = cited[cited.length - 1];
    // From its first word to its last: "(Romance) in the Digital Age" is cited as "Romance) in the Digital Age".
    const phrase = first === undefined || last === undefined ? '' : first.input.slice(first.index, last.index + last[0].length);
    const phraseWords = cited.map((match) => match[0]);
    const lastIndex = (accept: (word: string) => boolean): number => phraseWords.findLastIndex(accept);
    let changed = lastIndex((word) => isCapitalized(word) && word.length >= 2 && !englishStopwords.has(word.toLowerCase()));
    if (changed < 0) changed = lastIndex((word) => isCapitalized(word));
    if (changed < 0) changed = lastIndex((word) => /\p{L}/u.test(word));
    if (changed < 0) titleOnly.add(passage.title);
    else phrases.set(phrase, { words: phraseWords, changed });
  }
  // Phrases by first word, longest first, so "The Room" is tried after "The Room Upstairs".
  const phrasesByFirstWord = new Map<string, string[]>();
  for (const phrase of phrases.keys()) {
    const first = phrase.match(wordPattern)?.[0];
    if (first === undefined) continue;
    const list = phrasesByFirstWord.get(first) ?? [];
    list.push(phrase);
    phrasesByFirstWord.set(first, list);
  }
  for (const list of phrasesByFirstWord.values()) list.sort((left, right) => right.length - left.length || (left < right ? -1 : 1));

  // Variants, copy by copy, each word in sorted order: a variant never equals a corpus word or an earlier variant.
  const taken = new Set<string>();
  for (const word of counts.keys()) taken.add(word.toLowerCase());
  const variants: Array<Map<string, string>> = [new Map()];
  const variantOf = (word: string, copy: number): string => {
    for (let attempt = 0; ; attempt++) {
      const variant = drawVariant(word, copy, attempt);
      if (!taken.has(variant.toLowerCase())) {
        taken.add(variant.toLowerCase());
        return variant;
      }
    }
  };
  const phraseWordsToChange = [...new Set([...phrases.values()].map(({ words, changed }) => words[changed] as string))].sort();
  const titleOnlyWords = [...titleOnly].sort();
  for (let copy = 1; copy < copies; copy++) {
    const map = new Map<string, string>();
    for (const word of names) map.set(word, variantOf(word, copy));
    // Keyed apart from the names ("\u0000" cannot occur in a word): a phrase's changed word is renamed only inside it.
    for (const word of phraseWordsToChange) map.set(`\u0000${word}`, variantOf(word, copy));
    for (const title of titleOnlyWords) map.set(`\u0001${title}`, `${title} (${variantOf(title, copy)})`);
    variants.push(map);
  }

  const rename = (text: string, copy: number): string => {
    if (copy === 0) return text;
    const map = variants[copy];
    if (map === undefined) throw new Error(`copy ${copy} does not exist: the corpus has ${copies} copies`);
    const parts: string[] = [];
    let written = 0;
    const words = new RegExp(wordPattern.source, 'gu');
    for (let match = words.exec(text); match !== null; match = words.exec(text)) {
      const word = match[0];
      const start = match.index;
      const phrase = phrasesByFirstWord.get(word)?.find((candidate) => text.startsWith(candidate, start) && !/[\p{L}\p{M}\p{N}]/u.test(text.charAt(start + candidate.length)));
      if (phrase !== undefined) {
        const { words: phraseWords, changed } = phrases.get(phrase) as { words: string[]; changed: number };
        // Rebuild the phrase word by word, keeping its separators, with the one changed word's variant.
        let index = 0;
        const renamed = phrase.replace(wordPattern, (phraseWord) => (index++ === changed ? (map.get(`\u0000${phraseWords[changed]}`) as string) : phraseWord));
        parts.push(text.slice(written, start), renamed);
        written = start + phrase.length;
        words.lastIndex = written;
        continue;
      }
      const variant = map.get(word);
      if (variant === undefined) continue;
      parts.push(text.slice(written, start), variant);
      written = start + word.length;
    }
    parts.push(text.slice(written));
    return parts.join('');
  };

  const scaled: Passage[] = [];
  for (let copy = 0; copy < copies; copy++) {
    for (const passage of passages) {
      const title = titleOnly.has(passage.title) && copy > 0 ? (variants[copy]?.get(`\u0001${passage.title}`) as string) : rename(passage.title, copy);
      scaled.push({ title, text: rename(passage.text, copy) });
    }
  }
  return { passages: scaled, rename, nameCount: names.length, titlePhraseCount: phrases.size };
}
