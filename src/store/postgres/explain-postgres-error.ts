import { KgragError } from '../../core/errors.js';

/** Error codes of a server that cannot be reached or refuses the login: the user's configuration is at fault, or the server is down. */
const connectionCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'EPIPE', '28P01', '28000', '3D000']);

/**
 * SQLSTATEs of a server that is there but cannot serve now, and will: starting up or shutting down (57P01–57P03),
 * out of connections (53300), a connection that failed (class 08). Worth a retry, not a configuration change.
 */
const unavailableCodes = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006', '08P01']);

/** Seconds a caller is told to wait (HTTP `Retry-After`) before asking a database that is down or busy again. */
const retryAfterSeconds = 5;

/**
 * A failure to reach the server as a KgragError about the store's URL, a server that cannot serve now as one to retry
 * later, a missing privilege as one naming it; any other error unchanged (a bug or a constraint violation is not the
 * user's to fix by configuration).
 */
export function explainPostgresError(error: unknown): unknown {
  if (KgragError.isInstance(error)) return error;
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message ?? String(error);
  if (typeof code === 'string' && unavailableCodes.has(code)) {
    return new KgragError(`the Postgres database of the index cannot serve now (${code}: ${message})`, {
      code: 'STORE_UNAVAILABLE',
      category: 'store',
      hint: code === '53300'
        ? 'the server is out of connections: lower store.poolSize across kgrag processes, raise max_connections, or put PgBouncer (session mode) in front; retry in a few seconds'
        : 'the server is starting, stopping or restarting: retry in a few seconds; an interrupted index run resumes when run again',
      details: { code, retryAfterSeconds },
      cause: error,
    });
  }
  if ((typeof code === 'string' && connectionCodes.has(code)) || /Connection terminated|connect ECONNREFUSED/.test(message)) {
    return new KgragError(`cannot reach the Postgres database of the index: ${message}`, {
      code: 'STORE_UNREACHABLE',
      category: 'store',
      hint: 'check store.url (or KGRAG_DATABASE_URL): host, port, user, password and database name, and that the server is running; an interrupted index run resumes when run again',
      details: { code, retryAfterSeconds },
      cause: error,
    });
  }
  if (code === '42501') {
    return new KgragError(`the Postgres role of store.url lacks a privilege: ${message}`, {
      code: 'STORE_PERMISSION_DENIED',
      category: 'store',
      hint: 'grant the role USAGE on kgrag\'s schema and SELECT, INSERT, UPDATE, DELETE on its tables (GRANT … ON ALL TABLES IN SCHEMA), or run kgrag once as the schema\'s owner so that it creates what is missing',
      details: { code, httpStatus: 500 },
      cause: error,
    });
  }
  return error;
}
