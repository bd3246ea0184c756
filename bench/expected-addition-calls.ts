import type { KgragConfig } from '../src/core/config/config-schema.js';
import { runTask } from '../src/core/cooperative-task.js';
import { contentId } from '../src/core/ids.js';
import { collectExtractedDescriptions } from '../src/extract/collect-extracted-descriptions.js';
import { applyMerges } from '../src/extract/entity-resolution/apply-merges.js';
import { confirmMerges } from '../src/extract/entity-resolution/confirm-merges.js';
import { findResolutionCandidates } from '../src/extract/entity-resolution/find-resolution-candidates.js';
import { extractGraphFromText } from '../src/extract/llm-graph/extract-graph-from-text.js';
import { restoreNameCasing } from '../src/extract/llm-graph/restore-name-casing.js';
import { mergeExtractedGraphs, type ChunkExtraction, type MergedGraph } from '../src/extract/merge-extracted-graphs.js';
import { summarizeDescriptions } from '../src/extract/summaries/summarize-descriptions.js';
import { chunkDocumentTask } from '../src/pipeline/steps/chunk-step.js';
import type { InputDocument } from '../src/pipeline/pipeline-step.js';
import { createEmbedder } from '../src/providers/embed/create-embedder.js';
import { isCorpusFitted } from '../src/providers/embed/embedder.js';
import type { LanguageModel } from '../src/providers/llm/language-model.js';
import { createScriptedLanguageModel, type MockOpenAiServer, startMockOpenAiServer } from '../src/testing/index.js';
import { normalizeText } from '../src/text/normalize-text.js';
import { shortenText } from '../src/text/shorten-text.js';
import { createTokenizer, type Tokenizer } from '../src/text/tokenizer.js';
import { sampleLlmReply, type ResponderRequest } from '../test/helpers/sample-llm-responder.js';

/*
 * The fewest LLM calls an addition of documents to a standard-mode index can cost, worked out from the inputs alone:
 * the documents before and after, the configuration, and the replies the mock model gives (`reply`, the function the
 * mock server answers with). Nothing here reads the index the pipeline built or what it sent to the server. The
 * graph of each state is rebuilt offline with kgrag's documented building blocks — the configured chunker, GraphRAG's
 * extraction conversation with the mock's replies, the exact-name merge, `findResolutionCandidates` on "title:
 * description" vectors of an embedder fitted on the state's chunks as embed-chunks fits it, the mock's answers to the
 * resolution prompts, `collectExtractedDescriptions` — and the two states are compared:
 *
 * - **extraction**: every chunk of the added documents makes one extraction conversation of `1 + min(g, 1)` turns for
 *   `extract.llm.maxGleanings` g, plus one loop question when g ≥ 2 (the mock answers it "N", which ends the
 *   conversation); no other chunk is extracted again;
 * - **resolution**: one call per candidate group after the addition whose prompt — its members' titles, types, first
 *   five aliases and descriptions as the prompt shows them — is not the prompt of a group before it;
 *   `groupsWithNewEntity` counts the groups that hold an entity no document named before, the narrower rule;
 * - **summaries**: for every entity and relation after the addition with two or more distinct descriptions whose name
 *   or set of descriptions is not one before it, the calls `summarizeDescriptions` makes for it (one, unless the list
 *   outgrows `summaries.maxInputTokens`).
 */

/** The expected calls of an addition, by the step that makes them. */
export interface ExpectedAdditionCalls {
  extraction: number;
  /** Chunks of the added documents. */
  newChunks: number;
  /** Calls of one chunk's extraction conversation, by the rule above. */
  turnsPerChunk: number;
  /** Calls the offline conversations actually made for the new chunks (a check of `turnsPerChunk`). */
  offlineExtractionCalls: number;
  resolution: number;
  groupsWithNewEntity: number;
  summaries: number;
}

/** What the offline pipeline needs. */
export interface ExpectedAdditionInput {
  before: readonly InputDocument[];
  added: readonly InputDocument[];
  config: KgragConfig;
  /** The mock's reply to a chat request. */
  reply: (request: ResponderRequest) => string;
}

