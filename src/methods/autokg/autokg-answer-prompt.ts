import { fillPrompt, type PromptTemplate } from '../../core/prompt-library.js';

/**
 * AutoKG's answer prompt (the paper's appendix; `completion_from_record` with `prompt_keywords`,
 * wispcarey/AutoKG `autoKG_full.py`), keywords always included. Two additions: each text starts with the id
 * answers cite it by, and the target format. Placeholders: `{similar_keywords}`, `{adjacent_keywords}`,
 * `{texts}`, `{language}`, `{response_type}`, `{query}`.
 */
const autokgAnswerText = `I want you to do a task, deal with a query or answer a question with some information from a knowledge graph.

You will be given a set of keywords directly related to a query, as well as adjacent keywords from the knowledge graph. Keywords will be separated by semicolons (;).

Relevant texts will be provided, enclosed within triple backticks. Each text starts with its id in square brackets; when you use a text, cite it as [Data: Sources (id, id)].

Please note, you should not invent any information. Stick to the facts provided in the keywords and texts.

Your response should be written in {language}. Target length and format: {response_type}.

Avoid to show any personal information, like Name, Email, WhatsApp, Skype, and Website in your polished response.

Keywords directly related to the query:

{similar_keywords}

Adjacent keywords according to the knowledge graph:

{adjacent_keywords}

Texts: '''
{texts}
'''

Your task:
{query}

Your response:`;

export const autokgAnswerPrompt: PromptTemplate = {
  name: 'autokg-answer',
  description:
    'AutoKG answer prompt over the query keywords, adjacent keywords and retrieved texts; placeholders {similar_keywords}, {adjacent_keywords}, {texts}, {language}, {response_type}, {query}',
  text: autokgAnswerText,
};

/** What fills an AutoKG answer prompt. */
export interface AutokgPromptValues {
  similarKeywords: readonly string[];
  adjacentKeywords: readonly string[];
  /** Texts already rendered as `* [id] text` lines. */
  texts: string;
  language: string;
  responseType: string;
  query: string;
}

/** Fills an AutoKG answer prompt text (the built-in one or a workspace override). */
export function renderAutokgAnswerPrompt(text: string, values: AutokgPromptValues): string {
  return fillPrompt(text, {
    similar_keywords: values.similarKeywords.join('; '),
    adjacent_keywords: values.adjacentKeywords.join('; '),
    texts: values.texts,
    language: values.language,
    response_type: values.responseType,
    query: values.query,
  });
}
