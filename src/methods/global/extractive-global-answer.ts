import type { CitedAnswer, Citation } from '../../answer/answer-types.js';
import { extractiveLabel } from '../../answer/extractive-answer.js';
import { dotAt } from '../../math/dense-vectors.js';
import { isCorpusFitted } from '../../providers/embed/embedder.js';
import { lightStem } from '../../text/light-stem.js';
import { splitSentences } from '../../text/sentences.js';
import { englishStopwords } from '../../text/stopwords.js';
import { queryTerms, wordTokens } from '../../text/word-tokens.js';
import type { MethodContext } from '../query-method.js';
import type { GlobalReport } from './global-lookups.js';

/** Sentences of the reports of one selection, indexed for scoring, built once per index and level. */
interface ReportSentences {
  texts: string[];
  /** Sentence → index into `reports`. */
  owner: Int32Array;
  /** 1 for sentences of a report's summary (what the community is about), 0 for those of its findings. */
  fromSummary: Uint8Array;
  reports: readonly GlobalReport[];
  /** Stemmed term → the sentences holding it, ascending. */
  postings: ReadonlyMap<string, Int32Array>;
  /** Row-major sentence embeddings, when the embedder is the cheap local one. */
  vectors?: { dimensions: number; matrix: Float32Array };
}

/** Options of {@link extractiveGlobalAnswer}. */
export interface ExtractiveGlobalOptions {
  /** Memo key of a selection that is fixed per index (e.g. its level), so that its sentences are prepared once. */
  selectionKey: string | undefined;
  reports: readonly GlobalReport[];
  /** Community id → similarity of its report to the question (report embeddings). */
  reportSimilarity: ReadonlyMap<string, number>;
  /** Community id → normalized occurrence weight (0–1): how much of the corpus the community covers. */
  reportWeight: ReadonlyMap<string, number>;
  /** Points in the answer. @default 5 */
  maxPoints?: number;
}

const minSentenceLength = 20;
/** Sentences scored by redundancy when picking, best first. */
const poolSize = 200;
/**
 * The extractive report writer ends each finding with a "Connected here to …" list of neighbours; it names
 * entities without saying anything about them, so it is never a point worth quoting.
 */
const connectiveSentence = /^Connected here to\b/;

function stems(text: string): string[] {
  return [...new Set(wordTokens(text).filter((token) => !englishStopwords.has(token)).map(lightStem))];
}

async function prepareSentences(context: MethodContext, key: string | undefined, reports: readonly GlobalReport[]): Promise<ReportSentences> {
  const build = async (): Promise<ReportSentences> => {
    const texts: string[] = [];
    const owners: number[] = [];
    const summaryFlags: number[] = [];
    const seen = new Set<string>();
    reports.forEach((report, reportIndex) => {
      const sources = [report.summary, ...report.findings.map((finding) => finding.explanation)];
      sources.forEach((source, sourceIndex) => {
        for (const span of splitSentences(source)) {
          const text = source.slice(span.start, span.end).replace(/\s+/g, ' ').trim();
          if (text.length < minSentenceLength || connectiveSentence.test(text) || /^#+\s/.test(text)) continue;
          // Parent and child reports quote the same evidence; one copy keeps the points diverse.
          const normalized = text.toLowerCase();
          if (seen.has(normalized)) continue;
          seen.add(normalized);
          texts.push(text);
          owners.push(reportIndex);
          summaryFlags.push(sourceIndex === 0 ? 1 : 0);
        }
      });
    });
    const lists = new Map<string, number[]>();
    texts.forEach((text, index) => {
      for (const term of stems(text)) {
        const list = lists.get(term);
        if (list) list.push(index);
        else lists.set(term, [index]);
      }
    });
    const postings = new Map([...lists].map(([term, list]) => [term, Int32Array.from(list)]));
    const sentences: ReportSentences = { texts, owner: Int32Array.from(owners), fromSummary: Uint8Array.from(summaryFlags), reports, postings };
    // A remote embedder would bill every sentence of the index; the local one is free and fast.
    if (isCorpusFitted(context.embedder) && texts.length > 0) {
      const batch = Math.max(1, context.embedder.maxBatchSize);
      let dimensions = 0;
      let matrix = new Float32Array(0);
      for (let start = 0; start < texts.length; start += batch) {
        const vectors = await context.embedder.embed(texts.slice(start, start + batch), { inputType: 'document' });
        if (dimensions === 0) {
          dimensions = vectors[0]?.length ?? 0;
          matrix = new Float32Array(texts.length * dimensions);
        }
        vectors.forEach((vector, offset) => matrix.set(vector, (start + offset) * dimensions));
      }
      if (dimensions > 0) sentences.vectors = { dimensions, matrix };
    }
    return sentences;
  };
  return key === undefined ? build() : context.memo(`global:sentences:${key}`, build);
}

function jaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of left) if (right.has(term)) shared++;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
}

