import type { ChatMessage, LanguageModel } from '../../providers/llm/language-model.js';
import { gradeReaskMessage, renderGradedAccuracyPrompt } from './graded-accuracy-prompt.js';
import { mapWithConcurrency } from '../../core/map-with-concurrency.js';
import { parseStrictGrade } from './parse-strict-grade.js';
import { toItemFailure } from './to-item-failure.js';

/** One prediction to grade against its accepted answers. */
export interface GradeItem {
  question: string;
  /** The gold answer and its aliases; a prediction matching any one is correct. */
  answers: readonly string[];
  prediction: string;
}

/** The grade of one item. */
export interface GradedItem {
  /** 1 correct, 0 incorrect, `null` when no valid grade was obtained (a failure). */
  grade: 0 | 1 | null;
  /** The last reply received (empty when no call succeeded). */
  raw: string;
  /** Every reply received, in order: one, or two after the corrective re-ask. */
  replies: string[];
  /** Why the item failed, when `grade` is `null`. */
  error?: string;
}

/** Result of {@link gradeAnswers}. */
export interface GradedAccuracy {
  /** 100 × correct / all items, failures counted as incorrect; `null` when there are no items. */
  accuracy: number | null;
  correct: number;
  /** Items graded 0 (failures are not included here; they are in `failures`). */
  incorrect: number;
  /** Items without a valid grade after the re-ask, or whose call failed. */
  failures: number;
  /** 100 × failures / all items; `null` when there are no items. */
  failureRate: number | null;
  /** One entry per input item, in input order. */
  items: GradedItem[];
}

/** Options of {@link gradeAnswers}. */
export interface GradeAnswersOptions {
  /** Grading calls in flight at once. @default 4 */
  concurrency?: number;
  abortSignal?: AbortSignal;
}

/**
 * LLM-graded accuracy (KGP, YuWVandy/KG-LLM-MDQA `Pipeline/evaluation/`): the model reads the question, the gold
 * answer(s) and the prediction and replies 1 (correct) or 0, at temperature 0 (purpose `eval-grade`).
 *
 * Unlike KGP, which counts `'1' in grade` as correct and drops failed predictions from the denominator:
 * - the reply is parsed strictly ({@link parseStrictGrade}): after peeling whitespace, code fences,
 *   enclosing quotes or emphasis and a trailing period it must be exactly `0` or `1`;
 * - an unreadable reply gets exactly one corrective re-ask (the conversation, the bad reply, and
 *   {@link gradeReaskMessage}); if that reply is unreadable too, the item is a failure;
 * - failures stay in the denominator: `accuracy = 100 × correct / (correct + incorrect + failures)`,
 *   and `failures` / `failureRate` are reported next to it.
 *
 * Items without any gold answer cannot be graded; they are failures without a model call. Call errors
 * about one item (see `toItemFailure`) are failures too; aborts and configuration errors reject.
 */
export async function gradeAnswers(
  model: LanguageModel,
  items: readonly GradeItem[],
  options: GradeAnswersOptions = {},
): Promise<GradedAccuracy> {
  const { abortSignal } = options;
  const graded = await mapWithConcurrency(items, options.concurrency ?? 4, (item) => gradeOne(model, item, abortSignal), abortSignal);

  let correct = 0;
  let incorrect = 0;
  let failures = 0;
  for (const item of graded) {
    if (item.grade === 1) correct += 1;
    else if (item.grade === 0) incorrect += 1;
    else failures += 1;
  }
  const total = graded.length;
  return {
    accuracy: total === 0 ? null : (100 * correct) / total,
    correct,
    incorrect,
    failures,
    failureRate: total === 0 ? null : (100 * failures) / total,
    items: graded,
  };
}

async function gradeOne(model: LanguageModel, item: GradeItem, abortSignal: AbortSignal | undefined): Promise<GradedItem> {
  const answers = item.answers.map((answer) => answer.trim()).filter((answer) => answer.length > 0);
  if (answers.length === 0) return { grade: null, raw: '', replies: [], error: 'the item has no gold answer to grade against' };

  const messages: ChatMessage[] = [{ role: 'user', content: renderGradedAccuracyPrompt(item.question, answers, item.prediction) }];
  const replies: string[] = [];
  const ask = async (): Promise<0 | 1 | null> => {
    const result = await model.generate({
      messages,
      temperature: 0,
      purpose: 'eval-grade',
      ...(abortSignal === undefined ? {} : { abortSignal }),
    });
    replies.push(result.text);
    return parseStrictGrade(result.text);
  };

  try {
    const first = await ask();
    if (first !== null) return { grade: first, raw: replies[0] ?? '', replies };
    messages.push({ role: 'assistant', content: replies[0] ?? '' }, { role: 'user', content: gradeReaskMessage });
    const second = await ask();
    const raw = replies[replies.length - 1] ?? '';
    if (second !== null) return { grade: second, raw, replies };
    return { grade: null, raw, replies, error: 'the reply was not exactly 0 or 1, even after one corrective re-ask' };
  } catch (error) {
    return { grade: null, raw: replies[replies.length - 1] ?? '', replies, error: toItemFailure(error, abortSignal) };
  }
}
