import type { Context, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { httpError } from './http-problem.js';
import { type KeyGrant, type KeyRole, roleAllows } from './api-keys.js';
import type { ServedWorkspace } from './workspace-registry.js';

/** Values the server's middleware sets on every request. */
export interface ServerVariables {
  requestId: string;
  /** Who is calling: the key's name (`key-N`) with API keys, else `ip:<address>`. */
  caller: string;
  /** What the caller may reach: its key's workspaces and role (everything without keys: this machine only). */
  grant: KeyGrant;
}

export type ServerEnv = { Variables: ServerVariables };

/** A response of a route, for the OpenAPI document. */
export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** @default application/json */
  contentType?: string;
}

/** What a route's handler receives: its validated input and, for workspace routes, the workspace. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  workspace: ServedWorkspace;
}

/**
 * One endpoint: its path (hono syntax, relative to the workspace prefix unless `global`), the zod schemas that
 * validate its input, and its responses. The same definitions register the handlers and generate `/openapi.json`,
 * so the document cannot drift from what the server accepts.
 */
export interface ApiRoute<P = unknown, Q = unknown, B = unknown> {
  method: 'get' | 'post' | 'delete';
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** A route outside the workspace prefix (`/health`, `/v1/workspaces`). */
  global?: boolean;
  /** No API key needed (`/health`). */
  public?: boolean;
  /**
   * The role a key needs (`api-keys.ts`). @default `read` for GET, else `write`: a POST that only asks (a query, a
   * chat) says `read`.
   */
  role?: KeyRole;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** JSON body schema; `multipart` routes also accept `multipart/form-data` (validated by the handler). */
  body?: z.ZodType<B>;
  multipart?: boolean;
  responses: Record<number, RouteResponse>;
  handler: (c: Context<ServerEnv>, input: RouteInput<P, Q, B>) => Response | Promise<Response>;
}

/** Keeps a route's type parameters while collecting routes of different shapes in one list. */
export function defineRoute<P, Q, B>(route: ApiRoute<P, Q, B>): ApiRoute {
  return route as unknown as ApiRoute;
}

/** Body size limits of {@link registerRoutes}. */
export interface BodyLimits {
  maxJsonBytes: number;
  maxUploadBytes: number;
}

function invalid(what: string, error: z.ZodError): Error {
  const problems = error.issues.slice(0, 5).map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  return httpError(400, 'SERVER_INVALID_REQUEST', `invalid ${what}: ${problems.join('; ')}`, 'see /openapi.json for the expected shape');
}

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, what: string): T {
  if (schema === undefined) return undefined as T;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(what, parsed.error);
  return parsed.data;
}

/**
 * The key path of the first `__proto__` key in a parsed JSON value, or undefined. JSON.parse keeps such a key as an
 * own property, which zod then drops without a word: `params.__proto__` would be accepted and ignored, where the
 * CLI refuses `-p __proto__.k=1`. Walked with a stack: a deeply nested body must not overflow the call stack.
 */
function prototypeKeyPath(value: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    const node = item.value as Record<string, unknown>;
    if (!Array.isArray(node) && Object.hasOwn(node, '__proto__')) return `${item.path}__proto__`;
    for (const key of Object.keys(node)) stack.push({ value: node[key], path: `${item.path}${key}.` });
  }
  return undefined;
}

async function readJson(c: Context<ServerEnv>): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw httpError(415, 'SERVER_UNSUPPORTED_MEDIA_TYPE', `expected a JSON body (content-type: application/json), got "${type.slice(0, 80) || 'none'}"`, 'send the body as JSON with content-type: application/json');
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw httpError(400, 'SERVER_INVALID_JSON', 'the request body is not valid JSON', 'check the body with a JSON validator');
  }
  const bad = prototypeKeyPath(body);
  if (bad !== undefined) {
    throw httpError(400, 'SERVER_INVALID_REQUEST', `invalid body: ${bad}: "__proto__" cannot be a key (it names an object's prototype, not a field or parameter)`, 'remove the key; see /openapi.json for the expected shape');
  }
  return body;
}

function limitExceeded(limit: number, what: string): Error {
  return httpError(413, 'SERVER_BODY_TOO_LARGE', `the ${what} is larger than the server accepts (${limit} bytes)`, `send less per request, or raise server.${what === 'upload' ? 'maxUploadBytes' : 'maxJsonBytes'}`);
}

/**
 * Refuses a body over `maxSize` bytes with 413. A declared length is checked without touching the body: reading
 * `request.body` makes @hono/node-server build a full web `Request` and stream, which cost a fifth of a fast query's
 * time under load, where its own `json()` reads the socket directly. Only a body without a length (chunked) is
 * counted as it streams, by hono's middleware.
 */
function limitBody(maxSize: number, what: string): MiddlewareHandler<ServerEnv> {
  const streamed = bodyLimit({ maxSize, onError: () => { throw limitExceeded(maxSize, what); } });
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(length) > maxSize) throw limitExceeded(maxSize, what);
      return next();
    }
    return streamed(c, next);
  };
}

/**
 * Registers routes on `app` under `prefix`. `workspaceOf` finds the workspace of a request (from the path in the
 * folder layout); global routes get none.
 */
export function registerRoutes(
  app: Hono<ServerEnv>,
  routes: readonly ApiRoute[],
  prefix: string,
  limits: BodyLimits,
  workspaceOf: (c: Context<ServerEnv>) => Promise<ServedWorkspace>,
): void {
  for (const route of routes) {
    const path = route.global ? route.path : `${prefix}${route.path}`;
    const jsonLimit = limitBody(limits.maxJsonBytes, 'JSON body');
    const uploadLimit = limitBody(limits.maxUploadBytes, 'upload');
    const isUpload = (c: Context<ServerEnv>): boolean => route.multipart === true && /^multipart\/form-data\b/i.test(c.req.header('content-type') ?? '');
    app.on(route.method.toUpperCase(), path, async (c, next) => {
      return (isUpload(c) ? uploadLimit : jsonLimit)(c, next);
    }, async (c) => {
      const grant = c.get('grant');
      const needed = route.role ?? (route.method === 'get' ? 'read' : 'write');
      if (!roleAllows(grant.role, needed)) {
        throw httpError(403, 'AUTH_ROLE_FORBIDDEN', `the API key "${grant.name}" has the role ${grant.role}, and ${route.method.toUpperCase()} ${route.path} needs ${needed}`, 'use a key with that role (kgrag keys create --role …)');
      }
      const params = parse(route.params, c.req.param(), 'path');
      const query = parse(route.query, c.req.query(), 'query string');
      const body = route.body === undefined || isUpload(c) ? undefined : parse(route.body, await readJson(c), 'body');
      const workspace = route.global ? (undefined as unknown as ServedWorkspace) : await workspaceOf(c);
      return route.handler(c, { params, query, body, workspace });
    });
  }
}
