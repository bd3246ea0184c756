import { APICallError, InvalidResponseDataError, JSONParseError, TypeValidationError } from 'ai';
import { errorMessage } from '../../core/error-message.js';
import { redactUrl } from '../../core/redact-url.js';
import { LlmCallError } from './llm-call-error.js';
import { parseRetryAfter } from './parse-retry-after.js';
import type { ResponseHeaders } from './parse-retry-after.js';
import { isAbortError } from './is-abort-error.js';

/** What was being called, so that messages and hints name the right setting. */
export interface ProviderCallContext {
  /** `llm` for chat completions, `embeddings` for `/embeddings`; also the config section named in hints. */
  service: 'llm' | 'embeddings';
  /** The endpoint, for messages; redacted (see `redactUrl`) before it is shown. */
  baseURL: string;
  modelId: string;
  /** Whether the failure happened while reading a streamed reply (cuts become `LLM_TRUNCATED_STREAM`). */
  streaming?: boolean;
}

/** A non-2xx (or unparseable 2xx) HTTP response. */
export interface HttpFailure {
  status: number;
  headers?: ResponseHeaders;
  body?: string;
  cause?: unknown;
}

const CONTEXT_LENGTH_PATTERN =
  /context[ _-]?length|context window|maximum context|too many tokens|prompt is too long|reduce the length|input is too long|exceeds the model/i;
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Network errors that mean no server answers at the configured address: nothing listens on the port
 * (`ECONNREFUSED`), or the host name does not resolve (`ENOTFOUND`, and `EAI_AGAIN` when no resolver answers).
 * They are the user's configuration (a server not started, a wrong port or host), not a passing fault, so
 * they get one short retry (a server that is just starting) instead of six backoffs over half a minute.
 * Resets, timeouts and unreachable networks stay fully retryable: those are what a flaky connection does.
 */
const UNREACHABLE_SERVER_CODES = new Map([
  ['ECONNREFUSED', 'connection refused (nothing is listening there)'],
  ['ENOTFOUND', 'the host name does not resolve (ENOTFOUND)'],
  ['EAI_AGAIN', 'the host name could not be resolved (EAI_AGAIN: no DNS answer)'],
]);

/**
 * Turns whatever an SDK or `fetch` threw into an {@link LlmCallError} with a status, a retry verdict
 * and a hint. Abort errors and existing LlmCallErrors are returned unchanged, also when the SDK wrapped
 * one of ours (a reply cut off by {@link limitReplySize}) in its own error. Secrets in URLs (the base
 * URL's user and password, query keys) never reach the message.
 */
export function toLlmCallError(error: unknown, callContext: ProviderCallContext): unknown {
  if (LlmCallError.isInstance(error) || isAbortError(error)) return error;
  const ours = findLlmCallError(error);
  if (ours !== undefined) return ours;
  const context = redactedContext(callContext);

  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === undefined) return connectionFailed(error, context);
    const successful = status >= 200 && status < 300;
    if (successful && (context.streaming || error.isRetryable)) return cutReply(error, context);
    return httpFailureToLlmCallError({ status, headers: error.responseHeaders, body: error.responseBody, cause: error }, context);
  }

  if (InvalidResponseDataError.isInstance(error) && /without a finish reason/i.test(error.message)) {
    return truncatedStream(error, context);
  }
  if (JSONParseError.isInstance(error) || TypeValidationError.isInstance(error) || InvalidResponseDataError.isInstance(error)) {
    return new LlmCallError(`${label(context)} returned a response that is not a valid OpenAI-compatible reply`, {
      code: 'LLM_MALFORMED_RESPONSE',
      retryable: true,
      hint: `Check that ${context.service}.baseURL (${context.baseURL}) points at an OpenAI-compatible API, not a web page or proxy error page`,
      cause: error,
    });
  }
  if (findNetworkErrorCode(error) !== undefined || (error instanceof TypeError && /terminated|fetch failed/i.test(error.message))) {
    return context.streaming || /terminated/i.test(errorMessage(error)) ? cutReply(error, context) : connectionFailed(error, context);
  }
  return new LlmCallError(`${label(context)} failed: ${redactUrl(errorMessage(error))}`, {
    code: 'LLM_REQUEST_FAILED',
    retryable: false,
    cause: error,
  });
}

