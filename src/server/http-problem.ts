import { KgragError } from '../core/errors.js';
import { toEnvironmentError } from '../core/environment-error.js';
import { formatErrorLine } from '../core/format-error-line.js';
import { withSurfaceHint } from '../core/surface-hint.js';

/** OpenAI's error object (`{"error": {message, type, param, code}}`), which the `openai` SDK and its kin read. */
export interface OpenAiError {
  message: string;
  type: string;
  /** The request field at fault, where one is: `model` for an unknown model. */
  param: string | null;
  code: string;
}

/** An RFC 9457 problem document, the body of every error response. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  /** The one-line message: what went wrong with which input, then the fix. */
  detail: string;
  /** kgrag's stable error code (`QUERY_UNKNOWN_METHOD`, `AUTH_MISSING_KEY`, …). */
  code: string;
  /** The request id, also in the `x-request-id` header and in the server's log. */
  requestId?: string;
  /**
   * The same error as OpenAI writes it (an RFC 9457 extension member): an OpenAI client pointed at `/v1` shows
   * `error.message`, and a body without it reads as "404 status code (no body)".
   */
  error: OpenAiError;
}

/** OpenAI's error type for a status. */
function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * The fix over HTTP of errors whose own hint names the command line (`kgrag index <paths>`, `--context-only`): a
 * client of the API, or a person in the explorer, cannot run those ({@link withSurfaceHint}).
 */
const httpHints: Readonly<Record<string, string>> = {
  STORE_NO_INDEX: 'add documents first: POST /v1/documents (JSON or files), or drop files on the explorer\'s Documents view; the index is there when that job ends',
  QUERY_NO_INDEX: 'add documents first: POST /v1/documents (JSON or files), or drop files on the explorer\'s Documents view; the index is there when that job ends',
  QUERY_INDEX_NOT_READY: 'start an index job (POST /v1/jobs) and ask again when it ends; an interrupted one resumes where it stopped',
  QUERY_METHOD_NOT_BUILT: 'build the index for it with POST /v1/jobs {"methods": ["<method>"]}, then ask again',
  QUERY_GRAPH_NOT_BUILT: 'send params {"graph": [...]} with the kinds the index has (the error lists them), or have the server\'s configuration add the others to methods.kgp.indexGraphs and run an index job (POST /v1/jobs)',
  QUERY_CONTEXT_ONLY_UNSUPPORTED: 'send contextOnly: false to run it, or choose a method whose context needs no LLM',
  QUERY_NEEDS_LLM: 'configure a chat model for the server (KGRAG_LLM_BASE_URL, or OPENAI_API_KEY), or choose a method that answers without one (GET /methods: needsLlm false)',
};

/** Error codes that name one request field, for OpenAI's `param`. */
const paramOfCode: Readonly<Record<string, string>> = { SERVER_UNKNOWN_MODEL: 'model', SERVER_NO_QUESTION: 'messages' };

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  499: 'Client Closed Request',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** A KgragError that carries the HTTP status it should be answered with. */
export function httpError(status: number, code: string, message: string, hint?: string, retryAfterSeconds?: number): KgragError {
  return new KgragError(message, {
    code,
    // A server-side condition the caller can wait out (shutting down, a deadline), not a bug: its message is shown.
    category: status >= 500 ? 'environment' : 'input',
    ...(hint === undefined ? {} : { hint }),
    details: { httpStatus: status, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) },
  });
}

/** Errors about the workspace's state rather than the request: 409 Conflict. */
const conflictCodes: ReadonlySet<string> = new Set(['STORE_WRITER_BUSY', 'QUERY_METHOD_NOT_BUILT', 'QUERY_GRAPH_NOT_BUILT', 'QUERY_NO_INDEX', 'STORE_NO_INDEX', 'QUERY_INDEX_NOT_READY', 'INDEX_WOULD_BE_EMPTY', 'INDEX_IMPORTED']);

function statusOf(error: KgragError): number {
  const explicit = error.details?.['httpStatus'];
  if (typeof explicit === 'number') return explicit;
  if (/NOT_FOUND|NO_MATCH|UNKNOWN_(METHOD|VARIANT|GRAPH)$/.test(error.code)) return 404;
  if (conflictCodes.has(error.code)) return 409;
  switch (error.category) {
    case 'input':
      return 400;
    case 'config':
      return 422;
    case 'provider':
      return 502;
    case 'store':
    case 'environment':
      return 503;
    default:
      return 500;
  }
}

/**
 * The problem document of any error. A KgragError that is not a bug gets its message and hint (`expected`: not
 * logged as a failure); anything else — a bug, an error without a known cause — gets a generic line and the request
 * id to find it in the log, never a stack trace or whatever a raw error message may hold (paths, keys, SQL).
 */
export function problemOf(error: unknown, requestId?: string): { problem: Problem; retryAfterSeconds: number | undefined; expected: boolean } {
  const known = KgragError.isInstance(error) ? error : toEnvironmentError(error);
  const shown = known !== undefined && known.category !== 'internal' ? known : undefined;
  const status = shown === undefined ? 500 : statusOf(shown);
  const retry = shown?.details?.['retryAfterSeconds'];
  const detail = shown === undefined
    ? `internal error${requestId === undefined ? '' : ` (request ${requestId})`}; the server log has the details`
    : formatErrorLine(withSurfaceHint(shown, httpHints));
  const code = shown?.code ?? 'INTERNAL';
  return {
    problem: {
      type: 'about:blank',
      title: titles[status] ?? 'Error',
      status,
      detail,
      code,
      ...(requestId === undefined ? {} : { requestId }),
      error: { message: detail, type: openAiErrorType(status), param: paramOfCode[code] ?? null, code },
    },
    retryAfterSeconds: typeof retry === 'number' ? retry : undefined,
    expected: shown !== undefined,
  };
}
