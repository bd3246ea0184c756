import { streamSSE } from 'hono/streaming';
import type { Kgrag } from '../../api/create-kgrag.js';
import type { QueryRequest, QueryResult } from '../../methods/query-engine.js';
import { defineRoute } from '../api-route.js';
import { problemOf } from '../http-problem.js';
import type { QueryGate } from '../query-gate.js';
import { type QueryRequestBody, queryRequestSchema } from '../request-schemas.js';
import { problemResponse, queryResultSchema } from '../response-schemas.js';

/** `method` and `variant` of a request as the engine names them (`basic:bm25`). */
export function methodOf(kgrag: Kgrag, method: string | undefined, variant: string | undefined): string | undefined {
  if (variant === undefined) return method;
  return `${(method ?? kgrag.config.query.method).split(':')[0] ?? ''}:${variant}`;
}

/** The engine's options for a request body. */
export function queryOptionsOf(kgrag: Kgrag, body: QueryRequestBody): Omit<QueryRequest, 'question'> {
  const method = methodOf(kgrag, body.method, body.variant);
  return {
    ...(method === undefined ? {} : { method }),
    ...(body.params === undefined ? {} : { params: body.params }),
    ...(body.topK === undefined ? {} : { topK: body.topK }),
    ...(body.contextOnly === undefined ? {} : { contextOnly: body.contextOnly }),
  };
}

/**
 * The result as the API returns it: without `context.text` unless asked for (or context-only, where the text is the
 * point). The packed text repeats the passages and records of `context` as the LLM reads them, and was a third of a
 * local or KGP response.
 */
function resultBody(result: QueryResult, body: QueryRequestBody): QueryResult | (Omit<QueryResult, 'context'> & { context: Omit<QueryResult['context'], 'text'> }) {
  if (body.includeContextText === true || body.contextOnly === true) return result;
  const { text: _text, ...context } = result.context;
  return { ...result, context };
}

/** `POST /query`: one answer as JSON, or streamed as server-sent events. */
export function queryRoutes(gate: QueryGate) {
  return [
    defineRoute({
      method: 'post',
      role: 'read',
      path: '/query',
      tag: 'query',
      summary: 'Answer a question with one method (JSON, or server-sent events with `stream: true`)',
      description:
        'With `stream: true` the answer comes as events: `text` (`{"delta"}` as the LLM writes), `progress` (long steps such as Tree-of-Traversals expansions), then one `result` with the whole result (answer, citations, context, trace, usage) — or one `error` with a problem document.',
      body: queryRequestSchema,
      responses: {
        200: { description: 'The result (or an event stream with `stream: true`)', schema: queryResultSchema },
        400: problemResponse('Invalid request'),
        404: problemResponse('Unknown method or variant'),
        409: problemResponse('The index is not built for this method yet'),
        429: problemResponse('Too many requests or queries; see Retry-After'),
        504: problemResponse('The query passed the deadline'),
      },
      handler: async (c, { body, workspace }) => {
        const { kgrag } = workspace;
        const options = queryOptionsOf(kgrag, body);
        const slot = gate.admit(c.get('caller'));
        if (!body.stream) {
          const result = await slot.run(c.req.raw.signal, (signal) => kgrag.query(body.question, { ...options, signal }));
          return c.json(resultBody(result, body));
        }
        return streamSSE(c, async (stream) => {
          const client = new AbortController();
          stream.onAbort(() => client.abort());
          try {
            const result = await slot.run(client.signal, (signal) =>
              kgrag.query(body.question, {
                ...options,
                signal,
                onText: (delta) => void stream.writeSSE({ event: 'text', data: JSON.stringify({ delta }) }),
                onProgress: (event) => void stream.writeSSE({ event: 'progress', data: JSON.stringify(event) }),
              }),
            );
            await stream.writeSSE({ event: 'result', data: JSON.stringify(resultBody(result, body)) });
          } catch (error) {
            if (!stream.aborted) await stream.writeSSE({ event: 'error', data: JSON.stringify(problemOf(error, c.get('requestId')).problem) });
          }
        });
      },
    }),
  ];
}
