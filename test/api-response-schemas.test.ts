// What the server answers over real loopback HTTP fits the /openapi.json it serves (from which the explorer's types
// are generated): each body the explorer reads is parsed with the response schema of its operation in the document,
// where an object lists every property it may have (additionalProperties: false), so an undocumented field fails too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import type { ServedWorkspaces } from '../src/server/serve-workspaces.js';
import { sampleWorkspace, startTestServer } from './helpers/test-server.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

describe('responses fit the served OpenAPI document', () => {
  let server: ServedWorkspaces;
  let paths: Record<string, Record<string, Operation>>;

  before(async () => {
    server = await startTestServer({ directory: await sampleWorkspace() });
    paths = ((await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: typeof paths }).paths;
  });
  after(async () => {
    await server.close();
  });

  /** Requests `url` and parses its JSON body with the document's schema of `template`'s response; returns the body. */
  async function checked<T>(template: string, url: string, init: RequestInit = {}): Promise<T> {
    const response = await fetch(`${server.url}${url}`, init);
    const method = (init.method ?? 'get').toLowerCase();
    const schema = paths[template]?.[method]?.responses[String(response.status)]?.content?.['application/json']?.schema;
    assert.ok(schema !== undefined, `${method} ${template} answered ${response.status}, which the document does not describe`);
    const body: unknown = await response.json();
    const parsed = z.fromJSONSchema(schema).safeParse(body);
    assert.ok(parsed.success, `${method} ${url}: ${parsed.error?.issues.slice(0, 3).map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
    return body as T;
  }

  test('the workspace, its methods, documents and jobs', async () => {
    await checked('/v1/stats', '/v1/stats');
    const { methods } = await checked<{ methods: Array<{ name: string }> }>('/v1/methods', '/v1/methods');
    assert.ok(methods.length >= 8);
    const { documents } = await checked<{ documents: Array<{ id: string }> }>('/v1/documents', '/v1/documents');
    await checked('/v1/documents/{id}', `/v1/documents/${encodeURIComponent(documents[0]!.id)}`);
    await checked('/v1/jobs', '/v1/jobs');
  });

  test('graph browsing: search, an entity, its neighbourhood, communities, a chunk, the laid-out slice', async () => {
    const { nodes } = await checked<{ nodes: Array<{ id: string; title: string }> }>('/v1/graph', '/v1/graph?layout=true');
    const top = nodes[0]!;
    await checked('/v1/entities', `/v1/entities?q=${encodeURIComponent(top.title)}`);
    const entity = await checked<{ chunkIds: string[] }>('/v1/entities/{id}', `/v1/entities/${encodeURIComponent(top.id)}`);
    await checked('/v1/entities/{id}/neighbours', `/v1/entities/${encodeURIComponent(top.id)}/neighbours?depth=2`);
    const { communities } = await checked<{ communities: Array<{ id: string }> }>('/v1/communities', '/v1/communities');
    await checked('/v1/communities/{id}', `/v1/communities/${encodeURIComponent(communities[0]!.id)}`);
    await checked('/v1/chunks/{id}', `/v1/chunks/${encodeURIComponent(entity.chunkIds[0]!)}`);
  });

  test('query results of methods whose context holds entities, relations, communities, keywords and subgraphs', async () => {
    const seen = new Set<string>();
    for (const method of ['basic', 'local', 'drift', 'ppr', 'relations', 'kgp', 'autokg']) {
      const result = await checked<{ context: Record<string, unknown> }>('/v1/query', '/v1/query', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'Who repaired the Weir Bridge?', method, contextOnly: true }),
      });
      for (const [key, value] of Object.entries(result.context)) if (Array.isArray(value) ? value.length > 0 : value !== undefined) seen.add(key);
    }
    for (const key of ['chunks', 'entities', 'relations', 'communities', 'keywords', 'subgraph', 'text']) assert.ok(seen.has(key), `some result's context has ${key}`);
  });
});
