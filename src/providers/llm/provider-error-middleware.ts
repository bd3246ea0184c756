import { withoutKgragOptions } from './kgrag-call-options.js';
import { observeStream } from './observe-stream.js';
import type { SdkLanguageModelMiddleware } from './sdk-types.js';
import { toLlmCallError, truncatedStreamError } from './to-llm-call-error.js';
import type { ProviderCallContext } from './to-llm-call-error.js';

/**
 * The innermost middleware, next to the provider: whatever the provider throws or streams as an `error` part
 * becomes an `LlmCallError` with a status, a retry verdict and a hint (so that the retry, timeout and meter above
 * judge every provider's failures alike), a stream that ends without a finish reason fails as a retryable
 * `LLM_TRUNCATED_STREAM`, and kgrag's `providerOptions.kgrag` is removed before the provider sees the call.
 * A failure after the caller aborted is that abort.
 */
export function providerErrorMiddleware(context: Omit<ProviderCallContext, 'streaming'>): SdkLanguageModelMiddleware {
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params }) => withoutKgragOptions(params),
    wrapGenerate: async ({ doGenerate, params }) => {
      try {
        return await doGenerate();
      } catch (error) {
        if (params.abortSignal?.aborted) throw params.abortSignal.reason;
        throw toLlmCallError(error, context);
      }
    },
    wrapStream: async ({ doStream, params }) => {
      const translate = (error: unknown): unknown => (params.abortSignal?.aborted ? params.abortSignal.reason : toLlmCallError(error, { ...context, streaming: true }));
      let result;
      try {
        result = await doStream();
      } catch (error) {
        throw translate(error);
      }
      let finished = false;
      return {
        ...result,
        stream: observeStream(result.stream, {
          part: (part) => {
            if (part.type === 'error') throw part.error;
            if (part.type === 'finish') {
              if (part.finishReason.unified === 'error') throw truncatedStreamError(undefined, context);
              finished = true;
            }
          },
          close: () => {
            if (!finished) throw truncatedStreamError(undefined, context);
          },
          error: translate,
        }),
      };
    },
  };
}
