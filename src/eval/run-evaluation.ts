import type { Kgrag } from '../api/create-kgrag.js';
import type { ContextChunk } from '../answer/answer-types.js';
import { appendAll } from '../core/append-all.js';
import { maxOf } from '../core/max-of.js';
import type { InputDocument, PipelineEvent } from '../pipeline/pipeline-step.js';
import { KgragError } from '../core/errors.js';
import type { AnyQueryMethod, RankingInfo } from '../methods/query-method.js';
import { configKeysOf } from '../methods/config-shape.js';
import { withoutDataReferences } from '../extract/reports/renumber-data-references.js';
import type { EvalDataset, EvalPassage, EvalQuestion } from './eval-dataset.js';
import { gradeAnswers } from './judge/graded-accuracy.js';
import { judgePairs, type PairwiseTally } from './judge/pairwise-judge.js';
import { emIn, exactMatch, f1Score } from './metrics/answer-metrics.js';
import { allRecallAtK, recallAtK } from './metrics/retrieval-metrics.js';

/** Recall cut-offs reported by default; the report schema always has 1, 2, 5 and 10. */
export const defaultRecallCutoffs = [1, 2, 5, 10] as const;

/** Per-method results (percentages 0–100; null where not applicable). */
export interface MethodReport {
  [metric: `recall@${number}` | `ar@${number}`]: number | null;
  em: number | null;
  f1: number | null;
  /** Tree-of-Traversals' EM-in: a gold answer contained in the prediction (without its citation markers, as EM and F1). */
  em_in: number | null;
  /**
   * Extractive answers (no LLM: the method's answer quotes sentences of its context): EM-in of the quoted text, and
   * the share of quoted sentences whose passage is a gold passage (over the questions with gold passages whose
   * answer quotes any). Null when answers came from an LLM or were not scored.
   */
  extractive_em_in: number | null;
  answer_sentence_precision: number | null;
  /** LLM-graded accuracy with KGP's grading prompt; failures count as wrong. */
  accuracy: number | null;
  accuracy_failures: number | null;
  latency_ms_p50: number;
  latency_ms_p95: number;
  llm_calls: number;
  tokens_in: number;
  tokens_out: number;
  /** Questions evaluated, and how many of them have gold passages (recall averages over those). */
  questions: number;
  questions_with_gold: number;
  /** Questions whose method call failed (counted as retrieving nothing; every recall is null when all failed). */
  errors: number;
  /** The most frequent error message among the failed questions; null when none failed. */
  error_message: string | null;
  /**
   * How the passages of the questions that did not fail were ranked (`Retrieval.ranking`), one entry per kind
   * and note: a `proxy` or `fallback` entry means these numbers are not the method's own ranking.
   */
  ranking: MethodRankingCount[];
}

/** Questions whose passages were ranked one way (see {@link RankingInfo}). */
export interface MethodRankingCount {
  kind: RankingInfo['kind'];
  note: string | null;
  questions: number;
}

/** The report of one evaluation run (`dataset`, `n` and `methods` are the public `report.json` schema). */
export interface EvaluationReport {
  dataset: string;
  n: number;
  methods: Record<string, MethodReport>;
  /** Pairwise LLM judge of two methods' answers (GraphRAG's criteria), when requested: `"a vs b"` → tallies. */
  judge?: Record<string, Partial<Record<string, PairwiseTally>>>;
}

/** One question's outcome for one method: what error analysis needs. */
export interface QuestionResult {
  id: string;
  method: string;
  question: string;
  gold: string[];
  retrieved: Array<{ key: string; title: string; score: number }>;
  hits: Record<string, number | null>;
  answer?: string;
  /** `extractive` when the answer quotes the context (no LLM). */
  answerKind?: 'extractive';
  /** Of the extractive answer's quoted sentences: how many, and how many from a gold passage. */
  quotedSentences?: { total: number; fromGold: number };
  /** Whether a gold answer is in what the extractive answer quotes, as whole words (1 or 0; null without answers). */
  extractiveEmIn?: number | null;
  answers?: string[];
  em?: number | null;
  f1?: number | null;
  /** Whether a gold answer is in the generated answer, without its citation markers (1 or 0; null without answers). */
  emIn?: number | null;
  grade?: 0 | 1 | null;
  latencyMs: number;
  /** How the passages were ranked, when not by the method itself. */
  ranking?: RankingInfo;
  error?: string;
}

