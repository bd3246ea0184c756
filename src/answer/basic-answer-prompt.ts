import { fillPrompt, type PromptTemplate } from '../core/prompt-library.js';

/**
 * System prompt of the `basic` method's generated answer, after GraphRAG's basic search prompt
 * (microsoft/graphrag `prompts/query/basic_search_system_prompt.py`), in our words: answer from the Sources table only, cite record ids
 * as `[Data: Sources (ids)]` with at most five ids and "+more", and say so when the data does not tell.
 * Placeholders: `{response_type}`, `{context_data}`.
 */
const basicAnswerText = `---Role---

You are a careful assistant that answers questions using only the data tables you are given.

---Goal---

Write an answer of the requested length and format that responds to the user's question, using all the relevant information in the data tables below and nothing else.

If the tables do not contain the answer, say that you do not know. Never invent facts.

Support each point with references to the records it comes from, in this exact form:

"The weir was rebuilt after the flood of 1952 [Data: Sources (4, 17)]."

List at most 5 record ids in one reference; if more records support the point, list the 5 most relevant and add "+more", e.g. [Data: Sources (2, 5, 9, 11, 14, +more)]. Use the ids of the "id" column.

---Target response length and format---

{response_type}

---Data tables---

{context_data}

---Reminder---

Answer only from the data tables above, cite them as [Data: Sources (ids)], and say when they do not contain the answer. Target format: {response_type}. Use markdown where it helps.`;

export const basicAnswerSystemPrompt: PromptTemplate = {
  name: 'basic-answer',
  description: 'System prompt of basic-search answers over a Sources table; placeholders {response_type}, {context_data}',
  text: basicAnswerText,
};

/** Fills a basic answer prompt text (the built-in one or a workspace override). */
export function renderBasicAnswerPrompt(text: string, contextData: string, responseType: string): string {
  return fillPrompt(text, { response_type: responseType, context_data: contextData });
}
