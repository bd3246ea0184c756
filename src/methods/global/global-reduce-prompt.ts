import { fillPrompt, type PromptTemplate } from '../../core/prompt-library.js';

/**
 * System prompt of the global-search reduce call, after GraphRAG's reduce prompt
 * (microsoft/graphrag `prompts/query/global_search_reduce_system_prompt.py`), in our words: merge the analysts' points (given most important first) into one answer, drop what
 * does not bear on the question, keep their `[Data: …]` references, never mention the analysts, and write
 * Markdown of the requested shape and length. Placeholders: `{report_data}`, `{response_type}`, `{max_length}`.
 */
const globalReduceText = `---Role---

You are an editor who turns several analysts' findings about a collection of documents into one answer to the user's question.

---Goal---

Below are reports from analysts who each studied a different part of the data. They are ordered from most to least important. Combine them into a single answer of the requested length and format that responds to the user's question.

Leave out anything that does not help answer the question. Merge points that say the same thing. Write the answer for the reader: do not mention the analysts or how the reports were produced.

If the analysts' reports do not contain the answer, say that you do not know. Never invent facts.

Keep the data references the analysts gave, in the same form, for example:

"Three floods shaped the town's defences [Data: Reports (2, 9, 14)]."

List at most 5 ids in one reference; if more records support the point, list the 5 most relevant and add "+more". Do not cite ids that the analysts did not cite.

The answer must not exceed {max_length} words.

---Target response length and format---

{response_type}

---Analyst reports---

{report_data}

---Reminder---

Combine the analysts' reports above into one answer, keep their [Data: Reports (ids)] references, leave out the analysts themselves, and say so when the reports do not answer the question. Target format: {response_type}, at most {max_length} words. Use markdown sections and lists where they help.`;

export const globalReduceSystemPrompt: PromptTemplate = {
  name: 'global-reduce',
  description: 'System prompt of the global-search reduce call over ranked analyst points; placeholders {report_data}, {response_type}, {max_length}',
  text: globalReduceText,
};

/**
 * The instruction appended to the reduce prompt when `allowGeneralKnowledge` is on (GraphRAG's optional
 * knowledge prompt, §2.7): outside facts are allowed but must be marked for checking. No placeholders.
 */
export const globalKnowledgePrompt: PromptTemplate = {
  name: 'global-knowledge',
  description: 'Appended to the global reduce prompt when allowGeneralKnowledge is on; no placeholders',
  text: `---Outside knowledge---

You may add relevant facts you know from outside the analysts' reports when they make the answer more complete. Mark every such fact with [LLM: verify], for example:

"Tidal rivers often flood when spring tides meet heavy rain [LLM: verify]."

Do not put data references on facts from outside the reports.`,
};

/** Fills a reduce prompt text (the built-in one or a workspace override), with the knowledge text when given. */
export function renderGlobalReducePrompt(text: string, reportData: string, responseType: string, maxLength: number, knowledge?: string): string {
  const filled = fillPrompt(text, { report_data: reportData, response_type: responseType, max_length: String(maxLength) });
  return knowledge === undefined ? filled : `${filled}\n\n${knowledge}`;
}