/** Progress of an evaluation. */
export type EvaluationEvent =
  | { type: 'index'; event: PipelineEvent }
  | { type: 'openie'; docs: number; matched: number; unmatched: number; triples: number; entities: number }
  | { type: 'method-start'; method: string; total: number }
  | { type: 'question'; method: string; done: number; total: number }
  | { type: 'method-end'; method: string; report: MethodReport };

/** Options of {@link runEvaluation}. */
export interface EvaluationOptions {
  /** An open workspace; the corpus is indexed into it (or found up to date there). */
  kgrag: Kgrag;
  dataset: EvalDataset;
  /** `name`, `name:variant`, or `all` for every registered method and variant. */
  methods: readonly string[];
  /** Recall cut-offs. @default [1, 2, 5, 10] */
  cutoffs?: readonly number[];
  /** Evaluate only the first N questions. */
  limit?: number;
  /**
   * Generate answers (EM, F1, EM-in, graded accuracy). @default true when the workspace has an LLM;
   * without one only retrieval is measured and the answer metrics are null.
   */
  answer?: boolean;
  /** Grade answers with the LLM (KGP's prompt). @default same as `answer` */
  grade?: boolean;
  /**
   * Without LLM answers: answer with each method's extractive answerer and score it (EM-in, the share of quoted
   * sentences from gold passages), labelled extractive; latency then includes the extractive answer, as it includes
   * the generated one with an LLM. `kgrag eval` turns it on when no LLM answers. @default false
   */
  extractive?: boolean;
  /**
   * Two of `methods` whose answers an LLM judge compares on comprehensiveness, diversity, empowerment
   * and directness, both answer orders, `judgeRepeats` times (GraphRAG's evaluation). Needs an LLM.
   */
  judge?: readonly [string, string];
  /** @default 5 */
  judgeRepeats?: number;
  /**
   * A HippoRAG OpenIE file of the corpus (`openie_*_results_ner_*.json`), imported into the workspace before
   * the corpus is indexed, so that the triples of the passages it covers come from it instead of extraction.
   */
  openie?: string;
  onEvent?: (event: EvaluationEvent) => void;
  signal?: AbortSignal;
}

/** The report, the per-question rows, and the methods that ran. */
export interface EvaluationResult {
  report: EvaluationReport;
  questions: QuestionResult[];
}

/** Every method and variant of the registry, as `name:variant` (or `name` for methods without variants). */
export function expandMethods(registry: readonly AnyQueryMethod[], requested: readonly string[]): string[] {
  const names: string[] = [];
  for (const item of requested) {
    if (item === 'all') {
      for (const method of registry) {
        if (method.variants.length === 0) names.push(method.name);
        else for (const variant of method.variants) names.push(`${method.name}:${variant}`);
      }
    } else {
      names.push(item);
    }
  }
  return [...new Set(names)];
}

function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  const rank = fraction * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (rank - low);
}

function mean(values: ReadonlyArray<number | null | undefined>): number | null {
  const present = values.filter((value): value is number => typeof value === 'number');
  return present.length === 0 ? null : (100 * present.reduce((sum, value) => sum + value, 0)) / present.length;
}

const round = (value: number | null): number | null => (value === null ? null : Math.round(value * 100) / 100);

/** The most frequent text (ties: the first seen), or null for none. */
function mostFrequent(texts: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
  let best: string | null = null;
  let bestCount = 0;
  for (const [text, count] of counts) {
    if (count > bestCount) {
      best = text;
      bestCount = count;
    }
  }
  return best;
}

/** The ranking kinds of the rows that did not fail, in order of first appearance (absent ranking: native). */
function countRankings(rows: readonly QuestionResult[]): MethodRankingCount[] {
  const counts = new Map<string, MethodRankingCount>();
  for (const row of rows) {
    if (row.error !== undefined) continue;
    const kind = row.ranking?.kind ?? 'native';
    const note = row.ranking?.note ?? null;
    const key = `${kind}\u0000${note ?? ''}`;
    const count = counts.get(key);
    if (count) count.questions += 1;
    else counts.set(key, { kind, note, questions: 1 });
  }
  return [...counts.values()];
}

