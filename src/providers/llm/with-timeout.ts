import { type Deadline, startDeadline } from '../../core/start-deadline.js';
import type { ChatRequest, ChatStreamPart, LanguageModel } from './language-model.js';
import { LlmCallError } from './llm-call-error.js';

/** Options of {@link withTimeout}. */
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
 * Aborts a call that takes longer than `timeoutMs`, combined with the caller's own signal
 * (`AbortSignal.any`). A timeout becomes a retryable `LLM_TIMEOUT`; a caller's abort stays an abort.
 */
export function withTimeout(model: LanguageModel, options: TimeoutOptions): LanguageModel {
  const { timeoutMs } = options;
  const start = options.deadline ?? startDeadline;

  const arm = (request: ChatRequest) => {
    const deadline = start(timeoutMs, request.abortSignal);
    // Also settles when a model ignores its signal, so a hung call cannot outlive its timeout.
    const expired = new Promise<never>((_, reject) => {
      deadline.expired.addEventListener('abort', () => reject(deadline.expired.reason), { once: true });
    });
    expired.catch(() => undefined);
    return {
      request: { ...request, abortSignal: deadline.signal },
      expired,
      disarm: deadline.clear,
      translate: (error: unknown): unknown =>
        deadline.expired.aborted && !request.abortSignal?.aborted
          ? new LlmCallError(`LLM call to "${model.modelId}" timed out after ${timeoutMs} ms`, {
              code: 'LLM_TIMEOUT',
              retryable: true,
              hint: 'Raise llm.timeoutMs for slow models or long replies, or lower llm.concurrency if the server is overloaded',
              details: { timeoutMs },
              cause: error,
            })
          : error,
    };
  };

  async function* stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    const call = arm(request);
    try {
      yield* model.stream(call.request);
    } catch (error) {
      throw call.translate(error);
    } finally {
      call.disarm();
    }
  }

  return {
    provider: model.provider,
    modelId: model.modelId,
    generate: async (request) => {
      const call = arm(request);
      try {
        return await Promise.race([model.generate(call.request), call.expired]);
      } catch (error) {
        throw call.translate(error);
      } finally {
        call.disarm();
      }
    },
    stream,
  };
}
