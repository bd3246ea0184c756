import { z } from 'zod';
import { builtInPrompts, fillPrompt, type PromptLibrary } from '../../core/prompt-library.js';
import { generateObject } from '../../providers/llm/generate-object.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import type { Triple, TripleExtraction } from './extracted-triples.js';
import { openiePrompts } from './openie-prompts.js';

/** Options of {@link extractOpenie}. */
export interface ExtractOpenieOptions {
  /** The chunk's text. */
  text: string;
  /** Where prompts come from, so a workspace can override them. @default the built-in prompts */
  prompts?: PromptLibrary;
  /** Content hashes of the texts the prompts hold (`ChatRequest.sources`): both calls' cached replies are tagged with them. */
  sources?: readonly string[];
  abortSignal?: AbortSignal;
}

/** One chunk's LLM OpenIE. */
export interface OpenieExtraction extends TripleExtraction {
  /** The two accepted replies (NER, then triples), as the model wrote them. */
  replies: [string, string];
  /** Model calls made: 2, more after repair turns. */
  calls: number;
  /** Entries of the replies that could not be used and were dropped. */
  dropped: { entities: number; triples: number };
}

/** Anything that is not a string becomes "", which is dropped and counted like an empty part. */
const asStrings = (value: unknown): unknown => (Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item : '')) : value);

// The server gets the exact shape (strings, triples of strings) as JSON Schema; the reply is read leniently,
// so that a malformed entry costs that entry and never a repair call.
const nerSchema = z.object({ named_entities: z.preprocess(asStrings, z.array(z.string())).describe('the named entities of the paragraph') });
const triplesSchema = z.object({
  triples: z
    .preprocess((value) => (Array.isArray(value) ? value.map((item) => (Array.isArray(item) ? asStrings(item) : [])) : value), z.array(z.array(z.string())))
    .describe('the facts of the paragraph, each [subject, predicate, object]'),
});

function usableString(value: string | undefined): value is string {
  return value !== undefined && value.trim().length > 0;
}

/**
 * HippoRAG's LLM OpenIE of one chunk (OSU-NLP-Group/HippoRAG): a NER call (`purpose: 'openie-ner'`), then a
 * triple-extraction call conditioned on the entities it found (`purpose: 'openie-triples'`), both
 * `priority: 'batch'` with structured JSON output. Tolerant as HippoRAG's post-processing is: entities that
 * are not non-empty strings, and triples that are not exactly three non-empty strings, are dropped and
 * counted. A reply that is not the expected JSON object even after its repair turn throws `LlmCallError`
 * `LLM_INVALID_OUTPUT`.
 */
export async function extractOpenie(model: LanguageModel, options: ExtractOpenieOptions): Promise<OpenieExtraction> {
  const library = options.prompts ?? builtInPrompts;
  const request = {
    priority: 'batch' as const,
    ...(options.sources === undefined ? {} : { sources: options.sources }),
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
  };

  const ner = await generateObject({
    ...request,
    model,
    purpose: 'openie-ner',
    schema: nerSchema,
    schemaName: 'named_entities',
    messages: [{ role: 'user', content: fillPrompt(library.text(openiePrompts.ner), { passage: options.text }) }],
  });
  const dropped = { entities: 0, triples: 0 };
  const entities: string[] = [];
  for (const entity of ner.object.named_entities) {
    if (!usableString(entity)) {
      dropped.entities++;
      continue;
    }
    const name = entity.trim();
    if (!entities.includes(name)) entities.push(name);
  }

  const extraction = await generateObject({
    ...request,
    model,
    purpose: 'openie-triples',
    schema: triplesSchema,
    schemaName: 'triples',
    messages: [
      {
        role: 'user',
        content: fillPrompt(library.text(openiePrompts.triples), { passage: options.text, named_entity_json: JSON.stringify({ named_entities: entities }) }),
      },
    ],
  });
  const triples: Triple[] = [];
  for (const triple of extraction.object.triples) {
    const [subject, predicate, object] = triple.length === 3 ? triple : [];
    if (usableString(subject) && usableString(predicate) && usableString(object)) {
      triples.push([subject.trim(), predicate.trim(), object.trim()]);
    } else {
      dropped.triples++;
    }
  }
  return { entities, triples, replies: [ner.result.text, extraction.result.text], calls: ner.attempts + extraction.attempts, dropped };
}
