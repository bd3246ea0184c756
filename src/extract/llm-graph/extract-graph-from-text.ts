import type { z } from 'zod';
import type { LlmExtractConfig } from '../../core/config/config-schema.js';
import { builtInPrompts, fillPrompt, type PromptLibrary } from '../../core/prompt-library.js';
import { generateObject } from '../../providers/llm/generate-object.js';
import type { ChatMessage, LanguageModel } from '../../providers/llm/language-model.js';
import { parseJsonLoose } from '../../providers/llm/parse-json-loose.js';
import { cleanDescription, cleanEntityName, cleanEntityType } from './clean-extracted-text.js';
import { extractGraphPrompts } from './extract-graph-prompt.js';
import { extractedGraphSchema, type ExtractedGraph } from './extracted-graph.js';
import { parseGraphTuples } from './parse-graph-tuples.js';
import { runGleaningConversation, type ConversationRequest, type GleaningTurn } from './run-gleaning-conversation.js';
import { unionExtractedGraphs } from './union-extracted-graphs.js';

/** Options of {@link extractGraphFromText}. */
export interface ExtractGraphOptions {
  /** The chunk's text. */
  text: string;
  /** Entity types to extract (`extract.llm.entityTypes`). */
  entityTypes: readonly string[];
  /** CONTINUE turns after the first reply (`extract.llm.maxGleanings`; GraphRAG's default is 1). */
  maxGleanings: number;
  /** Reply format (`extract.llm.format`). */
  format: LlmExtractConfig['format'];
  /** Where prompts come from, so a workspace can override them. @default the built-in prompts */
  prompts?: PromptLibrary;
  /** Content hashes of the texts the prompts hold (`ChatRequest.sources`): every turn's cached reply is tagged with them. */
  sources?: readonly string[];
  abortSignal?: AbortSignal;
}

/** One chunk's extraction. */
export interface GraphExtraction {
  /** The union of all turns (see `unionExtractedGraphs`). */
  graph: ExtractedGraph;
  /** Every raw reply, in order: extraction turns, loop answers, and replies a JSON repair turn replaced. */
  turns: string[];
  /** Model calls made, repair turns included. */
  calls: number;
  /** Records that could not be used, repaired replies, relationships naming unextracted entities, … (prefixed with the turn). */
  problems: string[];
}

/**
 * Extracts entities and relationships from one chunk with an LLM, as GraphRAG's `GraphExtractor`
 * (microsoft/graphrag `index/operations/extract_graph/graph_extractor.py`): one conversation of the extraction prompt, `maxGleanings` CONTINUE
 * turns and the Y/N loop check between them ({@link runGleaningConversation}), all turns united.
 * Calls use `purpose: 'extract-graph'` and `priority: 'batch'`; the result is deterministic given the
 * model's replies.
 *
 * `json` sends every extraction turn as structured output (`generateObject` with
 * `extractedGraphSchema`, one repair turn each). The conversation carries each accepted reply as its
 * compact JSON re-serialization rather than the raw text, so a later turn sees a clean object of the
 * required shape — not the fences, prose or broken attempt that a repair replaced — and is nudged to
 * answer in kind. `tuples` sends plain text, carries the reply as written (minus `<think>` blocks) and
 * parses it with {@link parseGraphTuples}; a reply with no tuple records that is a valid JSON graph
 * (models tuned for JSON do this) is read as JSON, with a note. A first reply that stays invalid after its repair throws
 * `LlmCallError` `LLM_INVALID_OUTPUT`, for the caller to record against the chunk.
 */
