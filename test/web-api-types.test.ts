// The explorer's API types are generated from the server's OpenAPI document (scripts/generate-api-types.mjs, run by the
// build). Two checks keep them true:
// - the type check (npm test) fails when a value the server returns does not fit the explorer's (generated) type of
//   it: the tuple below compiles only while each server type is assignable to its generated counterpart;
// - the test fails when web/src/api-types.generated.ts is not what the current schemas generate (a schema changed
//   since the last build).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { IndexedDocument } from '../src/api/create-kgrag.js';
import type { ChunkView, CommunityDetail, Citation, ContextChunk, EntityDetail, EntityMatch, GraphBrowser, GraphSlice, QueryResult, QuerySubgraph, RankingInfo } from '../src/index.js';
import { buildOpenApiDocument } from '../src/server/build-openapi-document.js';
import type { JobStep, JobView } from '../src/server/index-job-queue.js';
import { apiTypesSource, generatedApiTypesPath } from '../scripts/generate-api-types.mjs';
import type * as Web from '../web/src/api-types.js';

type Assignable<From extends To, To> = [From, To];

export type ServerShapesFitTheExplorer = [
  Assignable<EntityMatch, Web.EntityMatch>,
  Assignable<EntityDetail, Web.EntityDetail>,
  Assignable<GraphSlice, Web.GraphSlice>,
  Assignable<Awaited<ReturnType<GraphBrowser['communities']>>, Web.CommunityPage>,
  Assignable<CommunityDetail, Web.CommunityDetail>,
  Assignable<ChunkView, Web.ChunkView>,
  Assignable<ContextChunk, Web.ContextChunk>,
  Assignable<Citation, Web.Citation>,
  Assignable<QuerySubgraph, Web.QuerySubgraph>,
  Assignable<RankingInfo, Web.RankingInfo>,
  Assignable<IndexedDocument, Web.DocumentInfo>,
  Assignable<JobStep, Web.JobStep>,
  Assignable<JobView, Web.JobView>,
  Assignable<QueryResult, Web.QueryResult>,
  Assignable<Omit<QueryResult, 'context'> & { context: Omit<QueryResult['context'], 'text'> }, Web.QueryResult>,
];

test('the explorer’s generated API types are those of the current route schemas', async () => {
  const expected = await apiTypesSource(buildOpenApiDocument());
  assert.ok(expected !== undefined, 'openapi-typescript (a devDependency) is installed');
  const path = new URL(`../${generatedApiTypesPath}`, import.meta.url);
  const actual = (() => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  })();
  assert.ok(actual === expected, `${generatedApiTypesPath} is ${actual === undefined ? 'missing' : 'stale'}: run \`npm run build\` to generate it from the route schemas`);
});