/**
 * The document an evaluation indexes for the `index`-th passage of a dataset: what `runEvaluation` indexes, so that a
 * workspace built from these documents (in parts, or with some left out) is up to date when it is evaluated.
 */
export function evaluationDocument(dataset: Pick<EvalDataset, 'name'>, passage: EvalPassage, index: number): InputDocument {
  return { title: passage.title, text: `${passage.title}\n${passage.text}`, source: `eval:${dataset.name}#${index}`, metadata: { evalKey: passage.key } };
}

/**
 * Indexes the dataset's passages into the workspace (each document's text is `title + "\n" + text`, as
 * HippoRAG indexes passages; unchanged corpora are found up to date and nothing is recomputed), with the
 * triples of an OpenIE file when one is given, then runs every method on every question: retrieval
 * metrics always, answer metrics when answering. Passages are matched through each document's `evalKey`;
 * several chunks of one passage count once, at their best rank.
 */
export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationResult> {
  const { kgrag, dataset } = options;
  const emit = options.onEvent ?? (() => undefined);
  // Stored before indexing, so the triples step uses it right away and pays for no extraction it replaces.
  if (options.openie !== undefined) await kgrag.importOpenie(options.openie, { index: false });
  await kgrag.index(
    dataset.passages.map((passage, index) => evaluationDocument(dataset, passage, index)),
    { onEvent: (event) => emit({ type: 'index', event }), ...(options.signal === undefined ? {} : { signal: options.signal }) },
  );
  if (options.openie !== undefined) {
    const [run] = await kgrag.store.table('runs').get(['triples']);
    const counts = run?.counts ?? {};
    emit({
      type: 'openie',
      docs: counts['openieDocs'] ?? 0,
      matched: counts['openieMatched'] ?? 0,
      unmatched: counts['openieUnmatched'] ?? 0,
      triples: counts['openieTriples'] ?? 0,
      entities: counts['openieEntities'] ?? 0,
    });
  }
  const keyOfDocument = new Map<string, string>();
  for (const document of await kgrag.store.table('documents').pick(['id', 'metadata'])) {
    const key = document.metadata.evalKey;
    if (typeof key === 'string') keyOfDocument.set(document.id, key);
  }

  const cutoffs = [...new Set([...defaultRecallCutoffs, ...(options.cutoffs ?? [])])].sort((left, right) => left - right);
  const depth = maxOf(cutoffs);
  const questions = options.limit === undefined ? dataset.questions : dataset.questions.slice(0, options.limit);
  const answering = options.answer ?? kgrag.llm !== undefined;
  const extractive = !answering && options.extractive === true;
  const grading = (options.grade ?? answering) && answering && kgrag.llm !== undefined;
  const methods = expandMethods(kgrag.engine.methods, options.methods);
  const registry = new Map(kgrag.engine.methods.map((method) => [method.name, method]));
  const report: EvaluationReport = { dataset: dataset.name, n: questions.length, methods: {} };
  const rows: QuestionResult[] = [];

  for (const methodName of methods) {
    const method = registry.get(methodName.split(':')[0] ?? '');
    const params = method && configKeysOf(method).includes('k') ? { k: depth } : {};
    emit({ type: 'method-start', method: methodName, total: questions.length });
    const usageBefore = kgrag.usage();
    const methodRows: QuestionResult[] = [];
    for (const [index, question] of questions.entries()) {
      if (options.signal?.aborted) throw new Error('evaluation cancelled');
      methodRows.push(await evaluateQuestion(kgrag, question, methodName, params, answering ? 'llm' : extractive ? 'extractive' : 'none', keyOfDocument, cutoffs, method?.ranking));
      emit({ type: 'question', method: methodName, done: index + 1, total: questions.length });
    }
    let accuracy: number | null = null;
    let accuracyFailures: number | null = null;
    if (grading && kgrag.llm) {
      const answered = methodRows.filter((row) => row.answer !== undefined && (row.answers?.length ?? 0) > 0);
      const graded = await gradeAnswers(
        kgrag.llm,
        answered.map((row) => ({ question: row.question, answers: row.answers ?? [], prediction: row.answer ?? '' })),
      );
      graded.items.forEach((item, itemIndex) => {
        const row = answered[itemIndex];
        if (row) row.grade = item.grade;
      });
      accuracy = graded.accuracy;
      accuracyFailures = graded.failures;
    }
    const usageAfter = kgrag.usage();
    const latencies = methodRows.map((row) => row.latencyMs);
    const errors = methodRows.filter((row) => row.error !== undefined);
    // When every call failed the method measured nothing: its recall is not 0 but unknown.
    const failed = methodRows.length > 0 && errors.length === methodRows.length;
    const methodReport: MethodReport = {
      em: answering ? round(mean(methodRows.map((row) => row.em))) : null,
      f1: answering ? round(mean(methodRows.map((row) => row.f1))) : null,
      em_in: answering ? round(mean(methodRows.map((row) => row.emIn ?? null))) : null,
      extractive_em_in: extractive ? round(mean(methodRows.map((row) => row.extractiveEmIn ?? null))) : null,
      answer_sentence_precision: extractive ? round(mean(methodRows.map(sentencePrecision))) : null,
      accuracy: round(accuracy),
      accuracy_failures: accuracyFailures,
      latency_ms_p50: Math.round(percentile(latencies, 0.5) * 100) / 100,
      latency_ms_p95: Math.round(percentile(latencies, 0.95) * 100) / 100,
      llm_calls: usageAfter.calls - usageBefore.calls,
      tokens_in: usageAfter.inputTokens - usageBefore.inputTokens,
      tokens_out: usageAfter.outputTokens - usageBefore.outputTokens,
      questions: methodRows.length,
      questions_with_gold: questions.filter((question) => question.goldKeys.length > 0).length,
      errors: errors.length,
      error_message: mostFrequent(errors.map((row) => row.error ?? '')),
      ranking: countRankings(methodRows),
    };
    for (const k of cutoffs) {
      methodReport[`recall@${k}`] = failed ? null : round(mean(methodRows.map((row) => row.hits[`recall@${k}`])));
      methodReport[`ar@${k}`] = failed ? null : round(mean(methodRows.map((row) => row.hits[`ar@${k}`])));
    }
    report.methods[methodName] = methodReport;
    appendAll(rows, methodRows);
    emit({ type: 'method-end', method: methodName, report: methodReport });
  }
  if (options.judge) report.judge = await judgeMethods(kgrag, options.judge, rows, options.judgeRepeats ?? 5);
  return { report, questions: rows };
}

