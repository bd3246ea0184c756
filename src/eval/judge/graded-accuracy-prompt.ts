/**
 * Prompt of the LLM-graded accuracy metric, after KGP's grading prompt (`Pipeline/prompt.py`,
 * `prompt_eval`; YuWVandy/KG-LLM-MDQA `Pipeline/evaluation/`) in our own words and with its structure: the
 * grader's role, three worked examples (an exact match → 1, a match up to a trailing period → 1, a
 * wrong year → 0), the item to grade, and the instruction to reply with one number, 0 or 1.
 * Section headers follow the GraphRAG prompt style (microsoft/graphrag `prompts/`).
 *
 * Placeholders:
 * - `{question}`: the question asked;
 * - `{answer}`: the gold answer, or several accepted answers on one line (see {@link renderGoldAnswers});
 * - `{prediction}`: the answer being graded.
 */
export const gradedAccuracyPrompt = `---Role---

You are an expert examiner. You decide whether a predicted answer to a question is correct, judging it against the reference answer.

---Examples---

Question: Which company owns Marvel Comics?
Answer: The Walt Disney Company
Prediction: The Walt Disney Company
Grade: 1

Question: Which constituent college of the University of Oxford endows four professorial fellowships in the sciences, among them chemistry and pure mathematics?
Answer: Magdalen College
Prediction: Magdalen College.
Grade: 1

Question: In which year was Marvel founded?
Answer: 1939
Prediction: 1200
Grade: 0

---Item to grade---

Question: {question}
Answer: {answer}
Prediction: {prediction}

---Instructions---

If the prediction is correct according to the answer, the grade is 1. Otherwise the grade is 0.
Reply with one number, 0 or 1, and nothing else.`;

/**
 * The corrective turn sent once when a grading reply is not exactly `0` or `1`. The conversation so
 * far (the prompt and the bad reply) is kept, so the model only has to restate its grade.
 */
export const gradeReaskMessage = 'Your reply could not be read as a grade. Reply with exactly one character: 1 if the prediction is correct, 0 if it is not. No words, no punctuation.';

/**
 * Renders the accepted answers for the `{answer}` slot: the answer itself when there is one, else all
 * aliases on one line, quoted so that commas inside an answer stay unambiguous.
 */
export function renderGoldAnswers(answers: readonly string[]): string {
  if (answers.length === 1) return answers[0] ?? '';
  return `any one of ${answers.map((answer) => JSON.stringify(answer)).join(', ')}`;
}

/** Fills {@link gradedAccuracyPrompt}. Values are inserted once, so braces inside them are kept verbatim. */
export function renderGradedAccuracyPrompt(question: string, answers: readonly string[], prediction: string): string {
  const values: Record<string, string> = { question, answer: renderGoldAnswers(answers), prediction };
  return gradedAccuracyPrompt.replace(/\{(question|answer|prediction)\}/g, (_match, name: string) => values[name] ?? '');
}
