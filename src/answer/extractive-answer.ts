import { maxOf } from '../core/max-of.js';
import type { Embedder } from '../providers/embed/embedder.js';
import { cjkLetterClass, hasCjkLetter } from '../text/cjk-letters.js';
import { splitSentences } from '../text/sentences.js';
import { monthNames, weekdayNames } from '../text/calendar-words.js';
import { lightStem } from '../text/light-stem.js';
import { englishStopwords } from '../text/stopwords.js';
import { queryTerms, wordTokens } from '../text/word-tokens.js';
import type { CitedAnswer, CitedDataset, ContextChunk } from './answer-types.js';

/** The label shown with answers built without an LLM. */
export const extractiveLabel = 'extractive answer (no LLM configured)';

/** Options of {@link extractiveAnswer}. */
export interface ExtractiveAnswerOptions {
  /** Evidence sentences in the answer. @default 3 */
  maxSentences?: number;
  /** Chunks read, best first. @default 5 */
  maxChunks?: number;
  /** Adds semantic similarity to the lexical score when given. */
  embedder?: Embedder;
  /**
   * Written records of the context besides its passages — LLM-written entity descriptions, relationships and
   * community reports — quoted like passages and cited by their own dataset (`[Data: Entities (3)]`). Read after
   * the passages: they rank below them.
   */
  records?: readonly ExtractiveRecord[];
}

/** A record of the context the extractive answer may quote: its text, and what to cite. */
export interface ExtractiveRecord {
  dataset: Exclude<CitedDataset, 'Sources'>;
  hid: number;
  id: string;
  /** The entity's name, the two ends of a relationship, or the report's title: what its sentences are about. */
  title: string;
  text: string;
}

/** What a quoted sentence cites, and the document (or record) it comes from. */
interface QuotedSource {
  dataset: CitedDataset;
  hid: number;
  id: string;
  title: string;
  source?: string;
  /** Sentences of one document (or record) are about one subject. */
  documentId: string;
}

interface Candidate {
  from: QuotedSource;
  rank: number;
  text: string;
  terms: Set<string>;
  /** The sentence's terms and its document title's: "It opened in 1938" is about the title's subject. */
  contextTerms: Set<string>;
  score: number;
  /** Its own relevance to the question (question terms and meaning), without its passage's rank. */
  relevance: number;
  /** Whether it holds an answer of the type the question asks for (a date for "when"). */
  holdsAnswer: boolean;
  /** The capitalised words of the sentence and its title (names), lower-cased. */
  names: Set<string>;
}

/** Capitalised words that are not stopwords ("The", "It" start sentences), lower-cased: the names a text mentions. */
function namesOf(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/\p{Lu}[\p{L}\p{N}'’-]+/gu)) {
    const word = match[0].toLowerCase().replace(/['’]s$/, '');
    if (!englishStopwords.has(word)) names.add(word);
  }
  return names;
}

/** Sentences shorter than this (a CJK letter counting two, see {@link sentenceLength}) are too short to quote. */
const minSentenceLength = 20;
const cjkLetters = new RegExp(`[${cjkLetterClass}]`, 'gu');
/** Similarity to the question from which a sentence supports an answer without its words: close paraphrases only. */
const minSupportingSimilarity = 0.5;
/** A further sentence answering no new part of the question is quoted when its relevance is at least this share of the best's. */
const alternativeRelevance = 0.8;
/** The answer when no retrieved sentence supports one. */
export const unsupportedAnswer = 'The retrieved passages do not answer this question: no sentence in them shares enough of its words.';

const months = monthNames.join('|');
const ordinals = 'first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-first';
/**
 * Expected answer types by question word, and how to recognise a candidate answer in a sentence. A name is two
 * capitalised words or more, joined by spaces, particles or "&" (a firm: "Ivesley & Thorne"). "On what date" asks for
 * a day: a month beside a number ("14 May 1938", "May 14"), a weekday or a numeric date holds one; a bare year does not
 * ("remained open in the floods of 1947"), nor does the verb "may". "When" is answered by a year, a decade ("the
 * 1960s"), a month or a century ("the mid-19th century").
 */
const answerTypes: ReadonlyArray<{ question: RegExp; candidate: RegExp }> = [
  {
    question: /\b(what|which) (date|day)\b/i,
    candidate: new RegExp(`\\b\\d{1,2}(st|nd|rd|th)? (${months})\\b|\\b(${months}) \\d{1,4}\\b|\\b(${weekdayNames.join('|')})\\b|\\b\\d{1,4}[./-]\\d{1,2}[./-]\\d{1,4}\\b`, 'i'),
  },
  { question: /\b(when|what (year|time|century|decade)|which (year|century|decade)|how long ago)\b/i, candidate: new RegExp(`\\b(1[0-9]{3}|20[0-9]{2})s?\\b|\\b(${months})\\b|\\b(\\d{1,2}(st|nd|rd|th)|${ordinals})[- ]century\\b`, 'i') },
  { question: /\bhow (many|much|old|far|long|tall|high|deep)\b/i, candidate: /\b\d[\d,.]*\b|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million)\b/i },
  { question: /\b(who|whom|whose)\b/i, candidate: /\b[A-Z][\p{L}'’-]+(?:\s+(?:[A-Z][\p{L}'’-]+|of|de|van|von|&))*\s+[A-Z][\p{L}'’-]+/u },
];

/**
 * Whether a sentence holds a candidate answer of the type the question asks for (a date for "when", a
 * number for "how many", a name for "who") that the question itself does not already contain.
 */
function holdsExpectedAnswer(question: string, sentence: string): boolean {
  for (const type of answerTypes) {
    if (!type.question.test(question)) continue;
    const global = new RegExp(type.candidate.source, `${type.candidate.flags}g`);
    for (const match of sentence.matchAll(global)) {
      if (!question.toLowerCase().includes(match[0].toLowerCase())) return true;
    }
  }
  return false;
}

/**
 * A sentence's length with each Chinese, Japanese or Korean letter counted twice: a letter of those scripts carries
 * about as much as two Latin ones ("出生于南京" is "born in Nanjing"), so a full CJK sentence is not cut as a fragment.
 */
function sentenceLength(text: string): number {
  return text.length + (hasCjkLetter(text) ? (text.match(cjkLetters)?.length ?? 0) : 0);
}

function jaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of left) if (right.has(term)) shared++;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
}

