import { z } from 'zod';
import { defineRoute } from '../api-route.js';
import { httpError } from '../http-problem.js';
import { communitiesQuery, entityQuery, entitySearchQuery, graphSliceQuery, idParams, looseObject, neighboursQuery, problemResponse } from '../request-schemas.js';

const unknown = (what: string, id: string, hint: string) => httpError(404, `SERVER_UNKNOWN_${what.toUpperCase()}`, `no ${what} with id "${id.slice(0, 200)}"`, hint);
const searchHint = 'find entity ids with GET /entities?q=<name>';

/** Graph browsing: entity search, an entity, its neighbourhood, communities with reports, a chunk, a slice for a viewer. */
export const graphRoutes = [
  defineRoute({
    method: 'get',
    path: '/entities',
    tag: 'graph',
    summary: 'Entities whose name or alias matches q (exact, prefix, word, substring, then full text), by degree',
    query: entitySearchQuery,
    responses: { 200: { description: 'Matches', schema: z.object({ entities: z.array(looseObject) }) }, 400: problemResponse('Invalid query') },
    handler: async (c, { query, workspace }) =>
      c.json({ entities: await workspace.kgrag.graph.searchEntities(query.q, { ...(query.limit === undefined ? {} : { limit: query.limit }), ...(query.type === undefined ? {} : { type: query.type }) }) }),
  }),
  defineRoute({
    method: 'get',
    path: '/entities/:id',
    tag: 'graph',
    summary: 'An entity with its description, aliases, source passages (with documents) and communities',
    params: idParams,
    query: entityQuery,
    responses: { 200: { description: 'The entity', schema: looseObject }, 404: problemResponse('No such entity') },
    handler: async (c, { params, query, workspace }) => {
      const entity = await workspace.kgrag.graph.entity(params.id, query.maxSources === undefined ? {} : { maxSources: query.maxSources });
      if (!entity) throw unknown('entity', params.id, searchHint);
      return c.json(entity);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/entities/:id/neighbours',
    tag: 'graph',
    summary: 'The neighbourhood of an entity up to depth hops (strongest edges first), within limits',
    params: idParams,
    query: neighboursQuery,
    responses: { 200: { description: 'Nodes and edges', schema: looseObject }, 404: problemResponse('No such entity') },
    handler: async (c, { params, query, workspace }) => {
      const slice = await workspace.kgrag.graph.neighbours(params.id, {
        ...(query.depth === undefined ? {} : { depth: query.depth }),
        ...(query.limit === undefined ? {} : { limit: query.limit }),
        ...(query.maxEdges === undefined ? {} : { maxEdges: query.maxEdges }),
      });
      if (!slice) throw unknown('entity', params.id, searchHint);
      return c.json(slice);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/communities',
    tag: 'graph',
    summary: 'Communities (at one level, or all), largest first, with their reports',
    query: communitiesQuery,
    responses: { 200: { description: 'Communities', schema: looseObject } },
    handler: async (c, { query, workspace }) =>
      c.json(
        await workspace.kgrag.graph.communities({
          ...(query.level === undefined ? {} : { level: query.level }),
          ...(query.limit === undefined ? {} : { limit: query.limit }),
          ...(query.offset === undefined ? {} : { offset: query.offset }),
        }),
      ),
  }),
  defineRoute({
    method: 'get',
    path: '/communities/:id',
    tag: 'graph',
    summary: 'One community with its report',
    params: idParams,
    responses: { 200: { description: 'The community', schema: looseObject }, 404: problemResponse('No such community') },
    handler: async (c, { params, workspace }) => {
      const community = await workspace.kgrag.graph.community(params.id);
      if (!community) throw unknown('community', params.id, 'list the communities with GET /communities');
      return c.json(community);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/chunks/:id',
    tag: 'graph',
    summary: 'A passage (chunk) with its document',
    params: idParams,
    responses: { 200: { description: 'The chunk', schema: looseObject }, 404: problemResponse('No such chunk') },
    handler: async (c, { params, workspace }) => {
      const chunk = await workspace.kgrag.graph.chunk(params.id);
      if (!chunk) throw unknown('chunk', params.id, 'chunk ids come with query results (context.chunks) and entities (chunkIds)');
      return c.json(chunk);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/graph',
    tag: 'graph',
    summary: 'The top entities by degree and the edges among them, heaviest first, for a viewer',
    query: graphSliceQuery,
    responses: { 200: { description: 'Nodes and edges', schema: looseObject } },
    handler: async (c, { query, workspace }) =>
      c.json(
        await workspace.kgrag.graph.slice({
          ...(query.top === undefined ? {} : { top: query.top }),
          ...(query.maxEdges === undefined ? {} : { maxEdges: query.maxEdges }),
          ...(query.type === undefined ? {} : { type: query.type }),
        }),
      ),
  }),
];
