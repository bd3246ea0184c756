// The explorer keeps its own copy of the HTTP API's types (web/src/api-types.ts: it builds without server code).
// This file makes the type check (npm test) fail when the server's shapes drift from that copy: each server value
// must be assignable to the explorer's type of it.
import { test } from 'node:test';
import type { ChunkView, CommunityDetail, CommunityView, EntityDetail, EntityMatch, GraphSlice } from '../src/api/graph-browser.js';
import type { IndexedDocument } from '../src/api/create-kgrag.js';
import type { Citation, ContextChunk } from '../src/answer/answer-types.js';
import type { QueryResult } from '../src/methods/query-engine.js';
import type { QuerySubgraph, RankingInfo } from '../src/methods/query-method.js';
import type { JobStep, JobView } from '../src/server/index-job-queue.js';
import type * as Web from '../web/src/api-types.js';

type Assignable<From extends To, To> = [From, To];

export type ServerShapesFitTheExplorer = [
  Assignable<EntityMatch, Web.EntityMatch>,
  Assignable<EntityDetail, Web.EntityDetail>,
  Assignable<GraphSlice, Web.GraphSlice>,
  Assignable<CommunityView, Web.CommunityView>,
  Assignable<CommunityDetail, Web.CommunityDetail>,
  Assignable<ChunkView, Web.ChunkView>,
  Assignable<ContextChunk, Web.ContextChunk>,
  Assignable<Citation, Web.Citation>,
  Assignable<QuerySubgraph, Web.QuerySubgraph>,
  Assignable<RankingInfo, Web.RankingInfo>,
  Assignable<IndexedDocument, Web.DocumentInfo>,
  Assignable<JobStep, Web.JobStep>,
  Assignable<JobView, Web.JobView>,
  Assignable<Omit<QueryResult, 'context'> & { context: Omit<QueryResult['context'], 'text'> }, Web.QueryResult>,
];

test('the explorer’s API types are checked against the server’s by the type check', () => {
  // Nothing to run: the tuple type above compiles only while the shapes agree.
});
