import { KgragError } from '../../core/errors.js';

const marker = Symbol.for('kgrag.llm-call-error');

/**
 * Stable codes of {@link LlmCallError}. Callers and tests match on these, never on messages.
 *
 * Retryable by default: `LLM_RATE_LIMITED`, `LLM_SERVER_ERROR`, `LLM_CONNECTION_FAILED`,
 * `LLM_MALFORMED_RESPONSE`, `LLM_TRUNCATED_STREAM`, `LLM_TIMEOUT`, and `LLM_REQUEST_FAILED`
 * when the status is 408 or 409. `LLM_SERVER_UNREACHABLE` (nothing listens at the base URL, or its host does
 * not resolve) is retried once, briefly: it is almost always a server not started or a wrong URL. Never retried: `LLM_REPLY_TOO_LARGE` (a runaway reply, aborted at the
 * configured size limit) and the errors of the user's own settings (key, model, URL, context length).
 */
export type LlmCallErrorCode =
  | 'LLM_AUTHENTICATION_FAILED'
  | 'LLM_NOT_FOUND'
  | 'LLM_BAD_REQUEST'
  | 'LLM_CONTEXT_LENGTH_EXCEEDED'
  | 'LLM_QUOTA_EXCEEDED'
  | 'LLM_RATE_LIMITED'
  | 'LLM_SERVER_ERROR'
  | 'LLM_CONNECTION_FAILED'
  | 'LLM_SERVER_UNREACHABLE'
  | 'LLM_MALFORMED_RESPONSE'
  | 'LLM_TRUNCATED_STREAM'
  | 'LLM_REPLY_TOO_LARGE'
  | 'LLM_TIMEOUT'
  | 'LLM_REQUEST_FAILED'
  | 'LLM_RETRIES_EXHAUSTED'
  | 'LLM_INVALID_OUTPUT';

/** Options of {@link LlmCallError}. */
export interface LlmCallErrorOptions {
  code: LlmCallErrorCode;
  /** Whether the same request may succeed when sent again (the retry wrapper only retries these). */
  retryable: boolean;
  /** Most retries this failure is worth, below the configured `maxRetries` (e.g. 1 for a refused connection). */
  retryLimit?: number;
  /** HTTP status of the failed response, when there was one. */
  status?: number;
  /** How long the server asked us to wait (`retry-after` / `retry-after-ms`), in milliseconds. */
  retryAfterMs?: number;
  /** The model's raw reply, for errors about its content (`LLM_INVALID_OUTPUT`). */
  rawText?: string;
  hint?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * A failed call to a remote model server (chat or embeddings). Always category `provider`; the
 * `hint` says what the user can change (key, URL, model, limits) when the fault is on their side.
 */
export class LlmCallError extends KgragError {
  readonly [marker] = true;
  declare readonly code: LlmCallErrorCode;
  readonly retryable: boolean;
  readonly retryLimit: number | undefined;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly rawText: string | undefined;

  constructor(message: string, options: LlmCallErrorOptions) {
    super(message, {
      code: options.code,
      category: 'provider',
      ...(options.hint === undefined ? {} : { hint: options.hint }),
      details: {
        ...options.details,
        ...(options.status === undefined ? {} : { status: options.status }),
        retryable: options.retryable,
      },
      cause: options.cause,
    });
    this.name = 'LlmCallError';
    this.retryable = options.retryable;
    this.retryLimit = options.retryLimit;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.rawText = options.rawText;
  }

  /** True for LlmCallErrors, also across duplicated copies of the package. */
  static override isInstance(error: unknown): error is LlmCallError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