/** One state of the index, rebuilt offline: its chunk texts (as embedded) and their extractions in chunk order. */
interface OfflineState {
  embeddedTexts: string[];
  extractions: ChunkExtraction[];
}

/** The term a chat request of the standard pipeline counts under, told by its prompt (everything else is extraction). */
export function expectedCallTerm(prompt: string): 'extraction' | 'resolution' | 'summaries' | 'reports' {
  if (prompt.includes('{"clusters"')) return 'resolution';
  if (prompt.includes('Description list:')) return 'summaries';
  if (prompt.includes('-----Entities-----') || prompt.includes('-----Reports-----')) return 'reports';
  return 'extraction';
}

/** Calls of one chunk's extraction conversation with a model that answers the loop question "N". */
/**
 * The mock OpenAI server answering with the sample corpus's scripted replies, and the calls it saw by
 * {@link expectedCallTerm}: only to say which term a difference is in.
 */
export async function startTermCountingMockServer(): Promise<{ server: MockOpenAiServer; made: Map<string, number> }> {
  const made = new Map<string, number>();
  const server = await startMockOpenAiServer({
    reply: (request) => {
      const purpose = expectedCallTerm(request.messages.map((message) => message.content).join('\n'));
      made.set(purpose, (made.get(purpose) ?? 0) + 1);
      return sampleLlmReply(request);
    },
  });
  return { server, made };
}

export function extractionTurnsPerChunk(maxGleanings: number): number {
  return 1 + Math.min(maxGleanings, 1) + (maxGleanings >= 2 ? 1 : 0);
}

async function chunksOf(document: InputDocument, tokenizer: Tokenizer, config: KgragConfig): Promise<Array<{ text: string; embedded: string }>> {
  const text = normalizeText(document.text);
  const id = contentId('document', document.title, text);
  const chunks = await runTask(chunkDocumentTask(id, text, tokenizer, config.chunking));
  // As embed-chunks embeds a chunk: under its document's title unless the chunk starts with it.
  return chunks.map((chunk) => ({ text: chunk.text, embedded: document.title && !chunk.text.startsWith(document.title) ? `${document.title}\n${chunk.text}` : chunk.text }));
}

/** The graph of a state as extracted and as resolved, its candidate groups, and what each group's prompt shows. */
async function resolvedState(state: OfflineState, config: KgragConfig, model: LanguageModel): Promise<{ graph: MergedGraph; extracted: MergedGraph; groups: string[][]; groupPrompts: Set<string> }> {
  const merged = mergeExtractedGraphs(state.extractions);
  const embedder = createEmbedder(config);
  if (isCorpusFitted(embedder)) embedder.fit(state.embeddedTexts);
  const texts = merged.entities.map((entity) => (entity.description ? `${entity.title}: ${entity.description}` : entity.title));
  const embedded = await embedder.embed(texts);
  const vectors = new Map(merged.entities.map((entity, index) => [entity.id, embedded[index] as Float32Array]));
  const groups = findResolutionCandidates(merged.entities, vectors, {
    nameSimilarity: config.resolution.nameSimilarity,
    embeddingSimilarity: config.resolution.embeddingSimilarity,
    maxGroupSize: config.resolution.maxGroupSize,
  });
  const byId = new Map(merged.entities.map((entity) => [entity.id, entity]));
  const groupPrompts = new Set(
    groups.map((group) =>
      JSON.stringify(
        group.map((id) => {
          const entity = byId.get(id);
          return entity === undefined ? id : [entity.title, entity.type, entity.aliases.slice(0, 5), shortenText(entity.description, 300)];
        }),
      ),
    ),
  );
  const { merges } = await confirmMerges(model, groups, byId);
  const applied = applyMerges(merged.entities, merged.relations, merges);
  return { graph: { ...applied, droppedRelations: merged.droppedRelations }, extracted: merged, groups, groupPrompts };
}

