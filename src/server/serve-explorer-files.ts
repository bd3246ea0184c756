import { readFile, stat } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { ServerEnv } from './api-route.js';
import { httpError } from './http-problem.js';

/** The built explorer of the package: `dist/web`, two folders up from this module both in `src/server` and in `dist/server`. */
const packageExplorerDirectory = fileURLToPath(new URL('../../dist/web/', import.meta.url));

/** The paths the explorer's files are served at, which need no API key (the explorer asks for one for its API calls). */
export function isExplorerPath(path: string): boolean {
  return path === '/' || path === '/index.html' || path.startsWith('/assets/');
}

/** The explorer makes no request beyond this server (no CDN, no fonts, no analytics), and no other site may frame it. */
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'";

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/** A path segment of a built asset: letters, digits, `.`, `_`, `-`, not starting with a dot (so never `..`). */
const safeSegment = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** The file under `assets` that a request path names, or undefined for anything that is not a plain relative path. */
function assetFile(assets: string, rawPath: string): string | undefined {
  const segments = rawPath.split('/');
  const decoded: string[] = [];
  for (const segment of segments) {
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    // Decoding may produce `/`, `\` or `..` (from %2F, %5C, %2E): the pattern refuses them all.
    if (!safeSegment.test(name)) return undefined;
    decoded.push(name);
  }
  const file = join(assets, decoded.join('/'));
  const inside = relative(assets, file);
  return inside.length > 0 && !inside.startsWith('..') && !inside.startsWith(sep) ? file : undefined;
}

async function readIfFile(path: string): Promise<Buffer | undefined> {
  try {
    if (!(await stat(path)).isFile()) return undefined;
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

function fileResponse(body: Buffer, headers: Record<string, string>): Response {
  return new Response(new Uint8Array(body), { status: 200, headers: { 'content-length': String(body.byteLength), 'x-content-type-options': 'nosniff', ...headers } });
}

/**
 * Serves the built web explorer from `directory` (the package's `dist/web` by default): `/` and `/index.html` answer its page (revalidated on every load,
 * under a Content-Security-Policy that keeps it offline), `/assets/…` its content-hashed files (cached for a year).
 * A missing build is a 503 whose hint says how to build it; a path that leaves the assets folder, by `..` or any
 * encoding of it, is a 404. Files are read per request, so a rebuild is served without a restart. GET and HEAD.
 */
export function serveExplorerFiles(app: Hono<ServerEnv>, directory: string = packageExplorerDirectory): void {
  const page = async (): Promise<Response> => {
    const html = await readIfFile(join(directory, 'index.html'));
    if (html === undefined) {
      throw httpError(503, 'SERVER_EXPLORER_NOT_BUILT', 'the web explorer is not built: its index.html is missing', 'run `npm run build` in the kgrag package and reload; the API is served meanwhile (see /docs)');
    }
    return fileResponse(html, { 'content-type': contentTypes['.html'] ?? 'text/html', 'cache-control': 'no-cache', 'content-security-policy': contentSecurityPolicy });
  };
  app.get('/', page);
  app.get('/index.html', page);

  const assets = join(directory, 'assets');
  app.get('/assets/*', async (c) => {
    const rawPath = new URL(c.req.url).pathname.slice('/assets/'.length);
    const file = assetFile(assets, rawPath);
    const body = file === undefined ? undefined : await readIfFile(file);
    if (file === undefined || body === undefined) throw httpError(404, 'SERVER_NOT_FOUND', `no explorer file ${c.req.path.slice(0, 200)}`, 'the explorer loads its files from its page at /; rebuild it with `npm run build` if they are missing');
    return fileResponse(body, { 'content-type': contentTypes[extname(file).toLowerCase()] ?? 'application/octet-stream', 'cache-control': 'public, max-age=31536000, immutable' });
  });
}
