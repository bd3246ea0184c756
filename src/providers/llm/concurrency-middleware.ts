import { kgragCallOptions } from './kgrag-call-options.js';
import { observeStream } from './observe-stream.js';
import { createPrioritySemaphore } from './priority-semaphore.js';
import type { SdkLanguageModelMiddleware } from './sdk-types.js';

/** Options of {@link concurrencyMiddleware}. */
export interface ConcurrencyOptions {
  /** Calls in flight at once. */
  maxConcurrency: number;
}

/**
 * Keeps at most `maxConcurrency` calls in flight; waiting calls are served by their priority class
 * (`providerOptions.kgrag.priority`: interactive, then batch, then batch continuations). A stream holds its slot
 * until it ends or its reader cancels it; failed calls release theirs.
 */
export function concurrencyMiddleware(options: ConcurrencyOptions): SdkLanguageModelMiddleware {
  const semaphore = createPrioritySemaphore(options.maxConcurrency);
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params }) => {
      const release = await semaphore.acquire(kgragCallOptions(params).priority, params.abortSignal);
      try {
        return await doGenerate();
      } finally {
        release();
      }
    },
    wrapStream: async ({ doStream, params }) => {
      const release = await semaphore.acquire(kgragCallOptions(params).priority, params.abortSignal);
      let result;
      try {
        result = await doStream();
      } catch (error) {
        release();
        throw error;
      }
      return { ...result, stream: observeStream(result.stream, { end: release }) };
    },
  };
}
