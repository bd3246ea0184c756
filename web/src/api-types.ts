/*
 * The shapes of the kgrag HTTP API the explorer reads, named. Each is a part of the types the build generates from the
 * server's `/openapi.json` (api-types.generated.ts, written by scripts/build.mjs; run `npm run build` after changing a
 * route's schema), so the explorer builds without server code and cannot drift from what the server describes.
 */
import type { operations } from './api-types.generated.js';

/** The JSON body of a successful response of the operation `Id` (its operationId in `/openapi.json`). */
type Reply<Id extends keyof operations, Status extends keyof operations[Id]['responses']> = operations[Id]['responses'][Status] extends {
  content: { 'application/json': infer Body };
}
  ? Body
  : never;

export type WorkspaceStats = Reply<'getV1Stats', 200>;
export type Workspaces = Reply<'getV1Workspaces', 200>;

export type EntityMatch = Reply<'getV1Entities', 200>['entities'][number];
export type EntityDetail = Reply<'getV1EntitiesId', 200>;
export type GraphSlice = Reply<'getV1Graph', 200>;
export type GraphNode = GraphSlice['nodes'][number];
export type CommunityPage = Reply<'getV1Communities', 200>;
export type CommunityView = CommunityPage['communities'][number];
export type CommunityDetail = Reply<'getV1CommunitiesId', 200>;
export type ChunkView = Reply<'getV1ChunksId', 200>;

export type QueryRequest = Omit<operations['postV1Query']['requestBody']['content']['application/json'], 'stream'>;
export type QueryResult = Reply<'postV1Query', 200>;
export type ContextChunk = QueryResult['context']['chunks'][number];
export type Citation = QueryResult['citations'][number];
export type QuerySubgraph = NonNullable<QueryResult['context']['subgraph']>;

export type DocumentInfo = Reply<'getV1Documents', 200>['documents'][number];
export type DocumentDetail = Reply<'getV1DocumentsId', 200>;
/** What deleting a document would remove and cost (`DELETE /documents/{id}?dryRun=true`). */
export type DeletePreview = Reply<'deleteV1DocumentsId', 200>;
export type JobView = Reply<'getV1JobsId', 200>['job'];
export type EntityEdit = Reply<'getV1EntitiesEdits', 200>['edits'][number];
export type EntityEditRequest = operations['postV1EntitiesEdits']['requestBody']['content']['application/json'];
export type JobStep = JobView['steps'][number];

type Methods = Reply<'getV1Methods', 200>;
/** A query method; `parameters` is JSON Schema, read by the parameters form as {@link JsonSchema}. */
export type MethodDescription = Omit<Methods['methods'][number], 'parameters'> & { parameters: JsonSchema };
export type MethodList = Omit<Methods, 'methods'> & { methods: MethodDescription[] };
export type RankingInfo = MethodDescription['ranking'];

/**
 * An `application/problem+json` error document; only `status` when the body was not one (a proxy's error page), where
 * the client fills in the status line.
 */
export type Problem = Partial<NonNullable<operations['getV1DocumentsId']['responses'][404]['content']>['application/problem+json']> & { status: number };

/**
 * The part of JSON Schema (the standard, not kgrag's API: a method's `parameters` are whatever its zod schema
 * converts to) that the parameters form reads.
 */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}