async function judgeMethods(kgrag: Kgrag, [first, second]: readonly [string, string], rows: readonly QuestionResult[], repeats: number): Promise<NonNullable<EvaluationReport['judge']>> {
  if (!kgrag.llm) {
    throw new KgragError('the pairwise judge needs an LLM, and none is configured', {
      code: 'EVAL_JUDGE_NEEDS_LLM',
      category: 'config',
      hint: 'configure llm.baseURL or OPENAI_API_KEY (README), or drop --judge',
    });
  }
  const answersOf = (method: string): Map<string, QuestionResult> =>
    new Map(rows.filter((row) => row.method === method && row.answer !== undefined).map((row) => [row.id, row]));
  const left = answersOf(first);
  const right = answersOf(second);
  if (left.size === 0 || right.size === 0) {
    throw new KgragError(`--judge ${first},${second}: both methods must be evaluated with answers`, {
      code: 'EVAL_JUDGE_METHODS',
      category: 'input',
      hint: 'include both in --methods and do not pass --no-answer',
    });
  }
  const items = [...left.values()]
    .filter((row) => right.has(row.id))
    .map((row) => ({ question: row.question, answerA: row.answer ?? '', answerB: right.get(row.id)?.answer ?? '' }));
  const judged = await judgePairs(kgrag.llm, items, { repeats });
  return { [`${first} vs ${second}`]: judged.byCriterion };
}

/** One question's share of quoted sentences from gold passages, or null when it has no gold or quotes nothing. */
function sentencePrecision(row: QuestionResult): number | null {
  const quoted = row.quotedSentences;
  if (quoted === undefined || quoted.total === 0 || row.gold.length === 0) return null;
  return quoted.fromGold / quoted.total;
}

