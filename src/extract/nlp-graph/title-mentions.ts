import { normalizePhraseKey, type PhraseExtraction, type PhraseMention } from './noun-phrase-extractor.js';

/** Bumped when {@link titleMentions} or {@link titleAlias} read a title otherwise: stored extractions read it again. */
export const titleReadingVersion = 2;

/** A chunk's noun phrases as nlp-extract stores them: the extractor's mentions, and those of its document's title. */
export interface TitledPhraseExtraction extends PhraseExtraction {
  /**
   * Where the chunk writes its document's title ({@link titleMentions}). Kept apart from `mentions`, which AutoKG's
   * keywords share with the extractor's other readers; absent in extractions stored before titles were read.
   */
  titleMentions?: PhraseMention[];
  /** The title as another name of the name the document opens with ({@link titleAlias}), if it is one. */
  titleAlias?: PhraseMention;
  /** The {@link titleReadingVersion} these were read with; absent before version 2. */
  titleReading?: number;
}

/** What {@link withTitleMentions} lets through: whether titles may be aliases, and the names kept apart (phrase keys). */
export interface TitleAliasRules {
  titleAliases: boolean;
  keepApart: ReadonlySet<string>;
}

const leadingArticle = /^(?:the|a|an)\s+/i;
const letterOrDigit = /[\p{L}\p{N}]/u;
/** A title longer than this is a sentence, not a name. */
const maxTitleWords = 12;

/** A document title as its text would write it: without a trailing disambiguation in brackets and a leading article. */
export function titleAsName(title: string): string {
  return title.replace(/\s*\([^()]*\)\s*$/, '').trim().replace(leadingArticle, '');
}

/** {@link titleAsName}, or '' when the title is no name. */
function titleForm(title: string | undefined): string {
  const form = titleAsName(title ?? '');
  if (form.length < 2 || !/[\p{Lu}\p{N}]/u.test(form) || form.split(/\s+/).length > maxTitleWords) return '';
  return normalizePhraseKey(form.split(/\s+/)).length < 2 ? '' : form;
}

/**
 * The title as a pattern of the text: case for case, with any run of spaces as one, and spaces allowed around a
 * hyphen, an apostrophe or an ampersand, as texts detokenized from word lists write them ("Hohenlohe- Langenburg",
 * "L' Aigle", "Harry& Son").
 */
