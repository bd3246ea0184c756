import { maxOf } from '../../core/max-of.js';

/**
 * Answer metrics: exact match, token F1 and EM-in, on SQuAD-normalized text.
 *
 * Sources: the SQuAD v1.1 evaluation script (`normalize_answer`, `exact_match_score`, `f1_score`,
 * `metric_max_over_ground_truths`), used unchanged by KGP (`evaluation/evaluation.py`) and HippoRAG;
 * Tree-of-Traversals' `score_answers` (`wikimultihop.py`) for EM-in.
 */

const articles = new Set(['a', 'an', 'the']);

/**
 * SQuAD's `string.punctuation` (deleted, not replaced by a space, as SQuAD does) plus every Unicode
 * punctuation character, so that typographic quotes, dashes and ellipses ("’", "–", "…") count like
 * their ASCII forms. Symbols outside ASCII (°, €, ±) are kept: they carry meaning in answers.
 */
const punctuation = /[\p{P}!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/gu;

/**
 * SQuAD answer normalization: lower case, punctuation removed, the articles a/an/the removed,
 * whitespace collapsed. Text is first put in Unicode NFC form so that a precomposed "é" and "e" + a
 * combining accent compare equal; diacritics themselves are kept, as SQuAD keeps them ("José" ≠ "Jose").
 * Articles are dropped as whole whitespace-separated tokens, which equals SQuAD's `\b(a|an|the)\b`
 * after punctuation removal without depending on JavaScript's ASCII-only `\b`.
 */
export function normalizeAnswer(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(punctuation, '')
    .split(/\s+/u)
    .filter((token) => token !== '' && !articles.has(token))
    .join(' ');
}

function tokens(text: string): string[] {
  const normalized = normalizeAnswer(text);
  return normalized === '' ? [] : normalized.split(' ');
}

/** Gold answers that say something: empty or whitespace-only entries are not accepted answers. */
function usableGolds(golds: readonly string[]): string[] {
  return golds.filter((gold) => gold.trim() !== '');
}

/**
 * Exact match (SQuAD): 1 when the normalized prediction equals the normalized form of some gold
 * answer, else 0 — the maximum over the gold answer and its aliases.
 * @returns 0 or 1; `null` when there is no gold answer.
 */
export function exactMatch(prediction: string, golds: readonly string[]): number | null {
  const candidates = usableGolds(golds);
  if (candidates.length === 0) return null;
  const normalized = normalizeAnswer(prediction);
  return candidates.some((gold) => normalizeAnswer(gold) === normalized) ? 1 : 0;
}

function tokenF1(predictionTokens: readonly string[], goldTokens: readonly string[]): number {
  // SQuAD v1.1 scores two empty token lists 0; SQuAD v2 scores them 1. An answer such as "The"
  // normalizes to nothing, and a prediction that normalizes to nothing as well matches it exactly.
  if (predictionTokens.length === 0 || goldTokens.length === 0) {
    return predictionTokens.length === goldTokens.length ? 1 : 0;
  }
  const goldCounts = new Map<string, number>();
  for (const token of goldTokens) goldCounts.set(token, (goldCounts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predictionTokens) {
    const left = goldCounts.get(token) ?? 0;
    if (left > 0) {
      common += 1;
      goldCounts.set(token, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predictionTokens.length;
  const recall = common / goldTokens.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * Token F1 (SQuAD): the harmonic mean of precision and recall of the prediction's normalized tokens
 * against a gold answer's, counting repeated tokens as a multiset; the maximum over the gold answer
 * and its aliases.
 * @returns a value in [0, 1]; `null` when there is no gold answer.
 */
export function f1Score(prediction: string, golds: readonly string[]): number | null {
  const candidates = usableGolds(golds);
  if (candidates.length === 0) return null;
  const predictionTokens = tokens(prediction);
  return maxOf(candidates.map((gold) => tokenF1(predictionTokens, tokens(gold))));
}

/** Options of {@link emIn}. */
export interface EmInOptions {
  /**
   * Treat each entry of `golds` as a separate answer that the prediction must all contain (a
   * question with several correct answers, e.g. "which countries border …"); an entry may be a list
   * of aliases of one answer. Without it, `golds` are alternative forms of one answer.
   * @default false
   */
  multiAnswer?: boolean;
  /**
   * Count a gold answer only as whole words of the prediction: "no" is then not found in "northeastern". Tree-of-
   * Traversals' EM-in is a plain substring test (the default); the extractive scores of `kgrag eval`, whose answers
   * are whole sentences, use whole words, or a yes/no question would be "answered" by any sentence with "no" in a word.
   * @default false
   */
  wholeWords?: boolean;
}

function contains(normalizedPrediction: string, gold: string, wholeWords: boolean): boolean {
  const normalizedGold = normalizeAnswer(gold);
  // An answer that normalizes to nothing ("The") is a substring of everything; it only matches an
  // equally empty prediction.
  if (normalizedGold === '') return normalizedPrediction === '';
  return wholeWords ? ` ${normalizedPrediction} `.includes(` ${normalizedGold} `) : normalizedPrediction.includes(normalizedGold);
}

/**
 * EM-in (Tree-of-Traversals, `score_answers`): a gold answer counts as found when its normalized
 * form is a substring of the normalized prediction. With one answer (and its aliases) the score is 1
 * when any alias is found, else 0. With several answers (`multiAnswer`), the score is the number of
 * distinct answers found divided by the number of distinct answers — Tree-of-Traversals' partial
 * credit for multi-answer questions. Normalization is {@link normalizeAnswer} (Tree-of-Traversals uses
 * the same steps with `casefold`).
 * @returns a value in [0, 1]; `null` when there is no gold answer.
 */
export function emIn(
  prediction: string,
  golds: ReadonlyArray<string | readonly string[]>,
  options: EmInOptions = {},
): number | null {
  const normalizedPrediction = normalizeAnswer(prediction);
  if (options.multiAnswer !== true) {
    const aliases = usableGolds(golds.flat());
    if (aliases.length === 0) return null;
    return aliases.some((alias) => contains(normalizedPrediction, alias, options.wholeWords === true)) ? 1 : 0;
  }
  // Tree-of-Traversals scores a set of normalized labels, so an answer listed twice counts once.
  const answers = new Map<string, string[]>();
  for (const entry of golds) {
    const aliases = usableGolds(typeof entry === 'string' ? [entry] : entry);
    if (aliases.length === 0) continue;
    const identity = aliases.map(normalizeAnswer).sort().join('\u0000');
    answers.set(identity, aliases);
  }
  if (answers.size === 0) return null;
  let found = 0;
  for (const aliases of answers.values()) {
    if (aliases.some((alias) => contains(normalizedPrediction, alias, options.wholeWords === true))) found += 1;
  }
  return found / answers.size;
}
