import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import oxigraph from 'oxigraph';
import type { Store } from 'oxigraph';

/*
 * A SPARQL 1.1 Protocol endpoint (https://www.w3.org/TR/sparql11-protocol/) on 127.0.0.1 over an in-memory
 * oxigraph store, so the SPARQL knowledge graph is tested against a real query engine without the network.
 * It answers queries only: SPARQL Update is refused with 400, which makes injection tests meaningful (a
 * successful injection would have to turn up as a query error or as a changed store).
 */

/** One request the endpoint received, in arrival order (also the ones that were faulted or refused). */
export interface RecordedSparqlRequest {
  method: string;
  /** The query text, or `''` when none could be read. */
  query: string;
  contentType: string | undefined;
  accept: string | undefined;
  userAgent: string | undefined;
  /** The HTTP status the endpoint answered with. */
  status: number;
}

/** An injected failure: the next `count` requests (whose query `match`es) get `status` instead of an answer. */
export interface SparqlEndpointFault {
  status: number;
  /** @default 1 */
  count?: number;
  /** Only requests whose query text this accepts are failed; others pass. @default every request */
  match?: (query: string) => boolean;
  /** Value of the `Retry-After` header in seconds. @default 0 for 429 and 503, none otherwise */
  retryAfterSeconds?: number;
  /** Response body. @default a short text naming the status */
  body?: string;
}

/** Options of {@link startOxigraphSparqlEndpoint}. */
export interface OxigraphSparqlEndpointOptions {
  /** Turtle loaded into the store. */
  turtle: string;
  /** Faults applied in order, before any set later with `failNext`. */
  faults?: readonly SparqlEndpointFault[];
}

/** A running loopback endpoint. */
export interface OxigraphSparqlEndpoint {
  /** `http://127.0.0.1:<port>/sparql`. */
  url: string;
  store: Store;
  requests: RecordedSparqlRequest[];
  /** Fails the next `count` (matching) requests with `status`. */
  failNext(count: number, status: number, options?: Omit<SparqlEndpointFault, 'status' | 'count'>): void;
  /** Stops the server; calling it again returns the same promise. */
  close(): Promise<void>;
}

const RESULTS_JSON = 'application/sparql-results+json';

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The query of a request, or the reason it has none. */
async function readQuery(request: IncomingMessage, url: URL): Promise<{ query: string } | { refused: string }> {
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (request.method === 'GET') {
    if (url.searchParams.has('update')) return { refused: 'SPARQL Update is not accepted by this endpoint' };
    const query = url.searchParams.get('query');
    return query === null ? { refused: 'missing "query" parameter' } : { query };
  }
  if (request.method !== 'POST') return { refused: `method ${request.method ?? '?'} is not supported` };
  const body = await readBody(request);
  if (contentType === 'application/sparql-update') return { refused: 'SPARQL Update is not accepted by this endpoint' };
  if (contentType === 'application/sparql-query') return { query: body };
  if (contentType === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(body);
    if (form.has('update')) return { refused: 'SPARQL Update is not accepted by this endpoint' };
    const query = form.get('query');
    return query === null ? { refused: 'missing "query" parameter' } : { query };
  }
  return { refused: `unsupported content type "${contentType}"` };
}

/** Runs a SELECT or ASK query (the forms the SPARQL graph sends), answered in SPARQL JSON. */
function evaluate(store: Store, query: string): { contentType: string; body: string } {
  return { contentType: RESULTS_JSON, body: store.query(query, { results_format: RESULTS_JSON }) as string };
}

/** Starts the endpoint on 127.0.0.1 at a free port, with `turtle` loaded. */
export async function startOxigraphSparqlEndpoint(options: OxigraphSparqlEndpointOptions): Promise<OxigraphSparqlEndpoint> {
  const store = new oxigraph.Store();
  store.load(options.turtle, { format: 'text/turtle' });
  const requests: RecordedSparqlRequest[] = [];
  const faults: Array<SparqlEndpointFault & { remaining: number }> = (options.faults ?? []).map((fault) => ({ ...fault, remaining: fault.count ?? 1 }));

  const send = (response: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): number => {
    response.writeHead(status, { 'content-type': contentType, ...headers });
    response.end(body);
    return status;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const record: RecordedSparqlRequest = {
      method: request.method ?? '',
      query: '',
      contentType: request.headers['content-type'],
      accept: request.headers.accept,
      userAgent: request.headers['user-agent'],
      status: 0,
    };
    requests.push(record);
    if (url.pathname !== '/sparql') {
      record.status = send(response, 404, 'text/plain', `no endpoint at ${url.pathname}; use /sparql`);
      return;
    }
    const read = await readQuery(request, url);
    if ('refused' in read) {
      record.status = send(response, 400, 'text/plain', `Bad request: ${read.refused}`);
      return;
    }
    record.query = read.query;
    const fault = faults.find((candidate) => candidate.remaining > 0 && (candidate.match?.(read.query) ?? true));
    if (fault) {
      fault.remaining -= 1;
      const retryAfter = fault.retryAfterSeconds ?? (fault.status === 429 || fault.status === 503 ? 0 : undefined);
      record.status = send(response, fault.status, 'text/plain', fault.body ?? `Injected failure: HTTP ${fault.status}`, retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) });
      return;
    }
    let answer: { contentType: string; body: string };
    try {
      answer = evaluate(store, read.query);
    } catch (error) {
      // Real endpoints answer a query they cannot parse with 400 and the parser's message.
      record.status = send(response, 400, 'text/plain', `Query parse or evaluation error:\n${String(error)}\n\nQuery:\n${read.query}`);
      return;
    }
    record.status = send(response, 200, answer.contentType, answer.body);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, 'text/plain', `Endpoint failure: ${String(error)}`);
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}/sparql`,
    store,
    requests,
    failNext(count, status, faultOptions = {}) {
      faults.push({ ...faultOptions, status, count, remaining: count });
    },
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