/** Every entity and relation with its name and distinct descriptions, as a summary prompt would be keyed. */
function summaryItems(state: OfflineState, graph: MergedGraph): Map<string, { name: string | [string, string]; descriptions: string[] }> {
  const descriptions = collectExtractedDescriptions(state.extractions, graph.entities, graph.relations);
  const titles = new Map(graph.entities.map((entity) => [entity.id, entity.title]));
  const items = new Map<string, { name: string | [string, string]; descriptions: string[] }>();
  const add = (name: string | [string, string], list: readonly string[]): void => {
    const distinct = [...new Set(list.map((description) => description.trim()).filter(Boolean))].sort();
    items.set(JSON.stringify([name, distinct]), { name, descriptions: distinct });
  };
  for (const entity of graph.entities) add(entity.title, descriptions.entities.get(entity.id) ?? [entity.description]);
  for (const relation of graph.relations) {
    add([titles.get(relation.source) ?? relation.source, titles.get(relation.target) ?? relation.target], descriptions.relations.get(relation.id) ?? [relation.description]);
  }
  return items;
}

/** The fewest calls adding `input.added` to an index of `input.before` costs (see the file's comment). */
export async function expectedAdditionCalls(input: ExpectedAdditionInput): Promise<ExpectedAdditionCalls> {
  const { config } = input;
  const tokenizer = await createTokenizer(config.tokenizer.encoding);
  let offlineCalls = 0;
  const model = createScriptedLanguageModel({
    responses: [
      {
        reply: (request) => {
          offlineCalls++;
          return input.reply(request as ResponderRequest);
        },
      },
    ],
  });
  const settings = config.extract.llm;
  const extract = async (documents: readonly InputDocument[]): Promise<OfflineState> => {
    const state: OfflineState = { embeddedTexts: [], extractions: [] };
    for (const document of documents) {
      for (const [index, chunk] of (await chunksOf(document, tokenizer, config)).entries()) {
        const extraction = await extractGraphFromText(model, { text: chunk.text, entityTypes: settings.entityTypes, maxGleanings: settings.maxGleanings, format: settings.format });
        state.embeddedTexts.push(chunk.embedded);
        state.extractions.push({ chunkId: `${document.title}#${index}`, graph: restoreNameCasing(extraction.graph, chunk.text) });
      }
    }
    return state;
  };

  const beforeState = await extract(input.before);
  offlineCalls = 0;
  const addedState = await extract(input.added);
  const offlineExtractionCalls = offlineCalls;
  const afterState: OfflineState = {
    embeddedTexts: [...beforeState.embeddedTexts, ...addedState.embeddedTexts],
    extractions: [...beforeState.extractions, ...addedState.extractions],
  };
  const newChunks = addedState.extractions.length;
  const turnsPerChunk = extractionTurnsPerChunk(settings.maxGleanings);

  const before = await resolvedState(beforeState, config, model);
  const after = await resolvedState(afterState, config, model);
  const resolution = [...after.groupPrompts].filter((prompt) => !before.groupPrompts.has(prompt)).length;
  const knownIds = new Set(before.extracted.entities.map((entity) => entity.id));
  const groupsWithNewEntity = after.groups.filter((group) => group.some((id) => !knownIds.has(id))).length;

  const itemsBefore = summaryItems(beforeState, before.graph);
  let summaries = 0;
  for (const [key, item] of summaryItems(afterState, after.graph)) {
    if (item.descriptions.length < 2 || itemsBefore.has(key)) continue;
    const summary = await summarizeDescriptions(model, {
      name: item.name,
      descriptions: item.descriptions,
      maxInputTokens: config.summaries.maxInputTokens,
      maxWords: config.summaries.maxWords,
      tokenizer,
    });
    summaries += summary.calls;
  }
  return { extraction: newChunks * turnsPerChunk, newChunks, turnsPerChunk, offlineExtractionCalls, resolution, groupsWithNewEntity, summaries };
}
