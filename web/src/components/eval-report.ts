/*
 * The `report.json` that `kgrag eval` writes (src/eval/run-evaluation.ts, `EvaluationReport`), read in the browser:
 * checked once here and turned into typed rows, so the view never reads an unchecked field.
 */

/** How some questions' passages were ranked: by the method itself, by a proxy, or by a fallback procedure. */
export interface EvalRankingCount {
  kind: 'native' | 'proxy' | 'fallback';
  note: string | null;
  questions: number;
}

/** One method's row of the report (percentages 0–100; null where not applicable). */
export interface EvalMethodResult {
  name: string;
  /** Recall@k and AR@k by cut-off k. */
  recall: ReadonlyMap<number, number | null>;
  allRecall: ReadonlyMap<number, number | null>;
  em: number | null;
  f1: number | null;
  emIn: number | null;
  accuracy: number | null;
  latencyP50: number;
  latencyP95: number;
  llmCalls: number;
  tokensIn: number;
  tokensOut: number;
  questions: number;
  questionsWithGold: number;
  errors: number;
  errorMessage: string | null;
  ranking: EvalRankingCount[];
}

/** One criterion of a pairwise judge comparison (`PairwiseTally`). */
export interface EvalJudgeTally {
  criterion: string;
  winRateA: number | null;
  winRateB: number | null;
  tieRate: number | null;
  comparisons: number;
  failures: number;
}

/** A pairwise judge comparison of two methods' answers. */
export interface EvalJudgePair {
  pair: string;
  first: string;
  second: string;
  tallies: EvalJudgeTally[];
}

/** A checked evaluation report. */
export interface EvalReport {
  dataset: string;
  n: number;
  /** The recall cut-offs of the report, ascending (those of its first method, as the markdown report takes them). */
  cutoffs: number[];
  /** The AR@k cut-offs present, ascending. */
  allRecallCutoffs: number[];
  methods: EvalMethodResult[];
  judge: EvalJudgePair[];
}

/** Why a file is not a kgrag evaluation report. */
export class EvalReportError extends Error {}

const expected = 'the report.json that `kgrag eval` writes: an object with "dataset", "n" and "methods" (each method with "recall@k", latency and LLM usage)';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads `text` (the content of `fileName`) as an evaluation report, or throws an {@link EvalReportError} naming the
 * file, what was expected and what is wrong.
 */
export function parseEvalReport(text: string, fileName: string): EvalReport {
  const fail = (problem: string): never => {
    throw new EvalReportError(`"${fileName}" is not a kgrag evaluation report (${problem}). Expected ${expected}.`);
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return fail(`it is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(data)) return fail('its top level is not an object');
  const { dataset, n, methods, judge } = data;
  if (typeof dataset !== 'string') return fail('"dataset" is missing or not a string');
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) return fail('"n" is missing or not a count of questions');
  if (!isObject(methods)) return fail('"methods" is missing or not an object of methods');
  const names = Object.keys(methods);
  if (names.length === 0) return fail('"methods" is empty');

  const number = (where: string, value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : fail(`${where} is not a number`));
  const nullableNumber = (where: string, value: unknown): number | null => (value === null || value === undefined ? null : number(where, value));

  const rows = names.map((name): EvalMethodResult => {
    const method = methods[name];
    const where = (field: string) => `"methods"."${name}"."${field}"`;
    if (!isObject(method)) return fail(`"methods"."${name}" is not an object`);
    const cutoffMetrics = (prefix: string): Map<number, number | null> => {
      const found = new Map<number, number | null>();
      for (const [key, value] of Object.entries(method)) {
        if (!key.startsWith(prefix)) continue;
        const k = Number(key.slice(prefix.length));
        if (!Number.isInteger(k) || k <= 0) continue;
        found.set(k, nullableNumber(where(key), value));
      }
      return found;
    };
    const recall = cutoffMetrics('recall@');
    if (recall.size === 0) return fail(`${where('recall@k')} is missing: no recall cut-off`);
    const rankingValue = method['ranking'] ?? [];
    if (!Array.isArray(rankingValue)) return fail(`${where('ranking')} is not a list`);
    const ranking = rankingValue.map((entry: unknown): EvalRankingCount => {
      if (!isObject(entry)) return fail(`${where('ranking')} holds an entry that is not an object`);
      const kind = entry['kind'];
      if (kind !== 'native' && kind !== 'proxy' && kind !== 'fallback') return fail(`${where('ranking')} has the kind ${JSON.stringify(kind)}, not native, proxy or fallback`);
      const note = entry['note'];
      return { kind, note: typeof note === 'string' ? note : null, questions: number(where('ranking.questions'), entry['questions']) };
    });
    const errorMessage = method['error_message'];
    return {
      name,
      recall,
      allRecall: cutoffMetrics('ar@'),
      em: nullableNumber(where('em'), method['em']),
      f1: nullableNumber(where('f1'), method['f1']),
      emIn: nullableNumber(where('em_in'), method['em_in']),
      accuracy: nullableNumber(where('accuracy'), method['accuracy']),
      latencyP50: number(where('latency_ms_p50'), method['latency_ms_p50']),
      latencyP95: number(where('latency_ms_p95'), method['latency_ms_p95']),
      llmCalls: number(where('llm_calls'), method['llm_calls']),
      tokensIn: number(where('tokens_in'), method['tokens_in']),
      tokensOut: number(where('tokens_out'), method['tokens_out']),
      questions: number(where('questions'), method['questions']),
      questionsWithGold: nullableNumber(where('questions_with_gold'), method['questions_with_gold']) ?? number(where('questions'), method['questions']),
      errors: nullableNumber(where('errors'), method['errors']) ?? 0,
      errorMessage: typeof errorMessage === 'string' ? errorMessage : null,
      ranking,
    };
  });

  const first = rows[0] as EvalMethodResult;
  const allRecallCutoffs = [...new Set(rows.flatMap((row) => [...row.allRecall.keys()]))].sort((a, b) => a - b);
  return { dataset, n, cutoffs: [...first.recall.keys()].sort((a, b) => a - b), allRecallCutoffs, methods: rows, judge: readJudge(judge, fail) };
}

function readJudge(judge: unknown, fail: (problem: string) => never): EvalJudgePair[] {
  if (judge === undefined || judge === null) return [];
  if (!isObject(judge)) return fail('"judge" is not an object');
  return Object.entries(judge).map(([pair, byCriterion]) => {
    if (!isObject(byCriterion)) return fail(`"judge"."${pair}" is not an object of criteria`);
    const [first = 'A', second = 'B'] = pair.split(' vs ');
    const rate = (value: unknown): number | null => (typeof value === 'number' ? value : null);
    const tallies = Object.entries(byCriterion)
      .filter((entry): entry is [string, Json] => isObject(entry[1]))
      .map(([criterion, tally]) => ({
        criterion,
        winRateA: rate(tally['winRateA']),
        winRateB: rate(tally['winRateB']),
        tieRate: rate(tally['tieRate']),
        comparisons: rate(tally['comparisons']) ?? 0,
        failures: rate(tally['failures']) ?? 0,
      }));
    return { pair, first, second, tallies };
  });
}
