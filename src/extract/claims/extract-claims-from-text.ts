import { appendAll } from '../../core/append-all.js';
import type { LlmExtractConfig } from '../../core/config/config-schema.js';
import { builtInPrompts, fillPrompt, type PromptLibrary } from '../../core/prompt-library.js';
import { generateObject } from '../../providers/llm/generate-object.js';
import type { ChatMessage, LanguageModel } from '../../providers/llm/language-model.js';
import { extractionNameKey } from '../llm-graph/extraction-name-key.js';
import type { ExtractedClaim } from '../llm-graph/extracted-graph.js';
import { runGleaningConversation, type ConversationRequest, type GleaningTurn } from '../llm-graph/run-gleaning-conversation.js';
import { extractClaimsPrompts } from './extract-claims-prompt.js';
import { extractedClaimsSchema } from './extracted-claims-schema.js';
import { parseClaimTuples } from './parse-claim-tuples.js';
import { readClaimFields } from './read-claim-fields.js';

/** Options of {@link extractClaimsFromText}. */
export interface ExtractClaimsOptions {
  /** The chunk's text. */
  text: string;
  /** Entity types or entity names the claims must be about (GraphRAG `entity_specs`). */
  entitySpecs: readonly string[];
  /** What counts as a claim (`extract.claims.description`). */
  claimDescription: string;
  /** CONTINUE turns after the first reply (`extract.claims.maxGleanings`). */
  maxGleanings: number;
  /** Reply format; the graph extraction's `extract.llm.format` is the natural choice. */
  format: LlmExtractConfig['format'];
  /** Where prompts come from, so a workspace can override them. @default the built-in prompts */
  prompts?: PromptLibrary;
  /** Content hashes of the texts the prompts hold (`ChatRequest.sources`): every turn's cached reply is tagged with them. */
  sources?: readonly string[];
  abortSignal?: AbortSignal;
}

/** One chunk's claims. */
export interface ClaimExtraction {
  /** Claims of every turn, exact repeats removed, in the order first given. */
  claims: ExtractedClaim[];
  /** Every raw reply, in order: extraction turns, loop answers, and replies a JSON repair turn replaced. */
  turns: string[];
  /** Model calls made, repair turns included. */
  calls: number;
  /** Records that could not be used, statuses read as SUSPECTED, repaired replies (prefixed with the turn). */
  problems: string[];
}

/**
 * Extracts claims (GraphRAG covariates) from one chunk with an LLM, as GraphRAG's `ClaimExtractor`
 * (microsoft/graphrag `index/operations/extract_graph/graph_extractor.py`, `prompts/index/extract_claims.py`): the same gleaning conversation as the graph extraction, with
 * `purpose: 'extract-claims'` and `priority: 'batch'`. Deliberately unlike GraphRAG, whose claim
 * extractor parses only the first reply and throws the paid-for gleanings away, the claims of every turn
 * are used; a claim repeated by a later turn (same subject, object, type, status and description) is
 * kept once. `json` uses structured output with `extractedClaimsSchema`, carrying each accepted reply in
 * the conversation as compact JSON; `tuples` parses with {@link parseClaimTuples}. A first reply that
 * stays invalid after its repair throws `LlmCallError` `LLM_INVALID_OUTPUT`.
 */
export async function extractClaimsFromText(model: LanguageModel, options: ExtractClaimsOptions): Promise<ClaimExtraction> {
  const library = options.prompts ?? builtInPrompts;
  const templates = extractClaimsPrompts[options.format];
  const entitySpecs = options.entitySpecs.join(', ');
  const request: ConversationRequest = {
    purpose: 'extract-claims',
    priority: 'batch',
    ...(options.sources === undefined ? {} : { sources: options.sources }),
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
  };
  const runTurn =
    options.format === 'json'
      ? (turnModel: LanguageModel, messages: readonly ChatMessage[]) => jsonTurn(turnModel, messages, request)
      : (turnModel: LanguageModel, messages: readonly ChatMessage[]) => tuplesTurn(turnModel, messages, request);

  const conversation = await runGleaningConversation({
    model,
    prompt: fillPrompt(library.text(templates.extract), {
      entity_specs: entitySpecs,
      claim_description: options.claimDescription,
      input_text: options.text,
    }),
    continuePrompt: fillPrompt(library.text(templates.continue), { entity_specs: entitySpecs }),
    loopPrompt: fillPrompt(library.text(extractClaimsPrompts.loop), {}),
    maxGleanings: options.maxGleanings,
    request,
    runTurn,
  });
  return {
    claims: uniqueClaims(conversation.values.flat()),
    turns: conversation.turns,
    calls: conversation.calls,
    problems: conversation.problems,
  };
}

async function jsonTurn(model: LanguageModel, messages: readonly ChatMessage[], request: ConversationRequest): Promise<GleaningTurn<ExtractedClaim[]>> {
  const outcome = await generateObject({ ...request, model, messages, schema: extractedClaimsSchema, schemaName: 'extracted_claims' });
  const problems: string[] = outcome.repaired ? ['the first reply was not valid; the repair turn fixed it'] : [];
  const claims: ExtractedClaim[] = [];
  for (const raw of outcome.object.claims) {
    const read = readClaimFields({
      subject: raw.subject,
      object: raw.object,
      type: raw.type,
      status: raw.status,
      startDate: raw.start_date,
      endDate: raw.end_date,
      description: raw.description,
      sourceText: raw.source_text,
    });
    if ('problem' in read) {
      problems.push(`${read.problem}: ${JSON.stringify(raw)}`);
      continue;
    }
    claims.push(read.claim);
    appendAll(problems, read.notes);
  }
  return { value: claims, carried: JSON.stringify(outcome.object), problems };
}

async function tuplesTurn(model: LanguageModel, messages: readonly ChatMessage[], request: ConversationRequest): Promise<GleaningTurn<ExtractedClaim[]>> {
  const result = await model.generate({ ...request, messages });
  const parsed = parseClaimTuples(result.text);
  return { value: parsed.claims, carried: result.text.replace(/<think>[\s\S]*?<\/think>\s*/gi, ''), problems: parsed.problems };
}

function uniqueClaims(claims: readonly ExtractedClaim[]): ExtractedClaim[] {
  const seen = new Set<string>();
  const unique: ExtractedClaim[] = [];
  for (const claim of claims) {
    const key = [
      extractionNameKey(claim.subject),
      extractionNameKey(claim.object ?? ''),
      claim.type.toLowerCase(),
      claim.status,
      claim.description.toLowerCase().replace(/\s+/g, ' ').trim(),
    ].join('\u0000');
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(claim);
  }
  return unique;
}
