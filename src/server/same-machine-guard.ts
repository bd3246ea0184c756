import type { MiddlewareHandler } from 'hono';
import type { ServerEnv } from './api-route.js';
import { httpError } from './http-problem.js';
import { isLoopback } from './is-loopback.js';

/** Methods that only read: every other method may change the index, the uploads or the jobs, or spend the LLM budget. */
const readingMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A header value as a message may quote it: its first 100 characters. */
function shown(value: string): string {
  return value.length > 100 ? `${value.slice(0, 100)}…` : value;
}

/** The host name of a Host header value (`localhost:8080` → `localhost`, `[::1]:8080` → `[::1]`), or undefined if it is none. */
function hostnameOf(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}`);
    return url.host === host.toLowerCase() || url.host === host.toLowerCase().replace(/:80$/, '') ? url.hostname : undefined;
  } catch {
    return undefined;
  }
}

/** `scheme://host[:port]` as the Origin header writes it (lower case, no default port), or undefined for `null` and garbage. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * What a server without API keys lets through, since any web page the user opens could otherwise use it: requests
 * addressed to this machine only — a Host of `localhost`, `127.x.x.x` or `[::1]`, with or without a port — so a page
 * that points its own name at 127.0.0.1 (DNS rebinding) is refused; and writes (any method but GET, HEAD, OPTIONS)
 * only without an `Origin` (curl, SDKs) or from the server's own origin (its web explorer) or one of `corsOrigins`,
 * never with `Sec-Fetch-Site: cross-site` or `same-site` (another page, even on another port of this machine).
 * `*.localhost` names are refused: not every resolver keeps them on this machine.
 */
export function sameMachineGuard(corsOrigins: readonly string[]): MiddlewareHandler<ServerEnv> {
  const listed = new Set(corsOrigins.map(originOf).filter((origin) => origin !== undefined));
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const hostname = hostnameOf(host);
    if (hostname === undefined || !isLoopback(hostname)) {
      throw httpError(
        403,
        'SERVER_HOST_NOT_ALLOWED',
        `this server has no API key, so it answers only requests addressed to this machine (localhost, 127.x.x.x or [::1]), not to the Host "${shown(host)}": a web page must not reach it under another name (DNS rebinding)`,
        'open it as http://127.0.0.1:<port>/ or http://localhost:<port>/ (a proxy on this machine must pass that Host on); to serve other names, set an API key (server.apiKeys or KGRAG_API_KEYS) and send it',
      );
    }
    if (!readingMethods.has(c.req.method)) {
      const origin = c.req.header('origin');
      const site = c.req.header('sec-fetch-site');
      const allowed = origin !== undefined && listed.has(originOf(origin) ?? '');
      const ownOrigin = originOf(`http://${host}`);
      const crossOrigin = origin !== undefined && !allowed && originOf(origin) !== ownOrigin;
      const crossSite = (site === 'cross-site' || site === 'same-site') && !allowed;
      if (crossOrigin || crossSite) {
        const from = origin === undefined ? `a page of another site (Sec-Fetch-Site: ${site})` : `the page at "${shown(origin)}"`;
        throw httpError(
          403,
          'SERVER_CROSS_SITE_WRITE',
          `this server has no API key, so it accepts ${c.req.method} only from its own pages (${ownOrigin ?? 'its origin'}) and from programs that send no Origin, not from ${from}: any site the user visits could otherwise add, replace or delete documents`,
          'use the explorer this server serves at /, send the request without an Origin header (curl, SDKs), list the origin in server.corsOrigins, or set an API key (server.apiKeys or KGRAG_API_KEYS) and send it',
        );
      }
    }
    return next();
  };
}