/** Maps an HTTP failure to an {@link LlmCallError}; shared by the chat adapter and the embedder. */
export function httpFailureToLlmCallError(failure: HttpFailure, callContext: ProviderCallContext): LlmCallError {
  const { status } = failure;
  const context = redactedContext(callContext);
  const body = failure.body === undefined ? undefined : redactUrl(failure.body.slice(0, 2000));
  const serverMessage = extractServerMessage(failure.body);
  const said = serverMessage === undefined ? '' : `: ${serverMessage}`;
  const retryAfterMs = parseRetryAfter(failure.headers);
  const common = {
    status,
    cause: failure.cause,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    details: { baseURL: context.baseURL, modelId: context.modelId, ...(body === undefined ? {} : { body }) },
  };
  const section = context.service;

  if (status === 401 || status === 403) {
    return new LlmCallError(`${label(context)} was rejected with HTTP ${status}${said}`, {
      ...common,
      code: 'LLM_AUTHENTICATION_FAILED',
      retryable: false,
      hint:
        section === 'llm'
          ? `Check the API key: set llm.apiKey, KGRAG_LLM_API_KEY or OPENAI_API_KEY (HTTP 403 can also mean the key has no access to model "${context.modelId}")`
          : `Check the API key: set embeddings.apiKey (it defaults to llm.apiKey / OPENAI_API_KEY) and that it may use model "${context.modelId}"`,
    });
  }
  if (status === 404) {
    const aboutModel = serverMessage !== undefined && /model/i.test(serverMessage);
    return new LlmCallError(
      aboutModel
        ? `Model "${context.modelId}" was not found at ${context.baseURL}${said}`
        : `${label(context)} got HTTP 404 from ${context.baseURL}${said}`,
      {
        ...common,
        code: 'LLM_NOT_FOUND',
        retryable: false,
        hint: aboutModel
          ? `Check ${section}.model: GET ${joinUrl(context.baseURL, 'models')} lists the ids this server serves`
          : `Check ${section}.baseURL: OpenAI-compatible servers usually expect it to end in /v1 (e.g. http://localhost:11434/v1), and check ${section}.model`,
      },
    );
  }
  if ((status === 400 || status === 413 || status === 422) && serverMessage !== undefined && CONTEXT_LENGTH_PATTERN.test(serverMessage)) {
    return new LlmCallError(`${label(context)} exceeded the model's context length${said}`, {
      ...common,
      code: 'LLM_CONTEXT_LENGTH_EXCEEDED',
      retryable: false,
      hint:
        section === 'llm'
          ? 'Shorten the prompt: lower query.maxContextTokens or chunking.size, or use a model with a larger context window'
          : 'Lower chunking.size so every chunk fits the embedding model input limit',
    });
  }
  if (status === 429 && /insufficient_quota|exceeded your current quota|billing/i.test(failure.body ?? '')) {
    return new LlmCallError(`${label(context)} was refused: the account is out of quota${said}`, {
      ...common,
      code: 'LLM_QUOTA_EXCEEDED',
      retryable: false,
      hint: "Check the plan and billing details of the API key's account; retrying will not help",
    });
  }
  if (status === 429) {
    return new LlmCallError(`${label(context)} was rate-limited (HTTP 429)${said}`, {
      ...common,
      code: 'LLM_RATE_LIMITED',
      retryable: true,
      hint: `Lower ${section}.concurrency${section === 'llm' ? ' or set llm.requestsPerMinute / llm.tokensPerMinute' : ''}`,
    });
  }
  if (status >= 500) {
    return new LlmCallError(`${label(context)} failed with HTTP ${status} (server error)${said}`, {
      ...common,
      code: 'LLM_SERVER_ERROR',
      retryable: true,
      hint: `The server at ${context.baseURL} is failing; check its logs or status page and try again later`,
    });
  }
  if (status >= 200 && status < 300) {
    return new LlmCallError(`${label(context)} returned HTTP ${status} with a body that is not valid JSON`, {
      ...common,
      code: 'LLM_MALFORMED_RESPONSE',
      retryable: true,
      hint: `Check that ${section}.baseURL (${context.baseURL}) points at an OpenAI-compatible API, not a web page or proxy`,
    });
  }
  if (status === 408 || status === 409) {
    return new LlmCallError(`${label(context)} failed with HTTP ${status}${said}`, {
      ...common,
      code: 'LLM_REQUEST_FAILED',
      retryable: true,
    });
  }
  return new LlmCallError(`${label(context)} was rejected with HTTP ${status}${said}`, {
    ...common,
    code: 'LLM_BAD_REQUEST',
    retryable: false,
    hint: `The server refused the request; check that ${section}.model "${context.modelId}" supports the options kgrag sends (see the server message)`,
  });
}

