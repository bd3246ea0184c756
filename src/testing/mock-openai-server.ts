import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalJson } from '../providers/llm/canonical-json.js';

/**
 * Faults the mock server can inject:
 * - `429`: rate limited, with a `retry-after` header;
 * - `500`: server error;
 * - `timeout`: the request is accepted and never answered (until the client aborts or the server closes);
 * - `malformed-body`: HTTP 200 whose body is not JSON (a proxy error page);
 * - `malformed-json`: a well-formed completion whose content is broken JSON (only when JSON was requested);
 * - `truncated-stream`: an SSE stream cut mid-way without a finish reason or `[DONE]`; for non-streamed
 *   requests, a body cut mid-way (the connection is destroyed);
 * - `oversized-reply`: a runaway reply of `oversizedReplyBytes` (endless by default), written as fast as
 *   the client reads it: content deltas of an SSE stream, the content string of a JSON completion, or the
 *   numbers of an embedding. It stops when the client disconnects. Unlike the others it is not transient, so
 *   `rate` draws it only when it is named in `kinds`.
 */
export type FaultKind = '429' | '500' | 'timeout' | 'malformed-body' | 'malformed-json' | 'truncated-stream' | 'oversized-reply';

/** The transient fault kinds, in a stable order: what `rate` draws from by default; a client that retries recovers from each. */
export const FAULT_KINDS: readonly FaultKind[] = ['429', '500', 'timeout', 'malformed-body', 'malformed-json', 'truncated-stream'];

const allFaultKinds: readonly FaultKind[] = [...FAULT_KINDS, 'oversized-reply'];

/** A chat completion request as the mock received it, passed to `reply`. */
export interface MockChatCompletionRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  /** The `response_format` sent, if any. */
  responseFormat:
    | { type: 'json_object' }
    | { type: 'json_schema'; name?: string; schema?: Record<string, unknown>; strict?: boolean }
    | { type: 'text' }
    | undefined;
  stream: boolean;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  seed?: number;
  stop?: string[];
  /** SHA-256 over everything that determines the reply (not the streaming options). */
  hash: string;
  /** The raw JSON body. */
  body: Record<string, unknown>;
}

/** One HTTP request, as given to `onRequest`. */
export interface MockRecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (`undefined` for GET or an unparseable body). */
  body: unknown;
}

/**
 * One HTTP request once answered, as given to `onResponse`: what the server saw and when. Times are milliseconds
 * since the epoch at sub-millisecond resolution (`performance.timeOrigin + performance.now()`), so a log kept in the
 * server's process lines up with times taken in the client's.
 */
export interface MockAnsweredRequest extends MockRecordedRequest {
  /** The status sent; 0 when the connection closed before a status was sent (a `timeout` fault). */
  status: number;
  /** When the request reached the server, before its body was read. */
  receivedAt: number;
  /** When the last byte of the answer was handed to the socket, or the connection closed unanswered. */
  answeredAt: number;
  /** The assistant content of a chat completion answered with 200 (as sent, content faults applied); else undefined. */
  content?: string;
}

/** Fault injection settings. Decisions are deterministic for a seed and never change successful content. */
export interface MockFaultOptions {
  /** Probability that a request fails, decided by hashing (seed, request hash, attempt number). @default 0 */
  rate?: number;
  /** Kinds drawn from when `rate` fires; kinds that do not apply to a request are skipped. @default all */
  kinds?: readonly FaultKind[];
  /** @default 0 */
  seed?: number;
  /** Faults applied to the first requests, in arrival order, before `rate` is consulted. */
  sequence?: readonly FaultKind[];
  /** Value of the `retry-after` header (seconds) sent with `429`. @default 0 */
  retryAfterSeconds?: number;
  /** Content deltas a `truncated-stream` fault sends before the cut. @default half of them, at least one */
  truncatedStreamDeltas?: number;
  /** Bytes of content an `oversized-reply` fault sends before it ends normally. @default Infinity (until the client disconnects) */
  oversizedReplyBytes?: number;
  /**
   * Most rate-drawn faults for one request hash; later attempts of that request succeed, so a
   * client with this many retries always completes. @default 3
   */
  maxFaultsPerRequest?: number;
}

