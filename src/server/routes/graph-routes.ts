import { z } from 'zod';
import type { GraphBrowser } from '../../api/graph-browser.js';
import { type ApiRoute, defineRoute } from '../api-route.js';
import { httpError } from '../http-problem.js';
import { aliasMergesQuery, communitiesQuery, entityEditSchema, entityQuery, entitySearchQuery, graphSliceQuery, idParams, neighboursQuery } from '../request-schemas.js';
import {
  aliasMergeSchema,
  chunkViewSchema,
  communityDetailSchema,
  communityPageSchema,
  entityDetailSchema,
  entityEditRecordSchema,
  entityMatchSchema,
  graphSliceSchema,
  jobResponseSchema,
  problemResponse,
} from '../response-schemas.js';

/**
 * `GET <path>/:id`: one record the graph browser finds by id, or 404 naming what was asked and where ids come from.
 * Query options go to the browser as they are (an omitted one is undefined, which the browser reads as its default).
 * `find` must return what `schema` describes: the type check holds the OpenAPI document to the browser's values.
 */
function recordRoute<Q, S extends z.ZodType>(options: {
  path: string;
  summary: string;
  what: string;
  hint: string;
  query?: z.ZodType<Q>;
  schema: S;
  find: (graph: GraphBrowser, id: string, query: Q) => Promise<z.input<S> | undefined>;
}): ApiRoute {
  return defineRoute({
    method: 'get',
    path: options.path,
    tag: 'graph',
    summary: options.summary,
    params: idParams,
    ...(options.query === undefined ? {} : { query: options.query }),
    responses: { 200: { description: `The ${options.what}`, schema: options.schema }, 404: problemResponse(`No such ${options.what}`) },
    handler: async (c, { params, query, workspace }) => {
      const found = await options.find(workspace.kgrag.graph, params.id, query);
      if (found === undefined) throw httpError(404, `SERVER_UNKNOWN_${options.what.toUpperCase()}`, `no ${options.what} with id "${params.id.slice(0, 200)}"`, options.hint);
      return c.json(found);
    },
  });
}

const entityHint = 'find entity ids with GET /entities?q=<name>';

/** Graph browsing: entity search, an entity, its neighbourhood, communities with reports, a chunk, a slice for a viewer. */
export const graphRoutes = [
  defineRoute({
    method: 'get',
    path: '/entities',
    tag: 'graph',
    summary: 'Entities whose name or alias matches q (exact, prefix, word, substring, then full text), by degree',
    query: entitySearchQuery,
    responses: { 200: { description: 'Matches', schema: z.object({ entities: z.array(entityMatchSchema) }) }, 400: problemResponse('Invalid query') },
    handler: async (c, { query, workspace }) => c.json({ entities: await workspace.kgrag.graph.searchEntities(query.q, query) }),
  }),
  defineRoute({
    method: 'get',
    path: '/entities/merges',
    tag: 'graph',
    summary:
      'Names fast mode merged into another entity, best-connected first: short names into a longer name of their chunk ("Babbage" into "Charles Babbage"; only with extract.nlp.mergeShortNames) and document titles into the name their text opens with ("Sam Davis" into "Samuel George Davis MM"; extract.nlp.titleAliases); a name listed in extract.nlp.keepApart stays apart at the next update',
    query: aliasMergesQuery,
    responses: { 200: { description: 'Merges', schema: z.object({ merges: z.array(aliasMergeSchema) }) }, 400: problemResponse('Invalid query') },
    handler: async (c, { query, workspace }) => c.json({ merges: await workspace.kgrag.graph.aliasMerges(query) }),
  }),
  defineRoute({
    method: 'get',
    path: '/entities/edits',
    tag: 'graph',
    summary: 'The entity merges and splits people made, oldest first, undone ones included',
    responses: { 200: { description: 'Edits', schema: z.object({ edits: z.array(entityEditRecordSchema) }) } },
    handler: async (c, { workspace }) => c.json({ edits: await workspace.kgrag.entityEdits() }),
  }),
  defineRoute({
    method: 'post',
    path: '/entities/edits',
    tag: 'graph',
    summary: 'Merge entities into one, split a name off an entity into an entity of its own, or undo an edit (an index job)',
    description:
      'Body: `{"merge": ["<entity>", …], "into": "<entity>"}`, `{"split": "<name>", "from": "<entity>"}` or `{"undo": "edit-<n>"}`; entities by id, name or alias. The edit is kept with the index and applies to every later update; the job builds the entity graph again with it (fast mode) or resolves the entities again (standard mode, from the cached LLM replies). Answers 202 with the queued job; GET /entities/edits lists the edits once it has succeeded.',
    body: entityEditSchema,
    responses: { 202: { description: 'The entity-edit job', schema: jobResponseSchema }, 400: problemResponse('Invalid edit') },
    handler: async (c, { body, workspace }) => {
      const job = await workspace.jobs.submit({ kind: 'entity-edit', edit: body });
      c.header('location', `${c.req.path.replace(/\/entities\/edits$/, '')}/jobs/${job.id}`);
      return c.json({ job }, 202);
    },
  }),
  recordRoute({
    path: '/entities/:id',
    summary: 'An entity with its description, aliases, source passages (with documents) and communities',
    what: 'entity',
    hint: entityHint,
    query: entityQuery,
    schema: entityDetailSchema,
    find: (graph, id, query) => graph.entity(id, query),
  }),
  recordRoute({
    path: '/entities/:id/neighbours',
    summary: 'The neighbourhood of an entity up to depth hops (strongest edges first), within limits',
    what: 'entity',
    hint: entityHint,
    query: neighboursQuery,
    schema: graphSliceSchema,
    find: (graph, id, query) => graph.neighbours(id, query),
  }),
  defineRoute({
    method: 'get',
    path: '/communities',
    tag: 'graph',
    summary: 'Communities (at one level, or all), largest first, with their reports',
    query: communitiesQuery,
    responses: { 200: { description: 'Communities', schema: communityPageSchema } },
    handler: async (c, { query, workspace }) => c.json(await workspace.kgrag.graph.communities(query)),
  }),
  recordRoute({
    path: '/communities/:id',
    summary: 'One community with its report',
    what: 'community',
    hint: 'list the communities with GET /communities',
    schema: communityDetailSchema,
    find: (graph, id) => graph.community(id),
  }),
  recordRoute({
    path: '/chunks/:id',
    summary: 'A passage (chunk) with its document',
    what: 'chunk',
    hint: 'chunk ids come with query results (context.chunks) and entities (chunkIds)',
    schema: chunkViewSchema,
    find: (graph, id) => graph.chunk(id),
  }),
  defineRoute({
    method: 'get',
    path: '/graph',
    tag: 'graph',
    summary: 'The top entities by degree (with their communities, and with layout=true their positions) and the edges among them, heaviest first, for a viewer',
    query: graphSliceQuery,
    responses: { 200: { description: 'Nodes and edges', schema: graphSliceSchema } },
    handler: async (c, { query, workspace }) => c.json(await workspace.kgrag.graph.slice(query)),
  }),
];
