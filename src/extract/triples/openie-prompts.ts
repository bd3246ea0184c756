import type { PromptTemplate } from '../../core/prompt-library.js';

/*
 * HippoRAG's OpenIE as two one-shot JSON prompts per passage (OSU-NLP-Group/HippoRAG; HippoRAG
 * `prompts/templates/ner.py` and `triple_extraction.py`): first the named entities, then the triples,
 * conditioned on those entities so that facts hang on names. HippoRAG sends the example as an earlier
 * user/assistant turn; here it sits inside the one user message, so a workspace edits one file per prompt.
 */

const exampleParagraph = `Lake Orvane Observatory
Lake Orvane Observatory is an astronomical observatory in Chile that opened on 12 March 1998.
It is run by the University of Valmere and houses the Kessler Telescope, a 4-metre reflector designed by Ingrid Halvorsen.
Since 2015 the observatory has also hosted Skyline, a public outreach programme.`;

const exampleEntities = `{"named_entities": ["Lake Orvane Observatory", "Chile", "12 March 1998", "University of Valmere", "Kessler Telescope", "Ingrid Halvorsen", "2015", "Skyline"]}`;

const exampleTriples = `{"triples": [
  ["Lake Orvane Observatory", "is", "astronomical observatory"],
  ["Lake Orvane Observatory", "located in", "Chile"],
  ["Lake Orvane Observatory", "opened on", "12 March 1998"],
  ["Lake Orvane Observatory", "run by", "University of Valmere"],
  ["Lake Orvane Observatory", "houses", "Kessler Telescope"],
  ["Kessler Telescope", "is", "4-metre reflector"],
  ["Kessler Telescope", "designed by", "Ingrid Halvorsen"],
  ["Lake Orvane Observatory", "hosts", "Skyline"],
  ["Skyline", "is", "public outreach programme"],
  ["Skyline", "hosted since", "2015"]
]}`;

const ner: PromptTemplate = {
  name: 'openie-ner',
  description: 'HippoRAG OpenIE, step 1: the named entities of one chunk as {"named_entities": [...]}. Placeholder: {passage}',
  text: `Your task is to find the named entities in a paragraph: the people, organizations, places, works, events, dates and other specific names it mentions.
Reply with one JSON object, {"named_entities": [...]}, listing each entity once as it is written in the paragraph. No explanations, no markdown fences.

Example paragraph:
\`\`\`
${exampleParagraph}
\`\`\`

Reply:
${exampleEntities}

Paragraph:
\`\`\`
{passage}
\`\`\`

Reply:`,
};

const triples: PromptTemplate = {
  name: 'openie-triples',
  description:
    'HippoRAG OpenIE, step 2: the facts of one chunk as {"triples": [[subject, predicate, object], ...]}, given its named entities. Placeholders: {passage}, {named_entity_json}',
  text: `Your task is to turn a paragraph into an RDF (Resource Description Framework) graph. You are given the paragraph and the list of its named entities.
Write each fact the paragraph states as one triple [subject, predicate, object]:
- every triple contains at least one of the named entities, and preferably two;
- replace pronouns ("he", "it", "the company") with the names they stand for, so that each triple makes sense on its own;
- keep subjects and objects short: a name or a short noun phrase, not a clause.
Reply with one JSON object, {"triples": [[subject, predicate, object], ...]}. No explanations, no markdown fences.

Example paragraph:
\`\`\`
${exampleParagraph}
\`\`\`

${exampleEntities}

Reply:
${exampleTriples}

Paragraph:
\`\`\`
{passage}
\`\`\`

{named_entity_json}

Reply:`,
};

/** The two prompts of LLM OpenIE, in call order. */
export const openiePrompts = { ner, triples } as const;
