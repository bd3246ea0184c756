import { z } from 'zod';
import type { ApiRoute } from './api-route.js';

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return rest;
}

/** `/documents/:id` → `/documents/{id}`. */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function parametersOf(route: ApiRoute, path: string): Array<Record<string, unknown>> {
  const parameters: Array<Record<string, unknown>> = [];
  for (const [, name] of path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)) {
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (route.query) {
    const schema = jsonSchema(route.query, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const { description, ...rest } = property;
      parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: rest, ...(description === undefined ? {} : { description }) });
    }
  }
  return parameters;
}

/**
 * The OpenAPI 3.1 document of the routes, generated from the zod schemas that validate them. `prefix` is where the
 * workspace routes live (`/v1` or `/v1/workspaces/{workspace}`).
 */
export function openApiDocument(routes: readonly ApiRoute[], prefix: string, version: string, secured: boolean): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.global ? route.path : `${prefix}${route.path}`;
    const key = openApiPath(path);
    const operation: Record<string, unknown> = {
      operationId: `${route.method}${key.replace(/[{}]/g, '').split('/').map((part) => part.charAt(0).toUpperCase() + part.slice(1).replace(/[^A-Za-z0-9]/g, '')).join('')}`,
      summary: route.summary,
      ...(route.description === undefined ? {} : { description: route.description }),
      tags: [route.tag],
      parameters: parametersOf(route, path),
      responses: Object.fromEntries(
        Object.entries(route.responses).map(([status, response]) => [
          status,
          {
            description: response.description,
            ...(response.schema || response.contentType
              ? { content: { [response.contentType ?? 'application/json']: response.schema ? { schema: jsonSchema(response.schema, 'output') } : {} } }
              : {}),
          },
        ]),
      ),
      ...(route.public || !secured ? { security: [] } : {}),
    };
    if (route.body) {
      const content: Record<string, unknown> = { 'application/json': { schema: jsonSchema(route.body, 'input') } };
      if (route.multipart) {
        content['multipart/form-data'] = { schema: { type: 'object', properties: { file: { type: 'array', items: { type: 'string', contentMediaType: 'application/octet-stream' } } } } };
      }
      operation['requestBody'] = { required: true, content };
    }
    paths[key] = { ...paths[key], [route.method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'kgrag API',
      version,
      description: 'Knowledge-graph RAG over HTTP: documents, index jobs, queries with every method, graph browsing, and an OpenAI-compatible chat endpoint. Errors are application/problem+json.',
    },
    servers: [{ url: '/' }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key of server.apiKeys (KGRAG_API_KEYS)' } } },
    security: secured ? [{ bearer: [] }] : [],
    paths,
  };
}
