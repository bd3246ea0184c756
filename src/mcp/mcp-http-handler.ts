import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { formatErrorLine } from '../core/format-error-line.js';
import { createMcpServer, type McpTarget } from './create-mcp-server.js';

/** A JSON-RPC error that answers a request the MCP endpoint cannot serve (no request id is known for it). */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * The MCP server over streamable HTTP, stateless: each POST gets its own server and transport, which answer it with
 * JSON and are closed after. Nothing is kept between requests, so any number of clients can call in parallel and
 * a restart loses nothing. Without sessions there is no stream for the server to push on, so GET (and DELETE, which
 * ends a session) are 405. `target` is asked for the workspace per request; authentication happens before.
 */
export function createMcpHttpHandler(target: () => Promise<McpTarget>): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'POST') return jsonRpcError(405, -32000, 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC requests with POST', { allow: 'POST' });
    let server: ReturnType<typeof createMcpServer> | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      server = createMcpServer(await target());
      await server.connect(transport);
      // A JSON answer waits for the tool; when the client gives up (or a deadline aborts the request), closing the
      // server in `finally` aborts the tool's work (a query's signal) instead of finishing it for nobody.
      const abandoned = new Promise<Response>((resolve) => {
        const answer = (): void => resolve(jsonRpcError(503, -32000, 'the request was aborted before the tool finished'));
        if (request.signal.aborted) answer();
        else request.signal.addEventListener('abort', answer, { once: true });
      });
      return await Promise.race([transport.handleRequest(request), abandoned]);
    } catch (error) {
      return jsonRpcError(500, -32603, formatErrorLine(error));
    } finally {
      await (server ?? transport).close();
    }
  };
}