/**
 * What an extractive answer quotes, which EM-in reads: its text without the citation markers ("[Data: Sources (1)]"
 * holds a number), and nothing when it cites nothing. A refusal ("… no sentence in them shares enough of its words")
 * quotes nothing, and its "no" is not the answer to a yes/no question.
 */
function quotedText(answer: string, citations: number): string {
  return citations === 0 ? '' : withoutDataReferences(answer);
}

async function evaluateQuestion(
  kgrag: Kgrag,
  question: EvalQuestion,
  method: string,
  params: Record<string, unknown>,
  answering: 'llm' | 'extractive' | 'none',
  keyOfDocument: ReadonlyMap<string, string>,
  cutoffs: readonly number[],
  methodRanking: RankingInfo | undefined,
): Promise<QuestionResult> {
  let started = performance.now();
  let chunks: ContextChunk[] = [];
  let ranking: RankingInfo | undefined;
  let answer: string | undefined;
  let quoted: string[] | undefined;
  let error: string | undefined;
  try {
    // One query gives both the retrieval (its context holds every retrieved chunk) and the answer. Without an LLM, a
    // method that cannot answer (drift) is still measured on its retrieval, and left out of the extractive scores.
    const asked =
      answering === 'none'
        ? undefined
        : await kgrag.query(question.question, { method, params }).catch((caught: unknown) => {
            if (answering === 'llm') throw caught;
            started = performance.now();
            return undefined;
          });
    if (asked !== undefined) {
      chunks = asked.context.chunks;
      ranking = asked.context.ranking ?? methodRanking;
      if (answering === 'llm' || asked.answer.kind === 'extractive') answer = asked.answer.text;
      if (answering === 'extractive' && asked.answer.kind === 'extractive') {
        // Each quoted sentence is one citation; a citation of no passage (a report, an entity) is from none.
        const documentOfChunk = new Map(chunks.map((chunk) => [chunk.id, chunk.documentId]));
        quoted = asked.citations.map((citation) => (citation.id === undefined ? '' : (documentOfChunk.get(citation.id) ?? '')));
      }
    } else {
      const retrieved = await kgrag.retrieve(question.question, { method, params });
      chunks = retrieved.retrieval.chunks;
      ranking = retrieved.ranking;
    }
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  const latencyMs = performance.now() - started;
  const seen = new Set<string>();
  const retrieved: QuestionResult['retrieved'] = [];
  for (const chunk of chunks) {
    const key = keyOfDocument.get(chunk.documentId);
    if (key === undefined || seen.has(key)) continue;
    seen.add(key);
    retrieved.push({ key, title: chunk.documentTitle, score: chunk.score });
  }
  const keys = retrieved.map((item) => item.key);
  const hits: Record<string, number | null> = {};
  for (const k of cutoffs) {
    hits[`recall@${k}`] = recallAtK(keys, question.goldKeys, k);
    hits[`ar@${k}`] = allRecallAtK(keys, question.goldKeys, k);
  }
  const row: QuestionResult = { id: question.id, method, question: question.question, gold: question.goldKeys, retrieved, hits, latencyMs };
  if (answering === 'llm') {
    row.answers = question.answers;
    if (answer !== undefined) {
      row.answer = answer;
      // Scored on what the answer says: its "[Data: Sources (2)]" markers are no words of it, and their numbers no answer.
      const said = withoutDataReferences(answer);
      row.em = exactMatch(said, question.answers);
      row.f1 = f1Score(said, question.answers);
      row.emIn = emIn(said, question.answers);
    }
  } else if (answering === 'extractive' && answer !== undefined && quoted !== undefined) {
    const gold = new Set(question.goldKeys);
    row.answers = question.answers;
    row.answer = answer;
    row.answerKind = 'extractive';
    row.quotedSentences = { total: quoted.length, fromGold: quoted.filter((documentId) => gold.has(keyOfDocument.get(documentId) ?? '')).length };
    row.extractiveEmIn = emIn(quotedText(answer, quoted.length), question.answers, { wholeWords: true });
  }
  if (ranking !== undefined && ranking.kind !== 'native') row.ranking = ranking;
  if (error !== undefined) row.error = error;
  return row;
}