function label(context: ProviderCallContext): string {
  return context.service === 'llm' ? `LLM call to "${context.modelId}"` : `Embedding request for "${context.modelId}"`;
}

function connectionFailed(error: unknown, context: ProviderCallContext): LlmCallError {
  const networkCode = findNetworkErrorCode(error);
  const server = context.service === 'llm' ? 'LLM' : 'embedding';
  const unreachable = networkCode === undefined ? undefined : UNREACHABLE_SERVER_CODES.get(networkCode);
  if (unreachable !== undefined) {
    const setting =
      context.service === 'llm'
        ? 'llm.baseURL (or KGRAG_LLM_BASE_URL)'
        : 'embeddings.baseURL (or KGRAG_EMBEDDINGS_BASE_URL; it defaults to llm.baseURL)';
    return new LlmCallError(`Cannot reach the ${server} server at ${context.baseURL}: ${unreachable}`, {
      code: 'LLM_SERVER_UNREACHABLE',
      retryable: true,
      retryLimit: 1,
      hint: `Start the ${server} server, or point ${setting} at the one that is running`,
      details: { baseURL: context.baseURL, networkCode },
      cause: error,
    });
  }
  return new LlmCallError(`Cannot reach the ${server} server at ${context.baseURL}: ${redactUrl(errorMessage(error))}`, {
    code: 'LLM_CONNECTION_FAILED',
    retryable: true,
    hint: `Is the server running at ${context.baseURL}? Check ${context.service}.baseURL and your network`,
    details: { baseURL: context.baseURL, networkCode },
    cause: error,
  });
}

function cutReply(error: unknown, context: ProviderCallContext): LlmCallError {
  if (context.streaming) return truncatedStream(error, context);
  return new LlmCallError(`${label(context)} was cut off before the reply was complete: ${redactUrl(errorMessage(error))}`, {
    code: 'LLM_MALFORMED_RESPONSE',
    retryable: true,
    hint: `A proxy or the server at ${context.baseURL} closed the connection mid-reply; if it keeps happening, check its timeouts for long replies`,
    cause: error,
  });
}

/** The error of a reply stream that ended without a finish reason: retryable, since the server or a proxy cut it. */
export function truncatedStreamError(cause: unknown, callContext: ProviderCallContext): LlmCallError {
  return truncatedStream(cause, redactedContext(callContext));
}

function truncatedStream(error: unknown, context: ProviderCallContext): LlmCallError {
  return new LlmCallError(`${label(context)}: the reply stream ended before the model finished (no finish reason)`, {
    code: 'LLM_TRUNCATED_STREAM',
    retryable: true,
    hint: `The server at ${context.baseURL} or a proxy cut the stream; if it keeps happening, check its timeouts for long replies`,
    cause: error,
  });
}

/** What the server said in an error body, with any URL in it redacted (some servers echo the request URL). */
function extractServerMessage(body: string | undefined): string | undefined {
  const message = serverMessageOf(body);
  return message === undefined ? undefined : redactUrl(message);
}

function serverMessageOf(body: string | undefined): string | undefined {
  if (body === undefined || body.trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      const record = parsed as Record<string, unknown>;
      const inner = record['error'];
      if (typeof inner === 'string') return inner;
      if (typeof inner === 'object' && inner !== null) {
        const message = (inner as Record<string, unknown>)['message'];
        if (typeof message === 'string') return message;
      }
      if (typeof record['message'] === 'string') return record['message'];
      if (typeof record['detail'] === 'string') return record['detail'];
    }
  } catch {
    // Not JSON: fall through to the raw text.
  }
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function findNetworkErrorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** `base` + `/path`, before the base URL's query string if it has one (Azure's `?api-version=`). */
function joinUrl(baseURL: string, path: string): string {
  const queryAt = baseURL.indexOf('?');
  const base = queryAt === -1 ? baseURL : baseURL.slice(0, queryAt);
  const query = queryAt === -1 ? '' : baseURL.slice(queryAt);
  return `${base.replace(/\/+$/, '')}/${path}${query}`;
}

function redactedContext(context: ProviderCallContext): ProviderCallContext {
  return { ...context, baseURL: redactUrl(context.baseURL) };
}

/** An LlmCallError of ours that an SDK wrapped into its own error (it keeps ours as the `cause`). */
function findLlmCallError(error: unknown): LlmCallError | undefined {
  const seen = new Set<unknown>();
  for (let current = error; typeof current === 'object' && current !== null && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    if (LlmCallError.isInstance(current)) return current;
  }
  return undefined;
}