/** Options of {@link startMockOpenAiServer}. */
export interface MockOpenAiServerOptions {
  /** @default 0 (any free port) */
  port?: number;
  /** Content of the completion; objects are JSON-stringified. @default a short deterministic echo of the request */
  reply?: (request: MockChatCompletionRequest) => string | object | Promise<string | object>;
  /** Vector of one input text. @default a deterministic hash vector of `dimensions` (or 16) components */
  embed?: (text: string) => number[];
  /** Delay before every answer, in ms (real time; lets throughput benchmarks see real overlap). @default 0 */
  latencyMs?: number;
  faults?: MockFaultOptions;
  /** Answer 400 to `response_format: json_schema`, like servers without structured outputs. @default false */
  rejectJsonSchema?: boolean;
  /** Include `usage` in replies (and in the stream when `stream_options.include_usage` is set). @default true */
  reportUsage?: boolean;
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  /** Models served; others get 404 `model_not_found`. @default any model is accepted; `/models` lists `mock-model` */
  models?: readonly string[];
  /** Requests whose estimated prompt tokens exceed this get 400 `context_length_exceeded`. */
  maxContextTokens?: number;
  /** Called for every HTTP request before it is answered (to assert what the client sent). */
  onRequest?: (request: MockRecordedRequest) => void;
  /** Called for every HTTP request once answered (or dropped): a log of what was asked, answered, and when. */
  onResponse?: (request: MockAnsweredRequest) => void;
}

/** Counters of a running mock server. */
export interface MockOpenAiServerStats {
  /** Every HTTP request. */
  requests: number;
  /** Chat completion requests received (faulted or not). */
  completions: number;
  /** Embedding requests received (faulted or not). */
  embeddings: number;
  faults: Record<FaultKind, number>;
  /**
   * Completed (paid) replies per request hash, chat and embeddings; `malformed-json` replies count,
   * since a real server bills them. 1 everywhere means no call was paid twice.
   */
  successByRequestHash: Map<string, number>;
}

/** A running mock server. */
export interface MockOpenAiServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  stats: MockOpenAiServerStats;
  /** Stops the server, dropping open connections (including unanswered `timeout` faults). */
  close(): Promise<void>;
}

type JsonRecord = Record<string, unknown>;

/**
 * Starts a loopback OpenAI-compatible server (`POST /v1/chat/completions` with JSON and SSE,
 * `POST /v1/embeddings`, `GET /v1/models`) with deterministic fault injection, so that the real
 * HTTP adapters are exercised offline.
 *
 * @example
 * ```ts
 * const server = await startMockOpenAiServer({ reply: () => ({ entities: [] }), faults: { sequence: ['429'] } });
 * const model = createOpenAiCompatibleLanguageModel({ baseURL: server.url, modelId: 'mock-model' });
 * // … the first call gets 429, the retry succeeds
 * await server.close();
 * ```
 */
