import { randomUUID } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { routePath } from 'hono/route';
import { cors } from 'hono/cors';
import type { Logger } from 'pino';
import type { ServerConfig } from '../core/config/config-schema.js';
import { type ApiRoute, registerRoutes, type ServerEnv } from './api-route.js';
import { renderApiPage } from './api-page.js';
import { createApiKeys, grantCovers, type KeyGrant } from './api-keys.js';
import { createCallerLimits } from './caller-limits.js';
import { httpError, problemOf } from './http-problem.js';
import { openApiDocument } from './openapi-document.js';
import { createQueryGate, type QueryGate } from './query-gate.js';
import { sameMachineGuard } from './same-machine-guard.js';
import type { ServerMetrics } from './server-metrics.js';
import { isExplorerPath, serveExplorerFiles } from './serve-explorer-files.js';
import { chatRoutes } from './routes/chat-routes.js';
import { ollamaRoutes } from './routes/ollama-routes.js';
import { documentRoutes } from './routes/document-routes.js';
import { jobRoutes } from './routes/job-routes.js';
import { queryRoutes } from './routes/query-routes.js';
import { workspaceRoutes } from './routes/workspace-routes.js';
import { type ServedWorkspace, singleWorkspaceName, type WorkspaceRegistry } from './workspace-registry.js';

/** Options of {@link createServerApp}. */
export interface ServerAppOptions {
  registry: WorkspaceRegistry;
  config: ServerConfig;
  version: string;
  logger: Logger;
  /** Extra routes of other layers (graph browsing), registered like the built-in ones. */
  routes?: readonly ApiRoute[];
  /** Serves MCP (streamable HTTP) for a workspace at `/mcp` (or `/v1/workspaces/{name}/mcp`). */
  mcp?: (workspace: ServedWorkspace, grant: KeyGrant) => (request: Request) => Promise<Response>;
  /** The built web explorer served at `/` (default: the package's `dist/web`). */
  webDirectory?: string;
  /** Series served at `/metrics`; without them the server has no `/metrics`. */
  metrics?: ServerMetrics;
}

/** The HTTP application and what a graceful shutdown needs of it. */
export interface ServerApp {
  app: Hono<ServerEnv>;
  queries: QueryGate;
  openapi: Record<string, unknown>;
}

const requestIdPattern = /^[A-Za-z0-9._-]{1,64}$/;

function clientAddress(c: Context<ServerEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // app.request() in tests has no socket.
    return 'local';
  }
}

/**
 * Headers of every response: no page of the server may be framed by another site (clickjacking), no body is read as
 * another type than it declares, no URL of the server is sent on as a referrer, and no answer holding data — the
 * API's, the problem documents', `/docs` — is kept in a cache. The explorer's files keep their own caching.
 */
function setSecurityHeaders(headers: Headers, explorerFile: boolean): void {
  headers.set('x-frame-options', 'DENY');
  headers.set('x-content-type-options', 'nosniff');
  headers.set('referrer-policy', 'no-referrer');
  if (explorerFile) return;
  // An event stream keeps its revalidate-always `no-cache`, made private: Chromium aborts a `no-store` stream (every
  // streamed query and job progress of the explorer failed as net::ERR_ABORTED).
  headers.set('cache-control', (headers.get('content-type') ?? '').startsWith('text/event-stream') ? 'private, no-cache' : 'no-store');
}

/**
 * The kgrag HTTP API over a registry of workspaces: authentication, per-caller limits and problem+json errors
 * around the routes of every endpoint group, and the web explorer's files at `/` (public: the page asks for a key
 * for its API calls). Without keys, only requests addressed to this machine and same-origin writes pass
 * ({@link sameMachineGuard}). Request logs carry an id, the method, the path, the status and the
 * time — never a question, a document or a key at `info` level.
 */
