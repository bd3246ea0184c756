import { maxOf } from '../core/max-of.js';
import type { Embedder } from '../providers/embed/embedder.js';
import { cjkLetterClass, hasCjkLetter } from '../text/cjk-letters.js';
import { splitSentences } from '../text/sentences.js';
import { lightStem } from '../text/light-stem.js';
import { englishStopwords } from '../text/stopwords.js';
import { queryTerms, wordTokens } from '../text/word-tokens.js';
import type { CitedAnswer, ContextChunk } from './answer-types.js';

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
}

interface Candidate {
  chunk: ContextChunk;
  rank: number;
  text: string;
  terms: Set<string>;
  /** The sentence's terms and its document title's: "It opened in 1938" is about the title's subject. */
  contextTerms: Set<string>;
  score: number;
}

/** Sentences shorter than this (a CJK letter counting two, see {@link sentenceLength}) are too short to quote. */
const minSentenceLength = 20;
const cjkLetters = new RegExp(`[${cjkLetterClass}]`, 'gu');
/** Similarity to the question from which a sentence supports an answer without its words: close paraphrases only. */
const minSupportingSimilarity = 0.5;
/** The answer when no retrieved sentence supports one. */
export const unsupportedAnswer = 'The retrieved passages do not answer this question: no sentence in them shares enough of its words.';

const months = 'january|february|march|april|may|june|july|august|september|october|november|december';
/**
 * Expected answer types by question word, and how to recognise a candidate answer in a sentence. A name is two
 * capitalised words or more, joined by spaces, particles or "&" (a firm: "Ivesley & Thorne").
 */
const answerTypes: ReadonlyArray<{ question: RegExp; candidate: RegExp }> = [
  { question: /\b(when|what (date|year|day|time|century|decade)|which (year|date|day|century|decade)|how long ago)\b/i, candidate: new RegExp(`\\b(1[0-9]{3}|20[0-9]{2})\\b|\\b(${months})\\b`, 'i') },
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
  chunks.slice(0, options.maxChunks ?? 5).forEach((chunk, rank) => {
    const titleTerms = wordTokens(chunk.documentTitle).map(lightStem);
    for (const span of splitSentences(chunk.text)) {
      const text = chunk.text.slice(span.start, span.end).replace(/\s+/g, ' ').trim();
      if (sentenceLength(text) < minSentenceLength || /^#+\s/.test(text)) continue;
      const terms = new Set(wordTokens(text).map(lightStem));
      candidates.push({ chunk, rank, text, terms, contextTerms: new Set([...terms, ...titleTerms]), score: 0 });
    }
  });
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
    const lexical = terms.reduce((sum, term) => sum + (candidate.terms.has(term) ? idf(term) : 0), 0) / maxLexical;
    // Headlines, datelines and list items name the subject without saying anything about it.
    // CJK text has no spaces: its terms (character bigrams) stand in for words there.
    const spaced = candidate.text.split(/\s+/).length;
    const words = hasCjkLetter(candidate.text) ? Math.max(spaced, candidate.terms.size) : spaced;
    const form = /^[-*•]\s/.test(candidate.text) || words < 6 ? 0.6 : /[.!?。！？]["')\]」』]?$/.test(candidate.text) ? 1 : 0.85;
    const answerType = holdsExpectedAnswer(question, candidate.text) ? 1.4 : 1;
    candidate.score = (0.6 * lexical + 0.3 * (semantic[index] as number)) * form * answerType + 0.1 / (1 + candidate.rank);
  });

  // Only sentences that support an answer are quoted; when none does, saying so beats quoting the best of unrelated text.
  // A CJK question's bigrams include ones across its word boundaries and particles ("湖的", "在哪"), which no passage
  // holds and no dictionary-free tokenizer can tell from words: the CJK terms that count are those some sentence holds.
  const supportTerms = terms.filter((term) => !hasCjkLetter(term) || candidates.some((candidate) => candidate.contextTerms.has(term)));
  const neededTerms = Math.max(Math.min(2, supportTerms.length), Math.ceil(supportTerms.length / 2));
  const shared = (held: ReadonlySet<string>): number => supportTerms.filter((term) => held.has(term)).length;
  const supports = (candidate: Candidate, index: number): boolean =>
    (shared(candidate.terms) > 0 && shared(candidate.contextTerms) >= neededTerms) ||
    (semantic[index] as number) >= minSupportingSimilarity;
  const remaining = candidates.filter(supports);
  if (remaining.length === 0) {
    return { answer: { text: unsupportedAnswer, kind: 'extractive', label: extractiveLabel }, citations: [] };
  }
  const selected: Candidate[] = [];
  while (selected.length < maxSentences && remaining.length > 0) {
    let bestIndex = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    remaining.forEach((candidate, index) => {
      const redundancy = Math.max(0, maxOf(selected.map((chosen) => jaccard(chosen.terms, candidate.terms))));
      const value = candidate.score - 0.5 * redundancy;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = index;
      }
    });
    const [best] = remaining.splice(bestIndex, 1);
    if (!best) break;
    // The same line in two chunks (a list repeated across documents) is quoted once.
    if (!selected.some((chosen) => chosen.text === best.text)) selected.push(best);
  }

  return {
    answer: {
      text: selected.map((candidate) => `${candidate.text} [Data: Sources (${candidate.chunk.hid})]`).join('\n'),
      kind: 'extractive',
      label: extractiveLabel,
    },
    citations: selected.map((candidate) => ({
      dataset: 'Sources' as const,
      hid: candidate.chunk.hid,
      id: candidate.chunk.id,
      title: candidate.chunk.documentTitle,
      source: candidate.chunk.source,
      quote: candidate.text,
    })),
  };
}