export async function startMockOpenAiServer(options: MockOpenAiServerOptions = {}): Promise<MockOpenAiServer> {
  const faults = options.faults ?? {};
  const stats: MockOpenAiServerStats = {
    requests: 0,
    completions: 0,
    embeddings: 0,
    faults: Object.fromEntries(allFaultKinds.map((kind) => [kind, 0])) as Record<FaultKind, number>,
    successByRequestHash: new Map(),
  };
  const attemptsByHash = new Map<string, number>();
  const faultsByHash = new Map<string, number>();
  const pendingTimers = new Set<NodeJS.Timeout>();
  let sequenceIndex = 0;
  let closed = false;

  const delay = (ms: number): Promise<void> =>
    ms <= 0
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(() => {
            pendingTimers.delete(timer);
            resolve();
          }, ms);
          pendingTimers.add(timer);
        });

  const chooseFault = (hash: string, applicable: readonly FaultKind[]): FaultKind | undefined => {
    const attempt = attemptsByHash.get(hash) ?? 0;
    attemptsByHash.set(hash, attempt + 1);
    const sequence = faults.sequence ?? [];
    if (sequenceIndex < sequence.length) return sequence[sequenceIndex++];
    const rate = faults.rate ?? 0;
    if (rate <= 0) return undefined;
    if ((faultsByHash.get(hash) ?? 0) >= (faults.maxFaultsPerRequest ?? 3)) return undefined;
    if (unitHash(`${faults.seed ?? 0}:${hash}:${attempt}:roll`) >= rate) return undefined;
    const kinds = (faults.kinds ?? FAULT_KINDS).filter((kind) => applicable.includes(kind));
    if (kinds.length === 0) return undefined;
    const kind = kinds[Math.floor(unitHash(`${faults.seed ?? 0}:${hash}:${attempt}:kind`) * kinds.length)];
    if (kind !== undefined) faultsByHash.set(hash, (faultsByHash.get(hash) ?? 0) + 1);
    return kind;
  };

  const countSuccess = (hash: string): void => {
    stats.successByRequestHash.set(hash, (stats.successByRequestHash.get(hash) ?? 0) + 1);
  };

  const sendError = (response: ServerResponse, status: number, error: JsonRecord, headers: Record<string, string> = {}): void => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify({ error }));
  };

  /** Answers a fault that looks the same for every endpoint; returns false for content faults. */
  const sendTransportFault = async (response: ServerResponse, fault: FaultKind): Promise<boolean> => {
    if (fault === 'timeout') return true;
    await delay(options.latencyMs ?? 0);
    if (fault === '429') {
      sendError(
        response,
        429,
        { message: 'Rate limit reached for requests (mock)', type: 'requests', code: 'rate_limit_exceeded' },
        { 'retry-after': String(faults.retryAfterSeconds ?? 0) },
      );
      return true;
    }
    if (fault === '500') {
      sendError(response, 500, { message: 'The server had an error while processing your request (mock)', type: 'server_error' });
      return true;
    }
    if (fault === 'malformed-body') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return true;
    }
    return false;
  };

  /**
   * Writes `head`, then `piece` again and again until `oversizedReplyBytes` are sent or the client is gone,
   * then `tail`. Waits for the socket to drain, so the mock holds no more than one piece in memory.
   */
  const writeOversized = async (response: ServerResponse, head: string, piece: string, tail: string): Promise<void> => {
    const limit = faults.oversizedReplyBytes ?? Number.POSITIVE_INFINITY;
    const gone = once(response, 'close').then(
      () => true,
      () => true,
    );
    const chunk = piece.repeat(Math.max(1, Math.floor(64 * 1024 / piece.length)));
    response.write(head);
    for (let sent = 0; sent < limit && !response.destroyed && !closed; sent += chunk.length) {
      if (response.write(chunk)) continue;
      const drained = once(response, 'drain').then(
        () => false,
        () => true,
      );
      if (await Promise.race([drained, gone])) return;
    }
    if (!response.destroyed) response.end(tail);
  };

  const sendOversizedChat = async (response: ServerResponse, chat: MockChatCompletionRequest): Promise<void> => {
    const id = `chatcmpl-${chat.hash.slice(0, 24)}`;
    if (chat.stream) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const event = (chunk: JsonRecord): string => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: chat.model, ...chunk })}\n\n`;
      await writeOversized(
        response,
        event({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
        event({ choices: [{ index: 0, delta: { content: 'again and '.repeat(100) }, finish_reason: null }] }),
        `${event({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}data: [DONE]\n\n`,
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    await writeOversized(
      response,
      `{"id":"${id}","object":"chat.completion","created":0,"model":${JSON.stringify(chat.model)},"choices":[{"index":0,"message":{"role":"assistant","content":"`,
      'again and ',
      '"},"finish_reason":"stop"}]}',
    );
  };

  /** The chat content each response carries, for `onResponse`. */
  const contentOf = new WeakMap<ServerResponse, string>();

  const handleChat = async (request: IncomingMessage, response: ServerResponse, body: JsonRecord): Promise<void> => {
    stats.completions += 1;
    const chat = toChatRequest(body);
    if (typeof chat === 'string') {
      sendError(response, 400, { message: chat, type: 'invalid_request_error' });
      return;
    }
    if (options.models !== undefined && !options.models.includes(chat.model)) {
      sendError(response, 404, {
        message: `The model \`${chat.model}\` does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        code: 'model_not_found',
      });
      return;
    }
    if (options.rejectJsonSchema === true && chat.responseFormat?.type === 'json_schema') {
      sendError(response, 400, {
        message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
        type: 'invalid_request_error',
        param: 'response_format',
        code: null,
      });
      return;
    }
    const promptTokens = estimateTokens(chat.messages.map((message) => message.content).join('\n')) + 4 * chat.messages.length;
    if (options.maxContextTokens !== undefined && promptTokens > options.maxContextTokens) {
      sendError(response, 400, {
        message: `This model's maximum context length is ${options.maxContextTokens} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      });
      return;
    }

    const wantsJson = chat.responseFormat !== undefined && chat.responseFormat.type !== 'text';
    const applicable: FaultKind[] = ['429', '500', 'timeout', 'malformed-body', 'truncated-stream', 'oversized-reply'];
    if (wantsJson) applicable.push('malformed-json');
    const fault = chooseFault(chat.hash, applicable);
    if (fault !== undefined) stats.faults[fault] += 1;
    if (fault !== undefined && (await sendTransportFault(response, fault))) return;
    if (fault === 'oversized-reply') {
      await sendOversizedChat(response, chat);
      return;
    }

    const produced = options.reply === undefined ? defaultReply(chat) : await options.reply(chat);
    let content = typeof produced === 'string' ? produced : JSON.stringify(produced);
    let finishReason = 'stop';
    if (chat.maxTokens !== undefined && estimateTokens(content) > chat.maxTokens) {
      content = content.slice(0, chat.maxTokens * 4);
      finishReason = 'length';
    }
    if (fault === 'malformed-json') content = breakJson(content);
    await delay(options.latencyMs ?? 0);

    const usage = { prompt_tokens: promptTokens, completion_tokens: estimateTokens(content), total_tokens: promptTokens + estimateTokens(content) };
    const id = `chatcmpl-${chat.hash.slice(0, 24)}`;
    contentOf.set(response, content);
    const includeUsage = options.reportUsage !== false;

    if (chat.stream) {
      const streamOptions = body['stream_options'];
      const streamUsage =
        includeUsage && typeof streamOptions === 'object' && streamOptions !== null && (streamOptions as JsonRecord)['include_usage'] === true;
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const send = (chunk: JsonRecord): void => {
        response.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: chat.model, ...chunk })}\n\n`);
      };
      const pieces = splitIntoPieces(content, 4);
      send({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      if (fault === 'truncated-stream') {
        const sent = faults.truncatedStreamDeltas ?? Math.max(1, Math.floor(pieces.length / 2));
        for (const piece of pieces.slice(0, sent)) {
          send({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
        }
        response.end();
        return;
      }
      for (const piece of pieces) send({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      send({ choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
      if (streamUsage) send({ choices: [], usage });
      response.end('data: [DONE]\n\n');
      countSuccess(chat.hash);
      return;
    }

    const payload = JSON.stringify({
      id,
      object: 'chat.completion',
      created: 0,
      model: chat.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
      ...(includeUsage ? { usage } : {}),
    });
    if (fault === 'truncated-stream') {
      const bytes = Buffer.from(payload);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
      response.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => request.socket.destroy());
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(payload);
    countSuccess(chat.hash);
  };

  const handleEmbeddings = async (response: ServerResponse, body: JsonRecord): Promise<void> => {
    stats.embeddings += 1;
    const model = typeof body['model'] === 'string' ? body['model'] : '';
    const rawInput = body['input'];
    const inputs = typeof rawInput === 'string' ? [rawInput] : Array.isArray(rawInput) ? rawInput : undefined;
    if (inputs === undefined || inputs.length === 0 || inputs.some((input) => typeof input !== 'string' || input === '')) {
      sendError(response, 400, { message: "'$.input' is invalid: expected non-empty strings", type: 'invalid_request_error' });
      return;
    }
    if (options.models !== undefined && !options.models.includes(model)) {
      sendError(response, 404, { message: `The model \`${model}\` does not exist.`, type: 'invalid_request_error', code: 'model_not_found' });
      return;
    }
    const dimensions = typeof body['dimensions'] === 'number' ? body['dimensions'] : undefined;
    const hash = sha256(canonicalJson({ path: 'embeddings', model, input: inputs, dimensions }));
    const fault = chooseFault(hash, ['429', '500', 'timeout', 'malformed-body', 'oversized-reply']);
    if (fault !== undefined) {
      stats.faults[fault] += 1;
      if (fault === 'oversized-reply') {
        response.writeHead(200, { 'content-type': 'application/json' });
        await writeOversized(response, `{"object":"list","model":${JSON.stringify(model)},"data":[{"object":"embedding","index":0,"embedding":[0.5`, ',0.5', ']}]}');
      } else {
        await sendTransportFault(response, fault);
      }
      return;
    }
    await delay(options.latencyMs ?? 0);
    const base64 = body['encoding_format'] === 'base64';
    const data = (inputs as string[]).map((text, index) => {
      const vector = options.embed === undefined ? hashVector(text, dimensions ?? 16) : options.embed(text);
      return {
        object: 'embedding',
        index,
        embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
      };
    });
    const tokens = estimateTokens((inputs as string[]).join(' '));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
    countSuccess(hash);
  };

  const server = createServer((request, response) => {
    stats.requests += 1;
    const receivedAt = performance.timeOrigin + performance.now();
    void handle(request, response, receivedAt).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, { message: `mock server failure: ${String(error)}`, type: 'server_error' });
      else response.destroy();
    });
  });

  const handle = async (request: IncomingMessage, response: ServerResponse, receivedAt: number): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const text = request.method === 'POST' ? await readBody(request) : '';
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const recorded: MockRecordedRequest = { method: request.method ?? 'GET', path, headers: request.headers, body };
    options.onRequest?.(recorded);
    const { onResponse } = options;
    if (onResponse !== undefined) {
      let reported = false;
      const report = (): void => {
        if (reported) return;
        reported = true;
        const content = response.statusCode === 200 ? contentOf.get(response) : undefined;
        const status = response.headersSent ? response.statusCode : 0;
        onResponse({ ...recorded, status, receivedAt, answeredAt: performance.timeOrigin + performance.now(), ...(content === undefined ? {} : { content }) });
      };
      response.once('finish', report);
      response.once('close', report);
    }

    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendError(response, 401, { message: 'Incorrect API key provided (mock).', type: 'invalid_request_error', code: 'invalid_api_key' });
      return;
    }
    if (request.method === 'GET' && path === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          object: 'list',
          data: (options.models ?? ['mock-model']).map((id) => ({ id, object: 'model', created: 0, owned_by: 'kgrag-mock' })),
        }),
      );
      return;
    }
    if (request.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/embeddings')) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        sendError(response, 400, { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error' });
        return;
      }
      if (path === '/v1/chat/completions') await handleChat(request, response, body as JsonRecord);
      else await handleEmbeddings(response, body as JsonRecord);
      return;
    }
    sendError(response, 404, { message: `Unknown request URL: ${request.method ?? ''} ${path}`, type: 'invalid_request_error' });
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    stats,
    close: async () => {
      if (closed) return;
      closed = true;
      for (const timer of pendingTimers) clearTimeout(timer);
      pendingTimers.clear();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
    },
  };
}

