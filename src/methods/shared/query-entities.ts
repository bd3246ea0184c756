import { z } from 'zod';
import { fillPrompt, type PromptTemplate } from '../../core/prompt-library.js';
import { generateObject } from '../../providers/llm/generate-object.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { normalizePhrase } from '../../text/normalize-phrase.js';
import type { MethodContext } from '../query-method.js';
import { questionNounPhrases } from './question-noun-phrases.js';

/**
 * HippoRAG's query NER prompt (legacy `named_entity_extraction_parallel.py`: "Please extract all named entities
 * that are important for solving the questions below", one worked example, JSON `{"named_entities": [...]}`),
 * as one user message. Placeholder: `{question}`.
 */
const queryEntitiesText = `You are a very effective entity extraction system.

Please extract all named entities that are important for solving the question below. Place the named entities in JSON format: {"named_entities": ["...", "..."]}.

Example
Question: Which magazine was started first Arthur's Magazine or First for Women?
Answer: {"named_entities": ["First for Women", "Arthur's Magazine"]}

Question: {question}
Answer:`;

/** The query NER prompt of {@link extractQueryEntities}; placeholder `{question}`. */
export const queryEntitiesPrompt: PromptTemplate = {
  name: 'query-entities',
  description: 'HippoRAG query NER: the named entities a question needs, as JSON {"named_entities": [...]}; placeholder {question}',
  text: queryEntitiesText,
};

const namedEntitiesReply = z.object({
  named_entities: z.array(z.coerce.string()).describe('Named entities of the question, as written'),
});

/**
 * The entities a question is about, as written, distinct after {@link normalizePhrase}, in the order found.
 * With an LLM: HippoRAG's query NER (one JSON call at interactive priority, temperature 0 so that the cached
 * reply is the one a rerun gets); a reply still invalid after the repair turn falls back to the LLM-free path
 * rather than failing the query. Without an LLM: the noun-phrase extractor's proper-noun spans and multi-word
 * noun phrases of the question (GraphRAG fast mode's extractor), the nearest LLM-free stand-in for NER.
 */
export async function extractQueryEntities(context: MethodContext, question: string): Promise<string[]> {
  const found = await context.trace.time('query-entities', () => findQueryEntities(context, question), (result) => ({ ...result }));
  return found.entities;
}

/**
 * {@link extractQueryEntities} started now, for a method that awaits it only after loading its graph (an LLM call or
 * the noun-phrase model then runs meanwhile). A failure surfaces where the result is awaited, not as an unhandled
 * rejection should the graph load fail first.
 */
export function startQueryEntities(context: MethodContext, question: string): Promise<string[]> {
  const entities = extractQueryEntities(context, question);
  entities.catch(() => undefined);
  return entities;
}

async function findQueryEntities(context: MethodContext, question: string): Promise<{ source: 'llm' | 'noun-phrases'; entities: string[] }> {
  const { llm } = context;
  if (llm === undefined) return { source: 'noun-phrases', entities: await nounPhraseEntities(question) };
  try {
    const { object } = await generateObject({
      model: llm,
      messages: [{ role: 'user', content: fillPrompt(context.prompts.text(queryEntitiesPrompt), { question }) }],
      schema: namedEntitiesReply,
      schemaName: 'query_entities',
      temperature: 0,
      purpose: 'query-entities',
      priority: 'interactive',
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
    });
    return { source: 'llm', entities: distinctEntities(object.named_entities) };
  } catch (error) {
    if (error instanceof LlmCallError && error.code === 'LLM_INVALID_OUTPUT') return { source: 'noun-phrases', entities: await nounPhraseEntities(question) };
    throw error;
  }
}

async function nounPhraseEntities(question: string): Promise<string[]> {
  return distinctEntities(await questionNounPhrases(question));
}

/** Trimmed, non-empty after normalization, first occurrence of each normalized form. */
function distinctEntities(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const entities: string[] = [];
  for (const name of names) {
    const surface = name.trim();
    const key = normalizePhrase(surface);
    if (key.length === 0 || seen.has(key)) continue;
    seen.add(key);
    entities.push(surface);
  }
  return entities;
}