export function createServerApp(options: ServerAppOptions): ServerApp {
  const { config, registry, logger } = options;
  const keys = createApiKeys(config.apiKeys);
  const limits = createCallerLimits({ requestsPerMinute: config.requestsPerMinute, maxConcurrentQueries: config.maxConcurrentQueries });
  const queries = createQueryGate(limits, config.queryTimeoutMs);
  const app = new Hono<ServerEnv>();
  const prefix = registry.layout === 'single' ? '/v1' : '/v1/workspaces/:workspace';
  const ollamaPath = registry.layout === 'single' ? /^\/api\// : /^\/v1\/workspaces\/[^/]+\/api\//;
  const routes: ApiRoute[] = [
    ...workspaceRoutes(registry, options.version),
    ...documentRoutes,
    ...jobRoutes,
    ...queryRoutes(queries),
    ...chatRoutes(queries),
    ...(options.routes ?? []),
  ];
  const publicPaths = new Set(['/health', '/health/live', '/health/ready', '/openapi.json', '/docs', ...(config.metricsPublic ? ['/metrics'] : [])]);
  // Ollama clients call `<host>/api/…`: at the root for one workspace, under the workspace's path for several.
  const ollamaPrefix = registry.layout === 'single' ? '' : prefix;
  const ollama = ollamaRoutes(queries);
  const openapi = openApiDocument([...routes, ...ollama.map((route) => ({ ...route, path: `${ollamaPrefix}${route.path}`, global: true }))], prefix, options.version, keys.required);

  app.use('*', async (c, next) => {
    const given = c.req.header('x-request-id');
    const requestId = given !== undefined && requestIdPattern.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.header('x-request-id', requestId);
    const started = performance.now();
    await next();
    setSecurityHeaders(c.res.headers, isExplorerPath(c.req.path));
    const seconds = (performance.now() - started) / 1000;
    const entry = { requestId, method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(seconds * 1000), caller: c.get('caller') };
    // The matched route's pattern, never the path sent: a label per caller-chosen path would grow without bound.
    const route = routePath(c, -1);
    options.metrics?.observeRequest(isExplorerPath(c.req.path) ? 'explorer' : route === '*' || route === '/*' ? 'unmatched' : route, c.req.method, c.res.status, seconds);
    if (c.res.status >= 500) logger.error(entry, 'request failed');
    else logger.info(entry, 'request');
  });

  if (!keys.required) app.use('*', sameMachineGuard(config.corsOrigins));

  if (config.corsOrigins.length > 0) {
    app.use('*', cors({ origin: [...config.corsOrigins], allowHeaders: ['authorization', 'content-type', 'x-request-id'], exposeHeaders: ['x-request-id', 'retry-after', 'location'], maxAge: 600 }));
  }

  app.use('*', async (c, next) => {
    if (publicPaths.has(c.req.path) || isExplorerPath(c.req.path) || c.req.method === 'OPTIONS') {
      c.set('caller', `ip:${clientAddress(c)}`);
      c.set('grant', { name: c.get('caller'), workspaces: '*', role: 'read' });
      return next();
    }
    if (keys.required) {
      const header = c.req.header('authorization');
      const token = header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
      if (token === undefined) {
        throw httpError(401, 'AUTH_MISSING_KEY', 'this server needs an API key', 'send the header "Authorization: Bearer <key>" with a key of server.apiKeys');
      }
      const grant = keys.identify(token);
      if (grant === undefined) throw httpError(403, 'AUTH_INVALID_KEY', 'the API key is not valid for this server', 'check the key; the server accepts the keys of its server.apiKeys (KGRAG_API_KEYS)');
      c.set('caller', grant.name);
      c.set('grant', grant);
    } else {
      // Without keys only this machine is served (sameMachineGuard), with every right.
      c.set('caller', `ip:${clientAddress(c)}`);
      c.set('grant', { name: c.get('caller'), workspaces: '*', role: 'admin' });
    }
    const refused = limits.admit(c.get('caller'));
    if (refused) throw httpError(429, 'SERVER_RATE_LIMITED', `more than ${config.requestsPerMinute} requests a minute`, `retry after ${refused.retryAfterSeconds} s`, refused.retryAfterSeconds);
    return next();
  });

  const workspaceOf = (c: Context<ServerEnv>): Promise<ServedWorkspace> => {
    const name = registry.layout === 'single' ? singleWorkspaceName : (c.req.param('workspace') ?? '');
    const grant = c.get('grant');
    // Checked before the workspace is opened: a key cannot even learn whether another tenant's workspace exists.
    if (!grantCovers(grant, name)) {
      throw httpError(403, 'AUTH_WORKSPACE_FORBIDDEN', `the API key "${grant.name}" is not for workspace "${name.slice(0, 80)}"`, 'use a key whose workspaces list it (kgrag keys create --workspaces …)');
    }
    return registry.open(name);
  };
  registerRoutes(app, routes, prefix, { maxJsonBytes: config.maxJsonBytes, maxUploadBytes: config.maxUploadBytes }, workspaceOf);
  registerRoutes(app, ollama, ollamaPrefix, { maxJsonBytes: config.maxJsonBytes, maxUploadBytes: config.maxUploadBytes }, workspaceOf);

  if (options.mcp) {
    const mcp = options.mcp;
    app.all(registry.layout === 'single' ? '/mcp' : `${prefix}/mcp`, async (c) => mcp(await workspaceOf(c), c.get('grant'))(c.req.raw));
  }

  const metrics = options.metrics;
  if (metrics) app.get('/metrics', async (c) => c.body(await metrics.render(), 200, { 'content-type': metrics.contentType }));
  app.get('/openapi.json', (c) => c.json(openapi));
  // Rendered per request: the curl lines name the address the reader used (escaped, as any text of the page).
  app.get('/docs', (c) => c.html(renderApiPage(openapi, new URL(c.req.url).origin)));
  serveExplorerFiles(app, options.webDirectory);

  const problemResponse = (error: unknown, c: Context<ServerEnv>): Response => {
    const { problem, retryAfterSeconds, expected } = problemOf(error, c.get('requestId'));
    if (!expected) logger.error({ requestId: c.get('requestId'), err: error }, 'unexpected error');
    const ollamaClient = ollamaPath.test(c.req.path);
    const headers: Record<string, string> = { 'content-type': ollamaClient ? 'application/json' : 'application/problem+json', 'x-request-id': c.get('requestId') };
    if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
    if (problem.status === 401) headers['www-authenticate'] = 'Bearer realm="kgrag"';
    // Ollama clients read `{"error": "…"}` of a JSON body.
    return new Response(JSON.stringify(ollamaClient ? { error: problem.detail } : problem), { status: problem.status, headers });
  };
  app.notFound((c) => problemResponse(httpError(404, 'SERVER_NOT_FOUND', `no endpoint ${c.req.method} ${c.req.path.slice(0, 200)}`, 'see /docs or /openapi.json for the endpoints'), c));
  app.onError((error, c) => problemResponse(error, c));
  return { app, queries, openapi };
}
