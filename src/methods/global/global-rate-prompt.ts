import { fillPrompt, type PromptTemplate } from '../../core/prompt-library.js';

/**
 * System prompt of a dynamic-community-selection rating, after GraphRAG's rating prompt
 * (microsoft/graphrag `query/context_builder/rate_prompt.py`), in our words: rate from 0 to 5 how useful one report is for the question,
 * replying with JSON `{reason, rating}`. The question is also the user message. Placeholders: `{question}`,
 * `{report}`.
 */
const globalRateText = `---Role---

You judge whether a community report is useful for answering a question.

---Task---

Read the report below and rate, on a scale from 0 to 5, how relevant it is to the question "{question}":
- 0: unrelated; nothing in it helps;
- 1: barely related; it touches the subject but would hardly help;
- 2 or 3: partly relevant; it holds some useful information;
- 4 or 5: highly relevant; it directly helps answer the question.

---Report---

{report}

---Reply---

Reply with JSON only: {"reason": "one or two sentences explaining the rating", "rating": integer from 0 to 5}.`;

export const globalRateSystemPrompt: PromptTemplate = {
  name: 'global-rate',
  description: 'System prompt rating a community report 0–5 for dynamic community selection (JSON reason and rating); placeholders {question}, {report}',
  text: globalRateText,
};

/** Fills a rating prompt text (the built-in one or a workspace override). */
export function renderGlobalRatePrompt(text: string, question: string, report: string): string {
  return fillPrompt(text, { question, report });
}
