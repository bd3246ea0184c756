import { fillPrompt, type PromptTemplate } from '../../core/prompt-library.js';

/**
 * KGP's traversal-agent instruction, verbatim from the release's training data and LLaMA API
 * (YuWVandy/KG-LLM-MDQA `Pipeline/retriever.py`, KGP-LLaMA's instruction: "What evidence do we need to answer the question given the current
 * evidence?", input question + current passage, output the next supporting passage). The fine-tuned T5
 * and LLaMA agents learned the output format from their data; a general chat model is told it here.
 * Placeholders: `{question}`, `{evidence}` (the passages of the reasoning path so far).
 */
const nextEvidenceText = `What evidence do we need to answer the question given the current evidence?

Question: {question}

Current evidence:
{evidence}

Write the passage that would supply the missing evidence, as it would read in a reference text: one to three factual sentences naming the people, places, works, organizations or dates it is about. When the current evidence names the person, work or place the question leads to next, write about that one. Reply with the passage only.`;

export const kgpNextEvidencePrompt: PromptTemplate = {
  name: 'kgp-next-evidence',
  description: "KGP traversal agent: the next supporting passage for a question given the current evidence; placeholders {question}, {evidence}",
  text: nextEvidenceText,
};

/** Fills the next-evidence prompt text (the built-in one or a workspace override). */
export function renderNextEvidencePrompt(text: string, question: string, evidence: readonly string[]): string {
  return fillPrompt(text, { question, evidence: evidence.join('\n\n') });
}
