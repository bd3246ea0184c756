const marker = Symbol.for('kgrag.error');

/**
 * Who can fix an error: the user's configuration, the user's input, a remote provider, the storage
 * backend, the machine (a full disk, a read-only or locked file, a resource limit), or kgrag itself (a bug).
 */
export type ErrorCategory = 'config' | 'input' | 'provider' | 'store' | 'environment' | 'internal';

/** Options of {@link KgragError}. */
export interface KgragErrorOptions {
  /** Stable machine-readable code, e.g. `INPUT_NOT_FOUND`. Tests and callers match on this, never on the message. */
  code: string;
  category: ErrorCategory;
  /** What the user can do about it, written as an instruction ("Check the path or …"). */
  hint?: string;
  /** Structured context (file names, key paths, status codes). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error type kgrag throws for anything a user can cause or fix.
 * The CLI prints `message` and `hint` on one line; the HTTP server maps `category` to a status code.
 */
export class KgragError extends Error {
  readonly [marker] = true;
  readonly code: string;
  readonly category: ErrorCategory;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(message: string, options: KgragErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KgragError';
    this.code = options.code;
    this.category = options.category;
    this.hint = options.hint;
    this.details = options.details;
  }

  /** True for KgragErrors, also across duplicated copies of the package. */
  static isInstance(error: unknown): error is KgragError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
