import { kgragCallOptions } from './kgrag-call-options.js';
import { LlmCallError } from './llm-call-error.js';
import { createRetryPolicy, retryWithBackoff } from './retry-policy.js';
import type { RetryOptions } from './retry-policy.js';
import type { SdkLanguageModelMiddleware, SdkStreamPart, SdkStreamResult } from './sdk-types.js';

/** Stream parts that carry nothing of the reply: held back until the first that does, and dropped if the stream is retried. */
const preambleParts: ReadonlySet<SdkStreamPart['type']> = new Set(['stream-start', 'response-metadata', 'raw', 'text-start', 'reasoning-start']);

/**
 * Retries retryable failures (429, 408, 409, 5xx, network errors, timeouts, truncated streams, malformed bodies;
 * `LlmCallError.retryable`, so it belongs above `providerErrorMiddleware`) with exponential backoff and full
 * jitter, honouring `retry-after`, and reports each retry to `onRetry` with the call's purpose. A stream is retried
 * only while none of its reply has reached the reader: once text has, a retry would repeat it.
 */
export function retryMiddleware(options: RetryOptions = {}): SdkLanguageModelMiddleware {
  const policy = createRetryPolicy(options);
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params }) => retryWithBackoff(async () => doGenerate(), policy, params.abortSignal, kgragCallOptions(params).purpose),
    wrapStream: async ({ doStream, params }) => {
      const { purpose } = kgragCallOptions(params);
      let attempt = 0;
      const open = async (): Promise<SdkStreamResult> => {
        for (;;) {
          attempt += 1;
          try {
            return await doStream();
          } catch (error) {
            await policy.afterFailure(error, attempt, params.abortSignal, purpose);
          }
        }
      };
      const first = await open();
      let reader = first.stream.getReader();
      let delivered = false;
      let held: SdkStreamPart[] = [];
      const stream = new ReadableStream<SdkStreamPart>(
        {
          async pull(controller) {
            for (;;) {
              let next: ReadableStreamReadResult<SdkStreamPart>;
              try {
                next = await reader.read();
              } catch (error) {
                if (delivered) {
                  controller.error(notRetried(error));
                  return;
                }
                try {
                  await policy.afterFailure(error, attempt, params.abortSignal, purpose);
                  reader = (await open()).stream.getReader();
                } catch (final) {
                  controller.error(final);
                  return;
                }
                held = [];
                continue;
              }
              if (!next.done && !delivered && preambleParts.has(next.value.type)) {
                held.push(next.value);
                continue;
              }
              for (const part of held) controller.enqueue(part);
              held = [];
              if (next.done) {
                controller.close();
                return;
              }
              delivered = true;
              controller.enqueue(next.value);
              return;
            }
          },
          cancel: (reason) => reader.cancel(reason),
        },
        { highWaterMark: 0 },
      );
      return { ...first, stream };
    },
  };
}

/** The error of a stream cut after text reached the reader: final, and its hint says it was not retried and why. */
function notRetried(error: unknown): unknown {
  if (!LlmCallError.isInstance(error) || !error.retryable) return error;
  return new LlmCallError(error.message, {
    code: error.code,
    retryable: false,
    ...(error.status === undefined ? {} : { status: error.status }),
    hint: `Part of the reply had already been shown, so it was not retried (that would repeat it): ask again${error.hint === undefined ? '' : `. ${error.hint}`}`,
    details: error.details,
    cause: error,
  });
}