export async function extractGraphFromText(model: LanguageModel, options: ExtractGraphOptions): Promise<GraphExtraction> {
  const library = options.prompts ?? builtInPrompts;
  const templates = extractGraphPrompts[options.format];
  const entityTypes = options.entityTypes.join(', ');
  const request: ConversationRequest = {
    purpose: 'extract-graph',
    priority: 'batch',
    ...(options.sources === undefined ? {} : { sources: options.sources }),
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
  };
  const runTurn =
    options.format === 'json'
      ? (turnModel: LanguageModel, messages: readonly ChatMessage[]) => jsonTurn(turnModel, messages, request)
      : (turnModel: LanguageModel, messages: readonly ChatMessage[], turn: number) => tuplesTurn(turnModel, messages, request, turn);

  const conversation = await runGleaningConversation({
    model,
    prompt: fillPrompt(library.text(templates.extract), { entity_types: entityTypes, input_text: options.text }),
    continuePrompt: fillPrompt(library.text(templates.continue), { entity_types: entityTypes }),
    loopPrompt: fillPrompt(library.text(extractGraphPrompts.loop), {}),
    maxGleanings: options.maxGleanings,
    request,
    runTurn,
  });
  const united = unionExtractedGraphs(conversation.values);
  return {
    graph: united.graph,
    turns: conversation.turns,
    calls: conversation.calls,
    problems: [...conversation.problems, ...united.problems],
  };
}

async function jsonTurn(model: LanguageModel, messages: readonly ChatMessage[], request: ConversationRequest): Promise<GleaningTurn<ExtractedGraph>> {
  const outcome = await generateObject({ ...request, model, messages, schema: extractedGraphSchema, schemaName: 'extracted_graph' });
  const { graph, problems } = graphFromJson(outcome.object);
  if (outcome.repaired) problems.unshift('the first reply was not valid; the repair turn fixed it');
  return { value: graph, carried: JSON.stringify(outcome.object), problems };
}

/** Maps the JSON reply to an {@link ExtractedGraph}, cleaning fields as the tuple parser does. */
function graphFromJson(object: z.output<typeof extractedGraphSchema>): { graph: ExtractedGraph; problems: string[] } {
  const problems: string[] = [];
  const entities: ExtractedGraph['entities'] = [];
  for (const entity of object.entities) {
    const name = cleanEntityName(entity.name);
    if (name === '') {
      problems.push(`entity with an empty name skipped: ${JSON.stringify(entity)}`);
      continue;
    }
    entities.push({ name, type: cleanEntityType(entity.type) || 'unknown', description: cleanDescription(entity.description) });
  }
  const relations: ExtractedGraph['relations'] = [];
  for (const relationship of object.relationships) {
    const source = cleanEntityName(relationship.source);
    const target = cleanEntityName(relationship.target);
    if (source === '' || target === '') {
      problems.push(`relationship with an empty source or target skipped: ${JSON.stringify(relationship)}`);
      continue;
    }
    relations.push({ source, target, description: cleanDescription(relationship.description), strength: relationship.strength });
  }
  return { graph: { entities, relations }, problems };
}

async function tuplesTurn(
  model: LanguageModel,
  messages: readonly ChatMessage[],
  request: ConversationRequest,
  turn: number,
): Promise<GleaningTurn<ExtractedGraph>> {
  const result = await model.generate({ ...request, messages });
  const carried = result.text.replace(/<think>[\s\S]*?<\/think>\s*/gi, '');
  const parsed = parseGraphTuples(result.text);
  const found = parsed.graph.entities.length + parsed.graph.relations.length;
  if (found === 0 && !/<\s*\|\s*>/.test(result.text)) {
    // Models tuned for JSON sometimes answer the tuple prompt in JSON: use it rather than lose the chunk.
    const json = parseJsonLoose(result.text);
    const validated = json.ok ? extractedGraphSchema.safeParse(json.value) : undefined;
    if (validated?.success) {
      const { graph, problems } = graphFromJson(validated.data);
      return { value: graph, carried, problems: ['the reply was JSON instead of tuple records; read as JSON', ...problems] };
    }
    // "Nothing more" in words is a fair answer to a gleaning turn, not a format failure.
    if (turn > 0) return { value: parsed.graph, carried, problems: [] };
  }
  return { value: parsed.graph, carried, problems: parsed.problems };
}
