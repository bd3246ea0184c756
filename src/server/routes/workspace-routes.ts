import { z } from 'zod';
import { grantCovers } from '../api-keys.js';
import { defineRoute } from '../api-route.js';
import { httpError } from '../http-problem.js';
import { createWorkspaceSchema, looseObject } from '../request-schemas.js';
import { problemResponse, workspaceStatsSchema } from '../response-schemas.js';
import type { ServedWorkspace, WorkspaceRegistry } from '../workspace-registry.js';


async function statsOf(workspace: ServedWorkspace) {
  const [{ statistics, ...counts }, status] = await Promise.all([workspace.kgrag.stats(), workspace.kgrag.status()]);
  const jobs = await workspace.jobs.list();
  return {
    name: workspace.name,
    index: { generation: status.generation ?? null, publishedAt: status.publishedAt, writer: status.writer ?? null, unpublished: status.unpublished ?? null },
    counts,
    statistics: statistics ?? null,
    // The explorer says when answers are extractive because no LLM is configured.
    llm: { configured: workspace.kgrag.llm !== undefined, model: workspace.kgrag.llm?.modelId ?? null },
    jobs: { running: jobs.filter((job) => job.status === 'running').map((job) => job.id), queued: jobs.filter((job) => job.status === 'queued').map((job) => job.id) },
  };
}

/** How long a readiness check waits for a workspace's store before it calls it not ready. */
const readinessTimeoutMs = 3000;

/**
 * Whether every workspace's store answers: its status read (on Postgres, the workspace row, after the schema's
 * migrations are checked) within {@link readinessTimeoutMs}. What failed is named by workspace and error code only: the
 * endpoint needs no key, and an error's message may name hosts.
 */
async function readiness(registry: WorkspaceRegistry): Promise<Array<{ name: string; ready: boolean; code?: string }>> {
  return Promise.all(
    registry.names().map(async (name) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: 'STORE_TIMEOUT' })), readinessTimeoutMs);
      });
      try {
        await Promise.race([registry.open(name).then((workspace) => workspace.kgrag.status()), timeout]);
        return { name, ready: true };
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        return { name, ready: false, code: typeof code === 'string' ? code : 'INTERNAL' };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

const healthSchema = z.object({ status: z.literal('ok'), version: z.string() });

/** Health, version, and the workspaces: list, create (folder layout), stats. */
export function workspaceRoutes(registry: WorkspaceRegistry, version: string) {
  return [
    defineRoute({
      method: 'get',
      path: '/health',
      tag: 'server',
      global: true,
      public: true,
      summary: 'Liveness: 200 while the server takes requests (no API key needed); the same as /health/live',
      responses: { 200: { description: 'Healthy', schema: healthSchema } },
      handler: (c) => c.json({ status: 'ok' as const, version }),
    }),
    defineRoute({
      method: 'get',
      path: '/health/live',
      tag: 'server',
      global: true,
      public: true,
      summary: 'Liveness: 200 while the process takes requests, whatever its store does (no API key needed)',
      responses: { 200: { description: 'Alive', schema: healthSchema } },
      handler: (c) => c.json({ status: 'ok' as const, version }),
    }),
    defineRoute({
      method: 'get',
      path: '/health/ready',
      tag: 'server',
      global: true,
      public: true,
      summary: 'Readiness: 200 when every workspace\'s store answers, else 503 with Retry-After (no API key needed)',
      responses: {
        200: { description: 'Ready', schema: z.object({ status: z.literal('ready'), version: z.string(), workspaces: z.array(z.object({ name: z.string(), ready: z.boolean() })) }) },
        503: { description: 'A workspace\'s store does not answer', schema: z.object({ status: z.literal('unavailable'), version: z.string(), workspaces: z.array(z.object({ name: z.string(), ready: z.boolean(), code: z.string().optional() })) }) },
      },
      handler: async (c) => {
        const workspaces = await readiness(registry);
        if (workspaces.every((workspace) => workspace.ready)) return c.json({ status: 'ready' as const, version, workspaces }, 200);
        c.header('retry-after', '5');
        return c.json({ status: 'unavailable' as const, version, workspaces }, 503);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/version',
      tag: 'server',
      global: true,
      summary: 'The kgrag version, the workspace layout and the Node.js version',
      responses: { 200: { description: 'Version', schema: looseObject } },
      handler: (c) => c.json({ version, layout: registry.layout, node: process.version }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/workspaces',
      tag: 'workspaces',
      global: true,
      summary: 'The workspaces this server serves',
      responses: { 200: { description: 'Workspace names', schema: z.object({ layout: z.enum(['single', 'folder']), workspaces: z.array(z.object({ name: z.string() })) }) } },
      // A key sees only the workspaces it is for.
      handler: (c) => c.json({ layout: registry.layout, workspaces: registry.names().filter((name) => grantCovers(c.get('grant'), name)).map((name) => ({ name })) }),
    }),
    defineRoute({
      method: 'post',
      role: 'admin',
      path: '/v1/workspaces',
      tag: 'workspaces',
      global: true,
      summary: 'Create an empty workspace (servers started with --workspaces)',
      body: createWorkspaceSchema,
      responses: {
        201: { description: 'Created', schema: workspaceStatsSchema },
        400: problemResponse('Invalid name'),
        405: problemResponse('The server serves a single workspace'),
        409: problemResponse('The workspace exists'),
      },
      handler: async (c, { body }) => {
        const grant = c.get('grant');
        if (!grantCovers(grant, body.name)) {
          throw httpError(403, 'AUTH_WORKSPACE_FORBIDDEN', `the API key "${grant.name}" is not for workspace "${body.name}"`, 'use a key whose workspaces list it, or "*"');
        }
        return c.json(await statsOf(await registry.create(body.name)), 201);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/stats',
      tag: 'workspaces',
      summary: 'Counts of the index, its generation, and the running and queued jobs',
      responses: { 200: { description: 'Stats', schema: workspaceStatsSchema }, 404: problemResponse('No such workspace') },
      handler: async (c, { workspace }) => c.json(await statsOf(workspace)),
    }),
  ];
}
