import { type Deadline, startDeadline } from '../../core/start-deadline.js';
import { LlmCallError } from './llm-call-error.js';
import { observeStream } from './observe-stream.js';
import type { SdkCallOptions, SdkLanguageModelMiddleware } from './sdk-types.js';

/** Options of {@link timeoutMiddleware}. */
export interface TimeoutOptions {
  /** Longest a call (a whole stream included) may take, in ms. */
  timeoutMs: number;
  /**
   * Starts the deadline of one call. @default a `timeoutMs` timer ({@link startDeadline}); tests pass
   * deadlines they expire themselves, so that what they check does not depend on the machine's speed.
   */
  deadline?: (timeoutMs: number, callerSignal: AbortSignal | undefined) => Deadline;
}

/**
 * Aborts a call that takes longer than `timeoutMs`, combined with the caller's own signal (`AbortSignal.any`).
 * A timeout becomes a retryable `LLM_TIMEOUT`; a caller's abort stays an abort. It also ends a call whose model
 * ignores its signal, so a hung call cannot outlive its timeout. Place it below the retry, so each attempt gets
 * its own deadline, and below the concurrency and rate limits, so queueing time does not count.
 */
export function timeoutMiddleware(options: TimeoutOptions): SdkLanguageModelMiddleware {
  const { timeoutMs } = options;
  const start = options.deadline ?? startDeadline;

  const arm = (params: SdkCallOptions, modelId: string) => {
    const deadline = start(timeoutMs, params.abortSignal);
    // Settles on the caller's abort too: a model that ignores its signal (or registered for it too late) is not
    // waited for either way.
    const expired = new Promise<never>((_, reject) => {
      if (deadline.signal.aborted) reject(deadline.signal.reason);
      else deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason), { once: true });
    });
    expired.catch(() => undefined);
    return {
      params: { ...params, abortSignal: deadline.signal },
      expired,
      disarm: deadline.clear,
      translate: (error: unknown): unknown =>
        deadline.expired.aborted && !params.abortSignal?.aborted
          ? new LlmCallError(`LLM call to "${modelId}" timed out after ${timeoutMs} ms`, {
              code: 'LLM_TIMEOUT',
              retryable: true,
              hint: 'Raise llm.timeoutMs for slow models or long replies, or lower llm.concurrency if the server is overloaded',
              details: { timeoutMs },
              cause: error,
            })
          : error,
    };
  };

  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ params, model }) => {
      const call = arm(params, model.modelId);
      try {
        return await Promise.race([model.doGenerate(call.params), call.expired]);
      } catch (error) {
        throw call.translate(error);
      } finally {
        call.disarm();
      }
    },
    wrapStream: async ({ params, model }) => {
      const call = arm(params, model.modelId);
      let result;
      try {
        result = await Promise.race([model.doStream(call.params), call.expired]);
      } catch (error) {
        call.disarm();
        throw call.translate(error);
      }
      return { ...result, stream: observeStream(result.stream, { interrupt: call.expired, error: call.translate, end: call.disarm }) };
    },
  };
}
