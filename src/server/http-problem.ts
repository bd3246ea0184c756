import { KgragError } from '../core/errors.js';
import { toEnvironmentError } from '../core/environment-error.js';

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
}

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
const conflictCodes: ReadonlySet<string> = new Set(['STORE_WRITER_BUSY', 'QUERY_METHOD_NOT_BUILT', 'QUERY_NO_INDEX', 'STORE_NO_INDEX', 'QUERY_INDEX_NOT_READY', 'INDEX_WOULD_BE_EMPTY', 'INDEX_IMPORTED']);

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
  return {
    problem: {
      type: 'about:blank',
      title: titles[status] ?? 'Error',
      status,
      detail: shown === undefined
        ? `internal error${requestId === undefined ? '' : ` (request ${requestId})`}; the server log has the details`
        : shown.hint ? `${shown.message} — ${shown.hint}` : shown.message,
      code: shown?.code ?? 'INTERNAL',
      ...(requestId === undefined ? {} : { requestId }),
    },
    retryAfterSeconds: typeof retry === 'number' ? retry : undefined,
    expected: shown !== undefined,
  };
}
