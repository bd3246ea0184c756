import type { PromptTemplate } from '../../core/prompt-library.js';

/**
 * Merges the descriptions of one entity or relationship into one, after GraphRAG's
 * `summarize_descriptions` prompt (microsoft/graphrag `prompts/index/summarize_descriptions.py`) in our own words: one comprehensive
 * third-person description that names the entities, keeps every fact and resolves contradictions, within a
 * word limit. Placeholders: `{entity_name}` (a JSON string, or a JSON `[source, target]` pair for a
 * relationship), `{description_list}` (a sorted JSON array), `{max_length}` (words).
 */
export const summarizeDescriptionsPrompt: PromptTemplate = {
  name: 'summarize-descriptions',
  description: 'Merges the descriptions of an entity or relationship. Placeholders: {entity_name}, {description_list}, {max_length}',
  text: `You are writing the reference description of an entity, or of the relationship between two entities, from descriptions gathered from different passages of the same documents.

Merge all the descriptions below into one comprehensive description:
- keep the information of every description; drop only repetitions;
- when descriptions contradict each other, resolve the contradiction and give the most likely account;
- write in the third person and include the entity names, so that the description can be read on its own;
- use at most {max_length} words.

Reply with the description only: no heading, no list, no preamble.

-----Data-----
Entities: {entity_name}
Description list: {description_list}

Description:`,
};
