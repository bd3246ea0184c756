import { z } from 'zod';

/*
 * The zod schemas of the HTTP API's responses. They are not parsed at run time: they describe in /openapi.json what a
 * client gets, and the web explorer's API types are generated from that document at build time
 * (web/src/api-types.generated.ts). test/web-api-types.test.ts makes the type check fail when a value the server
 * returns stops fitting its schema. The document says each object has no other properties, so a field the server
 * adds belongs here too.
 */

/** The problem document of every error (RFC 9457). */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().describe('What went wrong with which input, then the fix'),
  code: z.string().describe('kgrag’s stable error code'),
  requestId: z.string().optional(),
  error: z
    .object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string() })
    .describe('The same error in OpenAI’s shape, which OpenAI clients read: message is detail, code is code'),
});

/** An error response of the OpenAPI document: a problem document with `description`. */
export function problemResponse(description: string) {
  return { description, schema: problemSchema, contentType: 'application/problem+json' };
}

const usageSchema = z.object({ llmCalls: z.number(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number() });

const jobStepSchema = z.object({
  step: z.string(),
  status: z.enum(['pending', 'running', 'done', 'skipped']),
  done: z.number(),
  total: z.number(),
  unit: z.string(),
  durationMs: z.number().optional(),
});

/** An index or delete job as the API shows it. */
export const jobSchema = z.object({
  id: z.string(),
  kind: z.enum(['index', 'delete', 'entity-edit']),
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  input: z.object({
    documents: z.array(z.string()),
    files: z.array(z.string()),
    selectors: z.array(z.string()),
    mode: z.string().nullable(),
    methods: z.array(z.string()).nullable(),
    watched: z.array(z.string()).describe('The files and folders `kgrag serve --watch` follows, when this job is one of its updates (read whole, with prune)'),
    entityEdit: z.record(z.string(), z.unknown()).nullable().describe('The merge, split or undo an entity-edit job records (the body of POST /entities/edits)'),
  }),
  steps: z.array(jobStepSchema),
  resumed: z.number().int().describe('Times the job ran again to resume its draft (a restart, the database back, or taken over from a process that died)'),
  runBy: z.string().nullable().describe('The process (host:pid) that runs the job or last ran it, for jobs shared through a Postgres store; null otherwise'),
  warnings: z.array(z.string()),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  result: z
    .object({
      durationMs: z.number(),
      usage: usageSchema.extend({ byModel: z.record(z.string(), z.object({ calls: z.number(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number() })) }),
      deleted: z.array(z.string()).optional().describe('Ids of the documents a delete job removed'),
    })
    .nullable()
    .describe('Totals of a finished run'),
});

/** A recorded entity edit (`GET /entities/edits`). */
export const entityEditRecordSchema = z.object({
  id: z.string(),
  kind: z.enum(['merge', 'split']),
  entity: z.object({ id: z.string(), title: z.string(), name: z.string() }).describe('The entity merged into, or split from, as it was at the edit'),
  names: z.array(z.string()).describe('merge: the names merged into the entity; split: the name that left it'),
  at: z.string(),
  undoneAt: z.string().optional(),
});

/** `{ job }`: the answer of every route that queues, reads or cancels one job. */
export const jobResponseSchema = z.object({ job: jobSchema });

/** A document of the published index, as `GET /documents` lists it. */
export const documentSchema = z.object({
  id: z.string(),
  title: z.string(),
  source: z.string(),
  chunks: z.number().int(),
  indexedAt: z.string(),
  status: z.enum(['indexed', 'source-missing']),
});

/** One document with its text, as `GET /documents/{id}` returns it. */
export const documentDetailSchema = z.object({
  id: z.string(),
  title: z.string(),
  source: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  indexedAt: z.string(),
  status: z.enum(['indexed', 'source-missing']),
  text: z.string(),
  chunkIds: z.array(z.string()),
});

/** A workspace's index, counts, jobs and model, as `GET /stats` (and creating a workspace) return them. */
export const workspaceStatsSchema = z.object({
  name: z.string(),
  index: z.object({
    generation: z.number().int().nullable(),
    publishedAt: z.string().nullable(),
    writer: z.object({}).loose().nullable().describe('The index run writing now, if any'),
    unpublished: z.object({}).loose().nullable().describe('The last run that ended without publishing, if any'),
  }),
  counts: z.record(z.string(), z.number()),
  statistics: z
    .object({
      fittedAt: z.string(),
      documents: z.number().int(),
      chunks: z.number().int(),
      changedChunks: z.number().int(),
      changedShare: z.number(),
      refreshShare: z.number(),
    })
    .nullable()
    .describe('When the corpus-wide statistics were fitted and how far the corpus has drifted since; the update past refreshShare refits them'),
  llm: z.object({ configured: z.boolean(), model: z.string().nullable() }).describe('Without an LLM, answers are extractive'),
  jobs: z.object({ running: z.array(z.string()), queued: z.array(z.string()) }),
});

const rankingSchema = z.object({ kind: z.enum(['native', 'proxy', 'fallback']), note: z.string().optional() });

/** A query method, its variants and parameters, as `GET /methods` lists it. */
export const methodDescriptionSchema = z.object({
  name: z.string(),
  description: z.string(),
  variants: z.array(z.string()),
  topKParam: z.union([z.string(), z.array(z.string())]).nullable().describe('The parameter(s) `topK` sets, or null when the method has none'),
  ranking: rankingSchema.describe('How the method ranks passages, for evaluation: its own ranking, or a proxy'),
  parameters: z.record(z.string(), z.unknown()).describe("JSON Schema of the method's settings (input side)"),
  built: z.boolean().describe('Whether the index is built for the method'),
  needsLlm: z.boolean().describe('Whether the method cannot answer without a chat model (see GET /stats `llm.configured`)'),
});

const entitySummaryShape = {
  id: z.string(),
  title: z.string(),
  type: z.string(),
  degree: z.number(),
  frequency: z.number(),
};

/** One hit of an entity search. */
export const aliasMergeSchema = z.object({
  name: z.string().describe('The merged name as written ("Babbage", "Sam Davis")'),
  kind: z.enum(['short name', 'document title']).describe('A short name after a longer one in its chunk, or the title of a document whose text opens with the entity\'s name'),
  entityId: z.string().describe('The entity it was merged into'),
  title: z.string().describe("That entity's name"),
  frequency: z.number().int().describe('Chunks the entity is mentioned in, under any of its names'),
});

export const entityMatchSchema = z.object({
  ...entitySummaryShape,
  match: z.enum(['exact', 'prefix', 'word', 'contains', 'text']),
  alias: z.string().optional().describe('The alias that matched, when an alias rather than the title did'),
});

/** An entity with its description, aliases, source passages and communities. */
export const entityDetailSchema = z.object({
  ...entitySummaryShape,
  description: z.string(),
  aliases: z.array(z.string()),
  chunkIds: z.array(z.string()),
  sources: z.array(z.object({ chunkId: z.string(), documentId: z.string(), documentTitle: z.string(), text: z.string() })),
  communities: z.array(z.object({ id: z.string(), level: z.number().int(), title: z.string(), reportTitle: z.string().optional() })),
});

/** A neighbourhood or slice of the entity graph. */
export const graphSliceSchema = z.object({
  nodes: z.array(
    z.object({
      ...entitySummaryShape,
      depth: z.number().int().describe('Hops from the start entity (neighbours), or 0 (slice)'),
      communities: z.array(z.string()).describe("The entity's community id at each level (index = level, 0 the coarsest)"),
      x: z.number().optional(),
      y: z.number().optional(),
    }),
  ),
  edges: z.array(z.object({ id: z.string(), source: z.string(), target: z.string(), description: z.string(), weight: z.number() })),
  truncated: z.boolean().describe('True when a limit left nodes or edges out'),
});

const communityShape = {
  id: z.string(),
  level: z.number().int(),
  parent: z.string().nullable(),
  children: z.array(z.string()),
  title: z.string(),
  size: z.number().int(),
  report: z
    .object({
      title: z.string(),
      summary: z.string(),
      rating: z.number(),
      ratingExplanation: z.string(),
      findings: z.array(z.object({ summary: z.string(), explanation: z.string() })),
      fullContent: z.string(),
      generatedBy: z.enum(['extractive', 'llm']),
    })
    .optional(),
};

/** One page of communities, largest first. */
export const communityPageSchema = z.object({
  total: z.number().int(),
  levels: z.array(z.number().int()),
  communities: z.array(z.object(communityShape)),
});

/** One community with its report and member entities. */
export const communityDetailSchema = z.object({ ...communityShape, entityIds: z.array(z.string()) });

/** A chunk with its document. */
export const chunkViewSchema = z.object({
  id: z.string(),
  ordinal: z.number().int(),
  text: z.string(),
  nTokens: z.number().int(),
  start: z.number().int(),
  end: z.number().int(),
  document: z.object({ id: z.string(), title: z.string(), source: z.string(), createdAt: z.string() }),
});

/** The id of an index record, and the number an answer cites it by. */
const indexRecordId = { id: z.string(), hid: z.number().int().optional() };

/** The index records of one kind a retrieval used, when the method reports them. */
function optionalRecords<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.array(z.object(shape)).optional();
}

/** A query's result (also the `result` event of a streamed query). */
export const queryResultSchema = z.object({
  question: z.string(),
  method: z.string(),
  variant: z.string().optional(),
  answer: z.object({ text: z.string(), kind: z.enum(['generated', 'extractive', 'none']), label: z.string().optional() }),
  citations: z.array(
    z.object({
      dataset: z.enum(['Sources', 'Entities', 'Relationships', 'Reports', 'Claims']),
      hid: z.number().int(),
      id: z.string(),
      title: z.string(),
      source: z.string().optional(),
      quote: z.string().optional(),
    }),
  ),
  context: z.object({
    chunks: z.array(
      z.object({
        id: z.string(),
        hid: z.number().int(),
        documentId: z.string(),
        documentTitle: z.string(),
        source: z.string(),
        text: z.string(),
        score: z.number(),
        scores: z.record(z.string(), z.number()),
      }),
    ),
    ranking: rankingSchema.optional(),
    entities: optionalRecords({
      ...indexRecordId,
      title: z.string(),
      type: z.string(),
      description: z.string(),
      aliases: z.array(z.string()),
      frequency: z.number(),
      degree: z.number(),
      chunkIds: z.array(z.string()),
    }),
    relations: optionalRecords({
      ...indexRecordId,
      source: z.string(),
      target: z.string(),
      description: z.string(),
      keywords: z.array(z.string()),
      weight: z.number(),
      combinedDegree: z.number(),
      chunkIds: z.array(z.string()),
    }),
    communities: optionalRecords({
      ...indexRecordId,
      level: z.number().int(),
      parent: z.string().nullable(),
      children: z.array(z.string()),
      title: z.string(),
      entityIds: z.array(z.string()),
      relationIds: z.array(z.string()),
      chunkIds: z.array(z.string()),
      size: z.number().int(),
    }),
    keywords: z.array(z.object({ id: z.string(), text: z.string(), score: z.number() })).optional(),
    subgraph: z
      .object({
        nodes: z.array(z.object({ id: z.string(), label: z.string(), kind: z.string(), score: z.number().optional() })),
        edges: z.array(z.object({ source: z.string(), target: z.string(), kind: z.string(), weight: z.number().optional() })),
      })
      .optional(),
    tokens: z.number(),
    text: z.string().optional().describe('With includeContextText or contextOnly'),
  }),
  trace: z.object({
    steps: z.array(z.object({ name: z.string(), ms: z.number(), detail: z.record(z.string(), z.unknown()).optional() })),
    params: z.record(z.string(), z.unknown()),
    unknownReferences: z.number().int(),
  }),
  usage: usageSchema.extend({ latencyMs: z.number() }),
  index: z.object({ generation: z.number().int(), publishedAt: z.string().nullable() }),
  warnings: z.array(z.string()),
});
