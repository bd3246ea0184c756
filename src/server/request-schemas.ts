import { z } from 'zod';
import { graphBrowserLimits, type OptionRange } from '../api/graph-browser.js';
import { documentInput, queryInput, searchEntitiesInput } from '../mcp/tool-schemas.js';
import { boundMetadataDepth, maxMetadataDepth } from '../text/load/bound-metadata-depth.js';

/*
 * The zod schemas of the HTTP API: they validate requests, and /openapi.json is generated from them. Where MCP takes
 * the same input (a query, a document, an entity search), the schema is MCP's, extended.
 */

const methodName = z.string().min(1).max(64).regex(/^[a-z][a-z0-9_-]*$/, { error: 'expected a method name such as "ppr" or "basic"' });

/** MCP's `query` tool input, and whether to stream: the two surfaces accept the same questions. */
export const queryRequestSchema = queryInput
  .extend({
    stream: z.boolean().optional().describe('Answer as server-sent events: `text` deltas, `progress`, then one `result` (or `error`)'),
    includeContextText: z
      .boolean()
      .optional()
      .describe('Also return context.text, the packed context as the LLM reads it (default: only with contextOnly; context.chunks and the other records are always returned)'),
  })
  .strict();
export type QueryRequestBody = z.output<typeof queryRequestSchema>;

/** MCP's document, with metadata. */
export const inputDocumentSchema = documentInput
  .extend({
    // Refused here: the job queue writes requests as JSON, which overflows the stack on metadata nested thousands deep.
    metadata: z
      .record(z.string(), z.unknown())
      .refine((metadata) => boundMetadataDepth(metadata).cut === 0, { error: `nests deeper than ${maxMetadataDepth} levels; flatten it` })
      .optional(),
  })
  .strict();

export const addDocumentsSchema = z
  .object({
    documents: z.array(inputDocumentSchema).min(1).max(10_000),
    mode: z.enum(['fast', 'standard']).optional(),
  })
  .strict();

export const startJobSchema = z
  .object({
    mode: z.enum(['fast', 'standard']).optional().describe('Index mode (default: the configured mode, else the mode the index was built in)'),
    methods: z.array(methodName).min(1).optional().describe('Methods to build the index for'),
  })
  .strict();

const entityName = z.string().trim().min(1).max(500);

/** `POST /entities/edits`: merge entities into one, split a name off an entity, or undo an edit. */
export const entityEditSchema = z.union([
  z.object({ merge: z.array(entityName).min(1).max(100).describe('Entities (ids, names or aliases) merged into `into`'), into: entityName.describe('The entity they become (id, name or alias)') }).strict(),
  z.object({ split: entityName.describe('The name that becomes an entity of its own'), from: entityName.describe('The entity it is a name of (id, name or alias)') }).strict(),
  z.object({ undo: z.string().regex(/^edit-\d+$/, { error: 'expected an edit id such as "edit-1" (GET /entities/edits lists them)' }) }).strict(),
]);

export const createWorkspaceSchema = z.object({ name: z.string().min(1).max(200) }).strict();

export const idParams = z.object({ id: z.string().min(1).max(500) });

export const deleteDocumentQuery = z.object({
  dryRun: z.enum(['true', 'false']).optional().describe('true: say what the delete would remove and cost, changing nothing'),
  keepCache: z.enum(['true', 'false']).optional().describe("true: keep the cached LLM replies of the document's calls"),
});

/** A whole number in a query string, within the graph browser's range of that option. */
const integerText = (range: OptionRange, description: string) =>
  z
    .string()
    .regex(/^\d+$/, { error: 'expected a whole number' })
    .transform(Number)
    .pipe(z.number().int().min(range.min).max(range.max))
    .optional()
    .describe(`${description} (${range.min}–${range.max}, default ${range.default})`);

export const entitySearchQuery = z.object({
  q: searchEntitiesInput.shape.query,
  limit: integerText(graphBrowserLimits.searchLimit, 'Most entities to return'),
  type: searchEntitiesInput.shape.type,
});

export const aliasMergesQuery = z.object({ limit: integerText(graphBrowserLimits.mergeLimit, 'Most merges to return') });

export const entityQuery = z.object({ maxSources: integerText(graphBrowserLimits.maxSources, 'Most source passages to include') });

export const neighboursQuery = z.object({
  depth: integerText(graphBrowserLimits.depth, 'Hops to walk'),
  limit: integerText(graphBrowserLimits.neighbourLimit, 'Most entities to return, the start included'),
  maxEdges: integerText(graphBrowserLimits.neighbourMaxEdges, 'Most relations to return'),
});

export const communitiesQuery = z.object({
  level: integerText({ default: 0, min: 0, max: 100 }, 'Hierarchy level (0 is the coarsest); default every level'),
  limit: integerText(graphBrowserLimits.communityLimit, 'Most communities to return'),
  offset: integerText({ default: 0, min: 0, max: 1_000_000 }, 'Communities to skip'),
});

export const graphSliceQuery = z.object({
  top: integerText(graphBrowserLimits.sliceTop, 'Entities, by degree'),
  maxEdges: integerText(graphBrowserLimits.sliceMaxEdges, 'Most edges, heaviest first'),
  type: z.string().min(1).max(100).optional().describe('Only entities of this type'),
  layout: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: give every node x and y from a ForceAtlas2 drawing of the slice, computed once per index version')
    .transform((value) => (value === undefined ? undefined : value === 'true')),
});

const chatContentPart = z.object({ type: z.string(), text: z.string().optional() }).loose();

export const chatMessageSchema = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(chatContentPart), z.null()]).optional(),
  })
  .loose();

/** The part of OpenAI's chat completion request kgrag reads; other fields OpenAI clients send are accepted and ignored. */
export const chatCompletionRequestSchema = z
  .object({
    model: z.string().min(1).max(200).describe('kgrag-<method> or kgrag-<method>:<variant> (GET /v1/models lists them)'),
    messages: z.array(chatMessageSchema).min(1).max(200),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullable().optional(),
    temperature: z.number().nullable().optional(),
    max_tokens: z.number().int().nullable().optional(),
    max_completion_tokens: z.number().int().nullable().optional(),
  })
  .loose();
export type ChatCompletionRequest = z.output<typeof chatCompletionRequestSchema>;

export const looseObject = z.object({}).loose();

/** An Ollama model name: `kgrag-<method>[:<variant>|:latest]`. */
const ollamaModel = z.string().min(1).max(200).describe('kgrag-<method>:latest or kgrag-<method>:<variant> (GET /api/tags lists them)');

/** The part of Ollama's `/api/chat` request kgrag reads; options, format, tools and keep_alive are accepted and ignored. */
export const ollamaChatRequestSchema = z
  .object({
    model: ollamaModel,
    messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string().max(1_000_000) }).loose()).min(1).max(200),
    stream: z.boolean().optional().describe('Ollama streams NDJSON unless this is false'),
  })
  .loose();

/** The part of Ollama's `/api/generate` request kgrag reads: the prompt is the question. */
export const ollamaGenerateRequestSchema = z
  .object({ model: ollamaModel, prompt: z.string().max(1_000_000), stream: z.boolean().optional().describe('Ollama streams NDJSON unless this is false') })
  .loose();

/** Ollama's `/api/show` request. */
export const ollamaShowRequestSchema = z.object({ model: ollamaModel.optional(), name: ollamaModel.optional() }).loose();