function titlePattern(form: string): RegExp {
  // Splitting at a space or at a hyphen, apostrophe or ampersand with its spaces yields the punctuation, or undefined for a space.
  const source = form
    .split(/\s*([-'’&])\s*|\s+/u)
    .map((part: string | undefined, index) => {
      if (index % 2 === 0) return (part ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      if (part === undefined) return String.raw`\s+`;
      return String.raw`\s*${part === '-' || part === '&' ? part : "['’]"}\s*`;
    })
    .join('');
  return new RegExp(source, 'gu');
}

/**
 * The places where a text writes its document's title, as proper-name mentions. A document's title names what it is
 * about (a Wikipedia page's subject, a note's topic), and the text writes it as one name even where the tagger cuts it
 * apart: a work's title with lower-case or quoted words ("Man's Favorite Sport?", "We Make Music"), a name with
 * letters its tokenizer splits. The title counts without a trailing disambiguation in brackets ("Forbidden Ground
 * (2013 film)": no text writes the bracket) and without a leading article, as the extractor's names do; it must hold a
 * capital letter or a digit (a title in lower case is no name), and it is matched case for case, as whole words, with
 * the spacing {@link titlePattern} allows. The same reading as the LLM-free triple extractor's
 * (`extract/triples/nlp-triples.ts`).
 */
export function titleMentions(text: string, extraction: PhraseExtraction, title: string | undefined): PhraseMention[] {
  const form = titleForm(title);
  if (form === '') return [];
  const key = normalizePhraseKey(form.split(/\s+/));
  const known = new Set(extraction.mentions.map((mention) => `${mention.start}:${mention.end}`));
  const found: PhraseMention[] = [];
  for (const match of text.matchAll(titlePattern(form))) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (letterOrDigit.test(text[start - 1] ?? '') || letterOrDigit.test(text[end] ?? '')) continue;
    const sentence = extraction.sentences.findIndex(([first, last]) => start >= first && start < last);
    if (sentence === -1 || known.has(`${start}:${end}`)) continue;
    found.push({ key, surface: form, start, end, sentence, kind: 'proper', joined: true });
  }
  return found;
}

/** Words that join the parts of a name and say nothing of whom it names. */
const joiningWords = new Set(['of', 'the', 'and', 'de', 'del', 'della', 'di', 'du', 'des', 'la', 'le', 'van', 'von', 'der', 'den', 'in', 'on', 'at', 'for', 'to', 'a', 'an', 'y', 'bin', 'ibn', 'al']);
/** Up to three capitalised words before the opening name: a rank or style the tagger left out ("Admiral Sir", "Prince"). */
const styleBefore = /^[^\p{L}\p{N}]*(?:\p{Lu}[\p{L}.]*\s+){0,3}$/u;
/** After the opening name, the rest of the name as the text writes it: capitalised words, joining words, a quoted nickname ("Michael Aaron" Mike" Ballard"). */
const restOfName = new RegExp(String.raw`^(?:\s*(?:\p{Lu}[\p{L}\p{N}'’.-]*|of|de|del|di|du|des|la|le|van|von|der|den|y|bin|ibn|al|"[^"\n]{1,40}"))*`, 'u');
/** A defining verb: the first sentence says what the opening name is or was. */
const definingVerb = /\s(?:is|was|are|were|has been|had been)\s/u;
/** The part of the first sentence before its defining verb that still names the subject: its style or apposition ("Richilde, Countess of Mons and Hainaut( – 1086), was"). */
const maxApposition = 120;
const comparableWord = (word: string): string => word.normalize('NFKD').replace(/\p{M}/gu, '');
const distinctive = (word: string): boolean => word.length >= 3 && !joiningWords.has(word);

/**
 * The document's title as another name of what its text defines first, where the text never writes the title: a
 * biography titled "Sam Davis" that opens "Samuel George Davis MM (…) was a …", "Frederick I, Holy Roman Emperor" opening
 * "Frederick Barbarossa (…) was …". The evidence is the document's own: the chunk opens its document, its first
 * sentence starts with a proper name (after at most a style: "Admiral Sir") followed, after the rest of the name, an
 * apposition or brackets, by "is", "was", "are" or "were", and the name as written shares a word with the title
 * beyond joining words and words of one or two letters. The title must read as a name: every word of three letters
 * or more holds a capital letter or a digit ("Python tips" is a topic, not a name of Python). The alias is a mention
 * of the opening name's key written as the title, so the entity lists the title among its aliases; `kgrag entities
 * merges` lists these merges and `--undo` keeps a title apart.
 */
export function titleAlias(text: string, extraction: PhraseExtraction, title: string | undefined, opensDocument: boolean): PhraseMention | undefined {
  const form = titleForm(title);
  if (form === '' || !opensDocument || titlePattern(form).test(text)) return undefined;
  const words = form.split(/\s+/);
  if (words.some((word) => word.length >= 3 && !joiningWords.has(word.toLowerCase()) && !/[\p{Lu}\p{N}]/u.test(word))) return undefined;
  const subject = extraction.mentions.reduce<PhraseMention | undefined>((first, mention) => (first === undefined || mention.start < first.start ? mention : first), undefined);
  if (subject === undefined || subject.kind !== 'proper' || subject.sentence !== 0 || !styleBefore.test(text.slice(0, subject.start))) return undefined;
  const after = text.slice(subject.end, extraction.sentences[0]?.[1] ?? text.length);
  const verb = definingVerb.exec(after);
  if (verb === null) return undefined;
  const rest = restOfName.exec(after)?.[0] ?? '';
  const apposition = verb.index <= maxApposition ? after.slice(rest.length, verb.index).replace(/\([^()]*\)/g, ' ') : '';
  const key = normalizePhraseKey(words);
  if (comparableWord(key) === comparableWord(subject.key)) return undefined;
  const titleWords = new Set(key.split(' ').filter(distinctive).map(comparableWord));
  const written = normalizePhraseKey(`${subject.surface} ${rest} ${apposition}`.split(/[\s"(),;]+/));
  if (!written.split(' ').some((word) => distinctive(word) && titleWords.has(comparableWord(word)))) return undefined;
  // A name of one word is shared by every text that writes it ("Christian", "Henry"): it takes the title only when it is
  // the title's whole name before a qualifier ("Waldrada of Lotharingia", "Tunstall, Virginia"), not a part of it.
  const head = normalizePhraseKey((form.split(/,|\s+of\s+/u)[0] ?? '').split(/\s+/));
  if (!subject.key.includes(' ') && comparableWord(head) !== comparableWord(subject.key)) return undefined;
  // "Criticism of the Pledge of Allegiance", "Death of Garry Hoy": a title whose one word before "of" the text does not
  // write as part of the name is about something else of the name.
  if (/\s+of\s+/u.test(form) && !head.includes(' ') && !written.split(' ').some((word) => comparableWord(word) === comparableWord(head))) return undefined;
  return { key: subject.key, surface: form, start: subject.start, end: subject.end, sentence: 0, kind: 'proper', joined: true, ...(subject.typeHint === undefined ? {} : { typeHint: subject.typeHint }) };
}

/**
 * The extraction with its title mentions among its mentions, in text order: what the graph's builders read. The
 * title alias joins them when `rules` allow aliases and do not keep the title apart.
 */
export function withTitleMentions(extraction: TitledPhraseExtraction, rules?: TitleAliasRules): PhraseExtraction {
  const alias = extraction.titleAlias;
  const aliased = alias !== undefined && rules !== undefined && rules.titleAliases && !rules.keepApart.has(normalizePhraseKey(alias.surface.split(/\s+/)));
  const extra = aliased ? (extraction.titleMentions ?? []).concat(alias) : (extraction.titleMentions ?? []);
  if (extra.length === 0) return { sentences: extraction.sentences, mentions: extraction.mentions };
  const mentions = extraction.mentions.concat(extra).sort((left, right) => left.start - right.start || left.end - right.end);
  return { sentences: extraction.sentences, mentions };
}
