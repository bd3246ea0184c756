import type { PromptTemplate } from '../../core/prompt-library.js';

/**
 * HippoRAG 2's recognition-memory filter (`rerank.py:DSPyFilter`, the DSPy-optimized prompt
 * `filter_llama3.3-70B-Instruct.json`), in our words: from the candidate facts linked to a question, keep at
 * most four that help answer it, copied exactly, as JSON `{"fact": [[s, p, o], ...]}`; an empty list when none
 * does. Placeholders: `{question}`, `{facts}` (the candidates as `{"fact": [...]}`).
 */
const recognitionFilterText = `You are a critical component of a question-answering system. Your task is to filter facts by their relevance to a question. The question may need multi-hop reasoning that connects several pieces of information.

From the candidate facts below, select up to 4 facts that are strongly connected to the question and help to answer it. Copy each selected fact exactly as it appears in the candidate list: never change a fact and never add a new one. Reply with JSON only, in the same format as the candidates, for example {"fact": [["subject 1", "predicate 1", "object 1"], ["subject 2", "predicate 2", "object 2"]]}. If no candidate fact is relevant, reply {"fact": []}.

Question: {question}

Candidate facts: {facts}

Relevant facts:`;

export const recognitionFilterPrompt: PromptTemplate = {
  name: 'ppr-recognition-filter',
  description: 'HippoRAG 2 recognition memory: keep up to 4 of the candidate facts relevant to the question, JSON {"fact": [[s, p, o], ...]}; placeholders {question}, {facts}',
  text: recognitionFilterText,
};
