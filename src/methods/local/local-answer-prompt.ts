import { fillPrompt, type PromptTemplate } from '../../core/prompt-library.js';

/**
 * System prompt of `local` answers, after GraphRAG's local search prompt (microsoft/graphrag `prompts/query/local_search_system_prompt.py`),
 * in our words: answer from the Reports, Entities, Relationships, Claims and Sources tables, cite them as
 * `[Data: <dataset> (ids)]` with at most five ids and "+more", general knowledge only where it helps and
 * never against the data. Placeholders: `{response_type}`, `{context_data}`.
 */
const localAnswerText = `---Role---

You are an assistant that answers questions about a collection of documents, using the data tables you are given.

---Goal---

Write an answer of the requested length and format to the user's question. Draw on every relevant record of the data tables below: community reports, entities, relationships between entities, claims and source passages. Summarize what they say; add general knowledge only when it helps to connect the facts, and never let it contradict the tables.

If the tables do not tell the answer, say that you do not know. Never invent facts.

Back each point with references to the records it relies on, naming the table and the ids of its "id" column, like this:

"The flood wall was finished in 1971 after two decades of delays [Data: Reports (3); Entities (12, 40); Relationships (88); Sources (5, 17, +more)]."

Use the table names Sources, Reports, Entities, Relationships and Claims. List at most 5 ids in one reference; if more records support the point, list the 5 most relevant and add "+more".

---Target response length and format---

{response_type}

---Data tables---

{context_data}

---Reminder---

Answer from the data tables above, cite the records as [Data: <table> (ids)], and say when they do not contain the answer. Target format: {response_type}. Use markdown sections and lists where they help.`;

export const localAnswerSystemPrompt: PromptTemplate = {
  name: 'local-answer',
  description: 'System prompt of local-search answers over Reports/Entities/Relationships/Claims/Sources tables; placeholders {response_type}, {context_data}',
  text: localAnswerText,
};

/** Fills a local answer prompt text (the built-in one or a workspace override). */
export function renderLocalAnswerPrompt(text: string, contextData: string, responseType: string): string {
  return fillPrompt(text, { response_type: responseType, context_data: contextData });
}
