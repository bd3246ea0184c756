import type { LlmCallError } from '../providers/llm/llm-call-error.js';
import type { RetryEvent } from '../providers/llm/retry-policy.js';
import { sanitizeForTerminal } from '../core/sanitize-for-terminal.js';

/** Turns retry events into lines on stderr, one per wave of retries. */
export interface RetryReporter {
  onRetry(event: RetryEvent): void;
  /** What the calls belong to (the index step running), named at the start of each line. */
  setScope(scope: string | undefined): void;
  /** Writes the wave still being gathered, if any, and stops. */
  stop(): void;
}

/** Options of {@link createRetryReporter}. */
export interface RetryReporterOptions {
  /**
   * Retries scheduled within this many ms of a wave's first one join it. Calls that fail together (a rate
   * limit or a server hiccup hits every call in flight) do so within milliseconds; one line for all of them
   * says what happened without a screen of repeats. @default 100
   */
  windowMs?: number;
}

interface Wave {
  scope: string | undefined;
  calls: number;
  services: Set<RetryEvent['service']>;
  purposes: Set<string>;
  attempts: { min: number; max: number };
  maxAttempts: number;
  reasons: Map<string, number>;
  delays: { min: number; max: number };
}

/**
 * A reporter writing `llm-extract: 8 LLM call attempts (extract-graph) failed, attempt 1 of 7: 8× rate-limited
 * (HTTP 429); retrying in 0.2–1.0 s`: which step and call kind, which attempt of how many, why, and how long it
 * waits — so that a run that is backing off says so instead of going silent.
 */
export function createRetryReporter(write: (line: string) => void, options: RetryReporterOptions = {}): RetryReporter {
  const windowMs = options.windowMs ?? 100;
  let scope: string | undefined;
  let wave: Wave | undefined;
  let timer: NodeJS.Timeout | undefined;

  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (wave === undefined) return;
    write(describeWave(wave));
    wave = undefined;
  };

  return {
    onRetry(event) {
      if (wave === undefined) {
        wave = {
          scope,
          calls: 0,
          services: new Set(),
          purposes: new Set(),
          attempts: { min: event.attempt, max: event.attempt },
          maxAttempts: event.maxAttempts,
          reasons: new Map(),
          delays: { min: event.delayMs, max: event.delayMs },
        };
        timer = setTimeout(flush, windowMs);
        timer.unref();
      }
      wave.calls += 1;
      wave.services.add(event.service);
      if (event.purpose !== undefined) wave.purposes.add(event.purpose);
      wave.attempts.min = Math.min(wave.attempts.min, event.attempt);
      wave.attempts.max = Math.max(wave.attempts.max, event.attempt);
      wave.maxAttempts = Math.max(wave.maxAttempts, event.maxAttempts);
      const reason = retryReason(event.error);
      wave.reasons.set(reason, (wave.reasons.get(reason) ?? 0) + 1);
      wave.delays.min = Math.min(wave.delays.min, event.delayMs);
      wave.delays.max = Math.max(wave.delays.max, event.delayMs);
    },
    setScope(next) {
      if (next !== scope) flush();
      scope = next;
    },
    stop: flush,
  };
}

function describeWave(wave: Wave): string {
  const kind = [...wave.services].map((service) => (service === 'llm' ? 'LLM' : 'embedding')).join(' and ');
  const purposes = wave.purposes.size === 0 ? '' : ` (${[...wave.purposes].sort().join(', ')})`;
  const attempts = wave.attempts.min === wave.attempts.max ? `attempt ${wave.attempts.min}` : `attempts ${wave.attempts.min}–${wave.attempts.max}`;
  const reasons = [...wave.reasons]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, count]) => (wave.calls === 1 ? reason : `${count}× ${reason}`))
    .join(', ');
  const [shortest, longest] = [seconds(wave.delays.min), seconds(wave.delays.max)];
  const wait = shortest === longest ? `${longest} s` : `${shortest}–${longest} s`;
  const prefix = wave.scope === undefined ? '' : `${wave.scope}: `;
  // Counted as failed attempts, not calls: with short waits one call's consecutive retries can fall in one wave.
  const what = wave.calls === 1 ? `${kind} call${purposes} ${attempts} of ${wave.maxAttempts} failed` : `${wave.calls} ${kind} call attempts${purposes} failed, ${attempts} of ${wave.maxAttempts}`;
  return sanitizeForTerminal(`${prefix}${what}: ${reasons}; retrying in ${wait}`);
}

/** Why a call is retried, in a few words. */
function retryReason(error: LlmCallError): string {
  const status = error.status === undefined ? '' : ` (HTTP ${error.status})`;
  switch (error.code) {
    case 'LLM_RATE_LIMITED':
      return `rate-limited${status}`;
    case 'LLM_SERVER_ERROR':
      return `server error${status}`;
    case 'LLM_TIMEOUT':
      return 'timed out';
    case 'LLM_SERVER_UNREACHABLE':
    case 'LLM_CONNECTION_FAILED': {
      const networkCode = error.details?.['networkCode'];
      return `cannot connect${typeof networkCode === 'string' ? ` (${networkCode})` : ''}`;
    }
    case 'LLM_MALFORMED_RESPONSE':
      return 'malformed reply';
    case 'LLM_TRUNCATED_STREAM':
      return 'reply stream cut off';
    default:
      return `${error.code}${status}`;
  }
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
}
