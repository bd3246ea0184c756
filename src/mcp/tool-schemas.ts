import { z } from 'zod';
import { graphBrowserLimits, maxSearchQueryLength, type OptionRange } from '../api/graph-browser.js';

/*
 * The inputs of the MCP tools, validated once at the edge. The HTTP API validates the same requests with these
 * schemas, so the two surfaces accept the same values and name the same bounds. Bounds of the graph browser come
 * from `graphBrowserLimits`, so a value the schema accepts is never refused by the browser.
 */

/** Longest question, in characters. */
export const maxQuestionLength = 4000;
/** Most documents one `add_documents` call may add. */
export const maxDocumentsPerCall = 100;
/** Longest document text, and longest total of one call, in characters. */
export const maxDocumentLength = 1_000_000;
export const maxDocumentsLength = 4_000_000;
/** Longest title or source, in characters. */
export const maxTitleLength = 500;
/** Largest `topK` a query may ask for. */
export const maxTopK = 1000;

function bounded(range: OptionRange, description: string): z.ZodOptional<z.ZodNumber> {
  return z
    .number()
    .int()
    .min(range.min)
    .max(range.max)
    .optional()
    .describe(`${description} (${range.min}–${range.max}, default ${range.default})`);
}

const entityId = z.string().min(1).max(200);

/** `query`: a question answered from the index by one method. */
export const queryInput = z.object({
  question: z.string().trim().min(1).max(maxQuestionLength).describe('The question, in natural language'),
  method: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Retrieval method, optionally with its variant as "name:variant" (e.g. "basic:bm25"); default: the workspace\'s configured method'),
  variant: z.string().min(1).max(100).optional().describe('Variant of the method, as an alternative to "name:variant" in method'),
  params: z.record(z.string(), z.unknown()).optional().describe("Method parameters that override the workspace's configuration, e.g. {\"k\": 5}"),
  topK: z.number().int().min(1).max(maxTopK).optional().describe('How many items the method retrieves (passages, or entities for local search)'),
  contextOnly: z.boolean().optional().describe('Return the retrieved context without generating an answer'),
});

/** `search_entities`: entities by (part of) a name. */
export const searchEntitiesInput = z.object({
  query: z.string().trim().min(1).max(maxSearchQueryLength).describe('A name or part of one, e.g. "kester weir"'),
  limit: bounded(graphBrowserLimits.searchLimit, 'Most entities to return'),
  type: z.string().min(1).max(100).optional().describe('Only entities of this type, e.g. "person", "organization", "geo"'),
});

/** An entity's name, as a person or an agent writes it. */
const entityName = z.string().trim().min(1).max(maxSearchQueryLength);

/** `get_entity`: one entity by id, or by name. */
export const getEntityInput = z
  .object({
    id: entityId.optional().describe('Entity id, as search_entities returns it'),
    name: entityName.optional().describe('Entity name, when the id is not known: the best exact or prefix match of a title or alias'),
    maxSources: bounded(graphBrowserLimits.maxSources, 'Most source passages to include'),
  })
  .refine((input) => (input.id === undefined) !== (input.name === undefined), { message: 'give either id or name, not both and not neither' });

/** `neighbours`: the entities around one entity. */
export const neighboursInput = z
  .object({
    id: entityId.optional().describe('Entity id, as search_entities or get_entity returns it'),
    name: entityName.optional().describe('Entity name, when the id is not known: the best exact or prefix match of a title or alias'),
    depth: bounded(graphBrowserLimits.depth, 'Hops to walk'),
    limit: bounded(graphBrowserLimits.neighbourLimit, 'Most entities to return, the start included'),
    maxEdges: bounded(graphBrowserLimits.neighbourMaxEdges, 'Most relations to return'),
  })
  .refine((input) => (input.id === undefined) !== (input.name === undefined), { message: 'give either id or name, not both and not neither' });