function toChatRequest(body: JsonRecord): MockChatCompletionRequest | string {
  const model = body['model'];
  const rawMessages = body['messages'];
  if (typeof model !== 'string' || !Array.isArray(rawMessages) || rawMessages.length === 0) {
    return "'model' (string) and 'messages' (non-empty array) are required";
  }
  const messages = rawMessages.map((message: unknown) => {
    const record = (typeof message === 'object' && message !== null ? message : {}) as JsonRecord;
    const content = record['content'];
    return {
      role: typeof record['role'] === 'string' ? record['role'] : 'user',
      content: typeof content === 'string' ? content : Array.isArray(content) ? content.map(partText).join('') : '',
    };
  });
  const format = body['response_format'] as JsonRecord | undefined;
  let responseFormat: MockChatCompletionRequest['responseFormat'];
  if (format?.['type'] === 'json_object') responseFormat = { type: 'json_object' };
  else if (format?.['type'] === 'text') responseFormat = { type: 'text' };
  else if (format?.['type'] === 'json_schema') {
    const spec = (format['json_schema'] ?? {}) as JsonRecord;
    responseFormat = {
      type: 'json_schema',
      ...(typeof spec['name'] === 'string' ? { name: spec['name'] } : {}),
      ...(typeof spec['schema'] === 'object' && spec['schema'] !== null ? { schema: spec['schema'] as JsonRecord } : {}),
      ...(typeof spec['strict'] === 'boolean' ? { strict: spec['strict'] } : {}),
    };
  }
  const numberOf = (key: string): number | undefined => (typeof body[key] === 'number' ? (body[key] as number) : undefined);
  const stop = body['stop'];
  const request: MockChatCompletionRequest = {
    model,
    messages,
    responseFormat,
    stream: body['stream'] === true,
    hash: '',
    body,
  };
  const temperature = numberOf('temperature');
  const maxTokens = numberOf('max_tokens') ?? numberOf('max_completion_tokens');
  const topP = numberOf('top_p');
  const seed = numberOf('seed');
  if (temperature !== undefined) request.temperature = temperature;
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  if (topP !== undefined) request.topP = topP;
  if (seed !== undefined) request.seed = seed;
  if (Array.isArray(stop)) request.stop = stop.filter((item): item is string => typeof item === 'string');
  else if (typeof stop === 'string') request.stop = [stop];
  request.hash = sha256(
    canonicalJson({
      path: 'chat',
      model,
      messages,
      responseFormat,
      temperature,
      maxTokens,
      topP,
      seed,
      stop: request.stop,
    }),
  );
  return request;
}