/**
 * Answers without an LLM by quoting the best evidence sentences of the retrieved chunks, each cited. Only a
 * sentence that supports an answer is quoted: it holds some of the question's content words, and with its
 * document's title at least half of them and at least two (the one of a one-word question; of a CJK question's
 * character bigrams, those some sentence holds), or it is very
 * close to the question in meaning (with an embedder); when no sentence does, the answer says that the
 * passages do not answer the question.
 * A sentence scores by the IDF-weighted question terms it contains (IDF over the candidate sentences),
 * its similarity to the question when an embedder is given, a boost when it holds an answer of the type
 * the question asks for (a date, a number, a name), and the rank of its chunk; sentences are
 * then picked greedily with a redundancy penalty (maximal marginal relevance, Carbonell & Goldstein 1998).
 */
export async function extractiveAnswer(question: string, chunks: readonly ContextChunk[], options: ExtractiveAnswerOptions = {}): Promise<CitedAnswer> {
  const maxSentences = options.maxSentences ?? 3;
  const candidates: Candidate[] = [];
  const addSentences = (from: QuotedSource, body: string, rank: number): void => {
    const titleTerms = wordTokens(from.title).map(lightStem);
    for (const span of splitSentences(body)) {
      const text = body.slice(span.start, span.end).replace(/\s+/g, ' ').trim();
      if (sentenceLength(text) < minSentenceLength || /^#+\s/.test(text)) continue;
      const terms = new Set(wordTokens(text).map(lightStem));
      candidates.push({ from, rank, text, terms, contextTerms: new Set([...terms, ...titleTerms]), score: 0, relevance: 0, holdsAnswer: holdsExpectedAnswer(question, text), names: namesOf(`${from.title} ${text}`) });
    }
  };
  const read = chunks.slice(0, options.maxChunks ?? 5);
  read.forEach((chunk, rank) =>
    addSentences({ dataset: 'Sources', hid: chunk.hid, id: chunk.id, title: chunk.documentTitle, source: chunk.source, documentId: chunk.documentId }, chunk.text, rank),
  );
  for (const record of options.records ?? []) {
    addSentences({ dataset: record.dataset, hid: record.hid, id: record.id, title: record.title, documentId: `${record.dataset}:${record.id}` }, record.text, read.length);
  }
  if (candidates.length === 0) {
    return { answer: { text: 'No passage in the index matches this question.', kind: 'extractive', label: extractiveLabel }, citations: [] };
  }

  const terms = [...new Set(queryTerms(question, englishStopwords).map(lightStem))];
  const documentFrequency = new Map<string, number>();
  for (const term of terms) documentFrequency.set(term, candidates.filter((candidate) => candidate.terms.has(term)).length);
  const idf = (term: string): number => Math.log(1 + candidates.length / (1 + (documentFrequency.get(term) ?? 0)));
  const maxLexical = terms.reduce((sum, term) => sum + idf(term), 0) || 1;
  let semantic: number[] = candidates.map(() => 0);
  if (options.embedder) {
    const [questionVector, ...sentenceVectors] = await options.embedder.embed([question, ...candidates.map((candidate) => candidate.text)], {
      inputType: 'query',
    });
    semantic = sentenceVectors.map((vector) => {
      let dot = 0;
      for (let index = 0; index < vector.length; index++) dot += (vector[index] as number) * ((questionVector as Float32Array)[index] as number);
      return dot;
    });
  }
  candidates.forEach((candidate, index) => {
    // A term only its document's title holds counts half: "the design was entrusted to …" in the Kester Weir Bridge's
    // article is about the bridge without naming it.
    const lexical = terms.reduce((sum, term) => sum + (candidate.terms.has(term) ? idf(term) : candidate.contextTerms.has(term) ? 0.5 * idf(term) : 0), 0) / maxLexical;
    // Headlines, datelines and list items name the subject without saying anything about it.
    // CJK text has no spaces: its terms (character bigrams) stand in for words there.
    const spaced = candidate.text.split(/\s+/).length;
    const words = hasCjkLetter(candidate.text) ? Math.max(spaced, candidate.terms.size) : spaced;
    const form = /^[-*•]\s/.test(candidate.text) || words < 6 ? 0.6 : /[.!?。！？]["')\]」』]?$/.test(candidate.text) ? 1 : 0.85;
    const answerType = candidate.holdsAnswer ? 1.4 : 1;
    candidate.relevance = 0.6 * lexical + 0.3 * (semantic[index] as number);
    candidate.score = candidate.relevance * form * answerType + 0.1 / (1 + candidate.rank);
  });

  // Only sentences that support an answer are quoted; when none does, saying so beats quoting the best of unrelated text.
  // A CJK question's bigrams include ones across its word boundaries and particles ("湖的", "在哪"), which no passage
  // holds and no dictionary-free tokenizer can tell from words: the CJK terms that count are those some sentence holds.
  const supportTerms = terms.filter((term) => !hasCjkLetter(term) || candidates.some((candidate) => candidate.contextTerms.has(term)));
  const neededTerms = Math.max(Math.min(2, supportTerms.length), Math.ceil(supportTerms.length / 2));
  const shared = (held: ReadonlySet<string>): number => supportTerms.filter((term) => held.has(term)).length;
  // A relationship's or a report's sentence ("Alex Mercer is a participant in Operation: Dulce") says how things
  // relate, not what one is: the definition is the entity's own description or a passage's.
  const definedSubject = (candidate: Candidate): string | undefined => {
    if (candidate.from.dataset === 'Relationships' || candidate.from.dataset === 'Reports') return undefined;
    return /^([^.;:]{0,80}?)\b(?:is|was|are|were)\s+(?:also\s+)?(?:a|an|the|one)\b/i.exec(candidate.text)?.[1];
  };
  // An entity's own definition of a name the question names ("Agent Alex Mercer is a … operative" for "Who is Alex
  // Mercer and what is his role in …?") answers its "who is" part even when it holds few of the question's other
  // words. Not a passage's: on hotpotqa-train-100 that quoted definitions from passages that were not the gold ones
  // (EM-in up, sentence precision down 5 to 9 points for every method).
  const questionNames = namesOf(question);
  // Read once per sentence: the selection loop below asks for every remaining sentence on every pick.
  const definitions = new Map<Candidate, { definesTerm: boolean; namesDefined: number }>();
  for (const candidate of candidates) {
    const subject = definedSubject(candidate);
    if (subject === undefined) continue;
    const subjectTerms = new Set(wordTokens(subject).map(lightStem));
    definitions.set(candidate, {
      definesTerm: supportTerms.some((term) => subjectTerms.has(term)),
      namesDefined: [...namesOf(subject)].filter((name) => questionNames.has(name)).length,
    });
  }
  const definesQuestionTerm = (candidate: Candidate): boolean => definitions.get(candidate)?.definesTerm ?? false;
  const namedBySubject = (candidate: Candidate): number => definitions.get(candidate)?.namesDefined ?? 0;
  const definesQuestionName = (candidate: Candidate): boolean => namedBySubject(candidate) > 0;
  const supports = (candidate: Candidate, index: number): boolean =>
    (shared(candidate.terms) > 0 && shared(candidate.contextTerms) >= neededTerms) ||
    (candidate.from.dataset === 'Entities' && definesQuestionName(candidate)) ||
    (semantic[index] as number) >= minSupportingSimilarity;
  const remaining = candidates.filter(supports);
  if (remaining.length === 0) {
    return { answer: { text: unsupportedAnswer, kind: 'extractive', label: extractiveLabel }, citations: [] };
  }
  // Of the definitions, the one of the most of the question's names: "Agent Alex Mercer is …" before "The mission
  // to Dulce Base is …" for a question about Alex Mercer's role in Operation: Dulce.
  const mostNamed = maxOf(remaining.filter(definesQuestionTerm).map(namedBySubject));
  // After the best sentence, a sentence is quoted only if it answers a part of the question the quoted ones do not:
  // it says something about a question term none of them holds (the second hop of a two-hop question), or it holds
  // the kind of answer the question asks for (a date for "when") where none of them does. A sentence that merely
  // shares the question's words again — another passage's "designed and built" — pads the answer.
  // Or it answers the same part about as well as the best one (its own relevance at least `alternativeRelevance` of
  // the best's): when the best sentence is the wrong one, the right one is often its near-equal. A near-equal without
  // the kind of answer asked for, once one is quoted, is not another answer: "The Kester Weir Bridge carries Ferry
  // Street …" beside the sentence dating its opening. Once the best sentence names what the question names, a further
  // one must be about that too: from a quoted sentence's document, or naming a name the question or a quoted sentence
  // names (the second hop's subject, named in the first) — not another passage's "designed and built" about another
  // machine.
  const asksForType = answerTypes.some((type) => type.question.test(question));
  const covered = new Set<string>();
  const names = new Set(questionNames);
  const quotedDocuments = new Set<string>();
  let answerQuoted = false;
  let mustConnect = false;
  let firstRelevance = 0;
  const connected = (candidate: Candidate): boolean => quotedDocuments.has(candidate.from.documentId) || [...candidate.names].some((name) => names.has(name));
  // A sentence defining something the question names ("A lilu … is a masculine Akkadian word for a spirit") answers
  // its "what is" part, even when every word it shares with the question is already quoted, and so does it for a
  // question whether things are something ("Are Nantong and Jingdezhen situated in the same province?"). A question
  // asking neither ("On what date was the Kester Weir Bridge opened?") is not answered by "The Kester Weir Bridge …
  // was the only crossing open".
  const asksWhatIs = /\b(?:what|who)(?:['’]s|\s+(?:is|are|was|were)\b)|\b(?:is|are|was|were)\s+what\b|^\W*(?:is|are|was|were)\b/i.test(question);
  let defined = false;
  const answersMore = (candidate: Candidate): boolean => {
    if (selected.length === 0) return true;
    if (mustConnect && !connected(candidate)) return false;
    return (
      supportTerms.some((term) => candidate.terms.has(term) && !covered.has(term)) ||
      (asksForType && !answerQuoted && candidate.holdsAnswer) ||
      (asksWhatIs && !defined && definesQuestionTerm(candidate) && namedBySubject(candidate) >= mostNamed) ||
      (candidate.relevance >= alternativeRelevance * firstRelevance && (!answerQuoted || candidate.holdsAnswer))
    );
  };
  const selected: Candidate[] = [];
  while (selected.length < maxSentences) {
    let bestIndex = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    remaining.forEach((candidate, index) => {
      if (!answersMore(candidate)) return;
      const redundancy = Math.max(0, maxOf(selected.map((chosen) => jaccard(chosen.terms, candidate.terms))));
      const value = candidate.score - 0.5 * redundancy;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = index;
      }
    });
    if (bestIndex < 0) break;
    const [best] = remaining.splice(bestIndex, 1);
    if (!best) break;
    // The same line in two chunks (a list repeated across documents) is quoted once.
    if (selected.some((chosen) => chosen.text === best.text)) continue;
    selected.push(best);
    if (selected.length === 1) {
      firstRelevance = best.relevance;
      mustConnect = [...best.names].some((name) => questionNames.has(name));
    }
    for (const term of supportTerms) if (best.contextTerms.has(term)) covered.add(term);
    for (const name of best.names) names.add(name);
    quotedDocuments.add(best.from.documentId);
    answerQuoted ||= best.holdsAnswer;
    defined ||= definesQuestionTerm(best);
  }

  return {
    answer: {
      text: selected.map((candidate) => `${candidate.text} [Data: ${candidate.from.dataset} (${candidate.from.hid})]`).join('\n'),
      kind: 'extractive',
      label: extractiveLabel,
    },
    citations: selected.map(({ from, text }) => ({
      dataset: from.dataset,
      hid: from.hid,
      id: from.id,
      title: from.title,
      ...(from.source === undefined ? {} : { source: from.source }),
      quote: text,
    })),
  };
}
