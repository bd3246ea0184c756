import type { PromptTemplate } from '../../core/prompt-library.js';

/**
 * HyDE expansion (microsoft/graphrag `prompts/query/drift_search_system_prompt.py`), in our words: a hypothetical answer to the question,
 * shaped like the example report so that its embedding lands among the reports. Placeholders: `{query}`,
 * `{template}`.
 */
const hydeText = `Below is an example of a community report from a knowledge base, followed by a question.

Write a hypothetical answer to the question that looks like such a report: the same structure (a title, a short summary, then sections of findings) and a similar length and tone. Do not add names of people, places or organizations that appear in neither the question nor the example; where a specific fact is unknown, describe it in general terms. Reply with the report text only.

---Example report---

{template}

---Question---

{query}`;

/**
 * DRIFT primer, in our words: a first answer from a fold of community reports, a 0–100 score of how well
 * they answer, and follow-up questions for a closer look. Placeholders: `{query}`, `{community_reports}`.
 */
const primerText = `You help answer a question about a collection of documents by giving a first, broad answer from community reports, and by proposing what to look up next.

---Community reports---

{community_reports}

---Question---

{query}

Reply with a JSON object with these keys:
- "intermediate_answer": a Markdown answer of about 2000 characters built from the reports above, starting with a header line. Cite the reports it relies on as [Data: Reports (ids)], using the "id" column.
- "score": an integer from 0 to 100 saying how well the reports answer the question (0: not at all, 100: completely).
- "follow_up_queries": at least 5 specific questions that would fill the gaps of this answer when searched in the documents. Each asks one thing only; do not combine questions.`;

/**
 * A DRIFT follow-up's local search, in our words: answer the follow-up from the tables (the Sources table
 * first), score the answer against the overall question, propose more follow-ups. Placeholders:
 * `{global_query}`, `{context_data}`, `{response_type}`.
 */
const localText = `You answer one follow-up question as part of a larger investigation, using only the data tables below.

The overall question of the investigation is: {global_query}

---Data tables---

{context_data}

Rely above all on the Sources table: it holds the original passages. The other tables summarize entities, their relationships and their communities. Cite the records you use as [Data: <table> (ids)] with the "id" column, at most 5 ids per reference, adding "+more" when more records support a point, e.g. [Data: Sources (4, 9); Entities (12)]. Never invent facts; if the tables do not answer, say so.

Reply with a JSON object with these keys:
- "response": a Markdown answer to the follow-up question ({response_type}), with citations.
- "score": an integer from 0 to 100 saying how much this answer helps to answer the overall question.
- "follow_up_queries": up to 5 further specific questions, each asking one thing, that would help answer the overall question; an empty list if none is needed.`;

/**
 * DRIFT reduce, in our words: one answer from the tree of intermediate answers, keeping their citations.
 * Placeholders: `{response_type}`, `{context_data}`.
 */
const reduceText = `---Role---

You write the final answer of an investigation from the intermediate answers it produced.

---Goal---

Combine the intermediate answers below into one answer of the requested length and format to the user's question. Favour answers with higher scores, reconcile or point out disagreements, and leave out what does not bear on the question. Say that you do not know when the answers do not tell. Never invent facts.

Keep the data references of the intermediate answers for every point you take from them, in the same form: [Data: Sources (ids); Reports (ids); Entities (ids); Relationships (ids); Claims (ids)], at most 5 ids per reference, with "+more" when there are more.

---Target response length and format---

{response_type}

---Intermediate answers---

{context_data}

---Reminder---

Answer from the intermediate answers above, keep their [Data: …] references, and say when they do not contain the answer. Target format: {response_type}. Use markdown where it helps.`;

/** Every prompt of `drift`. */
export const driftPrompts: { readonly hyde: PromptTemplate; readonly primer: PromptTemplate; readonly local: PromptTemplate; readonly reduce: PromptTemplate } = {
  hyde: { name: 'drift-hyde', description: 'DRIFT query expansion: a hypothetical answer shaped like a community report; placeholders {query}, {template}', text: hydeText },
  primer: {
    name: 'drift-primer',
    description: 'DRIFT primer over a fold of community reports, JSON {intermediate_answer, score, follow_up_queries}; placeholders {query}, {community_reports}',
    text: primerText,
  },
  local: {
    name: 'drift-local',
    description: 'DRIFT follow-up answered from a local search context, JSON {response, score, follow_up_queries}; placeholders {global_query}, {context_data}, {response_type}',
    text: localText,
  },
  reduce: { name: 'drift-reduce', description: 'DRIFT final answer from the tree of intermediate answers; placeholders {response_type}, {context_data}', text: reduceText },
};