/** `community_report`: the report of a community, or of the communities containing an entity. */
export const communityReportInput = z
  .object({
    communityId: z.string().min(1).max(200).optional().describe('Community id, as get_entity lists them'),
    entityId: entityId.optional().describe("Entity id: the reports of the communities containing it"),
    entityName: entityName.optional().describe('Entity name, when the id is not known (the best exact or prefix match): the reports of its communities'),
    level: z.number().int().min(0).max(100).optional().describe('With entityId or entityName: only the community at this hierarchy level (0 is the coarsest); default: every level'),
  })
  .refine((input) => [input.communityId, input.entityId, input.entityName].filter((given) => given !== undefined).length === 1, {
    message: 'give one of communityId, entityId or entityName',
  })
  .refine((input) => input.level === undefined || input.communityId === undefined, { message: 'level applies only with entityId or entityName' });

/** One document to add. */
export const documentInput = z.object({
  title: z.string().trim().min(1).max(maxTitleLength).describe('Document title'),
  text: z.string().min(1).max(maxDocumentLength).describe('Full text of the document'),
  source: z.string().min(1).max(maxTitleLength).optional().describe('Where it came from (a URL or path); a later document with the same source replaces it'),
});

/** `add_documents`: documents to index. */
export const addDocumentsInput = z.object({
  documents: z
    .array(documentInput)
    .min(1)
    .max(maxDocumentsPerCall)
    .refine((documents) => documents.reduce((total, document) => total + document.text.length, 0) <= maxDocumentsLength, {
      message: `the documents' texts add up to more than ${maxDocumentsLength} characters; add them in several calls`,
    })
    .describe(`Documents to add (at most ${maxDocumentsPerCall}, ${maxDocumentsLength} characters of text in all)`),
});

/** `list_documents`: the indexed documents. */
export const listDocumentsInput = z.object({
  limit: z.number().int().min(1).max(1000).optional().describe('Most documents to list (default 100), newest first'),
});

/** `delete_documents`: a preview, then the deletion once confirmed. */
export const deleteDocumentsInput = z.object({
  ids: z.array(z.string().min(1).max(200)).min(1).max(100).describe('Document ids, as list_documents returns them'),
  confirm: z.boolean().optional().describe('false or absent: only preview what would be deleted; true: delete, after a preview'),
});

/** `job_status`: one index or delete job of the server. */
export const jobStatusInput = z.object({ id: z.string().min(1).max(200).describe('Job id, as add_documents or delete_documents returns it') });

/** `list_jobs`: the server's recent jobs. */
export const listJobsInput = z.object({ limit: z.number().int().min(1).max(100).optional().describe('Most jobs to list (default 10), newest first') });

/*
 * Output schemas: what each tool returns as `structuredContent`, declared so that a client can rely on its shape
 * (MCP 2025-06-18). The records inside are the library's own types (documented in the TypeScript declarations); the
 * schemas name the keys a program reads and leave the records open, so a field added to a record is no breaking change.
 */
const record = z.object({}).loose();

export const queryOutput = z.object({
  method: z.string(),
  variant: z.string().nullable(),
  answer: z.object({ text: z.string(), kind: z.string() }).loose(),
  citations: z.array(z.object({ dataset: z.string(), hid: z.number(), id: z.string(), title: z.string() }).loose()),
  contextChunkIds: z.array(z.string()),
  context: z.string().optional().describe('The packed context, when contextOnly asked for it'),
  index: record,
  warnings: z.array(z.string()),
});
export const searchEntitiesOutput = z.object({ entities: z.array(z.object({ id: z.string(), title: z.string(), type: z.string() }).loose()) });
export const getEntityOutput = z.object({ entity: z.object({ id: z.string(), title: z.string(), description: z.string() }).loose() });
export const neighboursOutput = z.object({ nodes: z.array(record), edges: z.array(record), truncated: z.boolean() }).loose();
export const communityReportOutput = z.object({ communities: z.array(z.object({ id: z.string(), level: z.number() }).loose()) });
export const listDocumentsOutput = z.object({ total: z.number(), documents: z.array(z.object({ id: z.string(), title: z.string(), source: z.string() }).loose()) });
export const deleteDocumentsOutput = z.object({ preview: z.boolean(), deleting: z.array(record).optional(), message: z.string().optional(), jobId: z.string().optional() });
export const documentsChangedOutput = z.object({ message: z.string(), jobId: z.string().optional().describe('The job that does it, when the server queues one') });
export const jobStatusOutput = z.object({ job: z.object({ id: z.string(), status: z.string() }).loose() });
export const listJobsOutput = z.object({ jobs: z.array(z.object({ id: z.string(), status: z.string() }).loose()) });
