import { normalizePhraseKey, type PhraseExtraction, type PhraseMention } from './noun-phrase-extractor.js';

/** A chunk's noun phrases as nlp-extract stores them: the extractor's mentions, and those of its document's title. */
export interface TitledPhraseExtraction extends PhraseExtraction {
  /**
   * Where the chunk writes its document's title ({@link titleMentions}). Kept apart from `mentions`, which AutoKG's
   * keywords share with the extractor's other readers; absent in extractions stored before titles were read.
   */
  titleMentions?: PhraseMention[];
}

const leadingArticle = /^(?:the|a|an)\s+/i;
const letterOrDigit = /[\p{L}\p{N}]/u;
/** A title longer than this is a sentence, not a name. */
const maxTitleWords = 12;

/**
 * The places where a text writes its document's title, as proper-name mentions. A document's title names what it is
 * about (a Wikipedia page's subject, a note's topic), and the text writes it as one name even where the tagger cuts it
 * apart: a work's title with lower-case or quoted words ("Man's Favorite Sport?", "We Make Music"), a name with
 * letters its tokenizer splits. The title counts without a trailing disambiguation in brackets ("Forbidden Ground
 * (2013 film)": no text writes the bracket) and without a leading article, as the extractor's names do; it must hold a
 * capital letter or a digit (a title in lower case is no name), and it is matched case for case, as whole words. The
 * same reading as the LLM-free triple extractor's (`extract/triples/nlp-triples.ts`).
 */
export function titleMentions(text: string, extraction: PhraseExtraction, title: string | undefined): PhraseMention[] {
  const form = (title ?? '').replace(/\s*\([^()]*\)\s*$/, '').trim().replace(leadingArticle, '');
  if (form.length < 2 || !/[\p{Lu}\p{N}]/u.test(form) || form.split(/\s+/).length > maxTitleWords) return [];
  const key = normalizePhraseKey(form.split(/\s+/));
  if (key.length < 2) return [];
  const known = new Set(extraction.mentions.map((mention) => `${mention.start}:${mention.end}`));
  const found: PhraseMention[] = [];
  for (let start = text.indexOf(form); start !== -1; start = text.indexOf(form, start + 1)) {
    const end = start + form.length;
    if (letterOrDigit.test(text[start - 1] ?? '') || letterOrDigit.test(text[end] ?? '')) continue;
    const sentence = extraction.sentences.findIndex(([first, last]) => start >= first && start < last);
    if (sentence === -1 || known.has(`${start}:${end}`)) continue;
    found.push({ key, surface: form, start, end, sentence, kind: 'proper', joined: true });
  }
  return found;
}

/** The extraction with its title mentions among its mentions, in text order: what the graph's builders read. */
export function withTitleMentions(extraction: TitledPhraseExtraction): PhraseExtraction {
  const extra = extraction.titleMentions ?? [];
  if (extra.length === 0) return { sentences: extraction.sentences, mentions: extraction.mentions };
  const mentions = extraction.mentions.concat(extra).sort((left, right) => left.start - right.start || left.end - right.end);
  return { sentences: extraction.sentences, mentions };
}