function partText(part: unknown): string {
  if (typeof part === 'object' && part !== null && typeof (part as JsonRecord)['text'] === 'string') return (part as JsonRecord)['text'] as string;
  return '';
}

function defaultReply(request: MockChatCompletionRequest): string {
  const lastUser = [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  const excerpt = lastUser.replace(/\s+/g, ' ').trim().slice(0, 60);
  const tag = request.hash.slice(0, 8);
  if (request.responseFormat !== undefined && request.responseFormat.type !== 'text') return JSON.stringify({ echo: excerpt, id: tag });
  return `mock reply ${tag}: ${excerpt}`;
}

/** Cuts a JSON text so that it no longer parses (a model that stopped mid-object). */
function breakJson(content: string): string {
  return content.slice(0, Math.max(1, Math.min(content.length - 1, Math.floor(content.length * 0.6))));
}

function splitIntoPieces(text: string, count: number): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A number in [0, 1) derived from a string: the fault dice, deterministic per seed and request. */
function unitHash(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

function hashVector(text: string, dimensions: number): number[] {
  const vector: number[] = [];
  for (let block = 0; vector.length < dimensions; block += 1) {
    const digest = createHash('sha256').update(`${block}:${text}`).digest();
    for (let offset = 0; offset + 2 <= digest.length && vector.length < dimensions; offset += 2) {
      vector.push(digest.readInt16BE(offset) / 32768);
    }
  }
  return vector;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