/**
 * The global answer without an LLM: the key points of the community reports, quoted. Every sentence of the
 * selected reports' summaries and findings is scored by the IDF-weighted question terms it holds, its embedding
 * similarity to the question (local embedder only), its report's embedding similarity to the question, and a
 * small prior for the report's rating and occurrence weight (summary sentences weigh a little more); points are
 * then picked by maximal marginal relevance (Carbonell & Goldstein 1998) with a second rule for breadth, as a
 * global question asks: no two points come from the same community while the candidate pool still holds
 * sentences of communities not yet quoted. Each point cites its report as `[Data: Reports (hid)]`.
 */
export async function extractiveGlobalAnswer(context: MethodContext, question: string, options: ExtractiveGlobalOptions): Promise<CitedAnswer> {
  const maxPoints = options.maxPoints ?? 5;
  const sentences = await prepareSentences(context, options.selectionKey, options.reports);
  const count = sentences.texts.length;
  const empty: CitedAnswer = {
    answer: { text: 'No community report in the index bears on this question.', kind: 'extractive', label: extractiveLabel },
    citations: [],
  };
  if (count === 0) return empty;

  const lexical = new Float64Array(count);
  const terms = [...new Set(queryTerms(question, englishStopwords).map(lightStem))];
  let maxLexical = 0;
  for (const term of terms) {
    const list = sentences.postings.get(term);
    if (!list) continue;
    const idf = Math.log(1 + count / (1 + list.length));
    maxLexical += idf;
    for (const index of list) lexical[index] = (lexical[index] as number) + idf;
  }

  let semantic: Float64Array | undefined;
  const questionVector = await context.embedQuery(question);
  const vectors = sentences.vectors;
  if (vectors && vectors.dimensions === questionVector.length) {
    semantic = new Float64Array(count);
    for (let index = 0; index < count; index++) semantic[index] = dotAt(vectors.matrix, index * vectors.dimensions, questionVector, 0, vectors.dimensions);
  }

  const scores = new Float64Array(count);
  for (let index = 0; index < count; index++) {
    const report = sentences.reports[sentences.owner[index] as number] as GlobalReport;
    const text = sentences.texts[index] as string;
    const lexicalScore = maxLexical > 0 ? (lexical[index] as number) / maxLexical : 0;
    const reportScore = Math.max(0, options.reportSimilarity.get(report.communityId) ?? 0);
    // Broad questions share few words with any sentence; then large, highly rated communities are the main themes.
    const prior = 0.5 * (Math.min(10, Math.max(0, report.rating)) / 10) + 0.5 * (options.reportWeight.get(report.communityId) ?? 0);
    const relevance = semantic
      ? 0.5 * lexicalScore + 0.3 * Math.max(0, semantic[index] as number) + 0.12 * reportScore + 0.08 * prior
      : 0.5 * lexicalScore + 0.38 * reportScore + 0.12 * prior;
    // Fragments (headlines, list items, diary entries) name a subject without saying anything about it.
    const words = text.split(' ').length;
    const form = words < 6 ? 0.6 : /[.!?]["')\]]?$/.test(text) ? 1 : 0.85;
    scores[index] = relevance * form * (sentences.fromSummary[index] === 1 ? 1.1 : 1);
  }
  const pool = Array.from({ length: count }, (_, index) => index)
    .sort((left, right) => (scores[right] as number) - (scores[left] as number) || left - right)
    .slice(0, poolSize)
    .map((index) => ({ index, score: scores[index] as number, terms: new Set(stems(sentences.texts[index] as string)) }));

  const chosen: typeof pool = [];
  const quoted = new Set<number>();
  while (chosen.length < maxPoints && pool.length > 0) {
    const fresh = pool.some((candidate) => !quoted.has(sentences.owner[candidate.index] as number));
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    pool.forEach((candidate, position) => {
      if (fresh && quoted.has(sentences.owner[candidate.index] as number)) return;
      const redundancy = chosen.reduce((most, other) => Math.max(most, jaccard(other.terms, candidate.terms)), 0);
      const value = candidate.score - 0.5 * redundancy;
      if (value > bestValue) {
        bestValue = value;
        best = position;
      }
    });
    const [picked] = pool.splice(best, 1);
    if (!picked) break;
    chosen.push(picked);
    quoted.add(sentences.owner[picked.index] as number);
  }
  if (chosen.length === 0) return empty;

  const citations: Citation[] = [];
  const cited = new Set<number>();
  const lines = chosen.map((candidate) => {
    const report = sentences.reports[sentences.owner[candidate.index] as number] as GlobalReport;
    const text = sentences.texts[candidate.index] as string;
    if (!cited.has(report.hid)) {
      cited.add(report.hid);
      citations.push({ dataset: 'Reports', hid: report.hid, id: report.communityId, title: report.title, source: 'community', quote: text });
    }
    return `- **${report.title}**: ${text} [Data: Reports (${report.hid})]`;
  });
  return { answer: { text: lines.join('\n'), kind: 'extractive', label: extractiveLabel }, citations };
}
