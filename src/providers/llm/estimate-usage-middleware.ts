import { completeUsage, withKgragReplyMetadata, replyText } from './kgrag-call-options.js';
import { observeStream } from './observe-stream.js';
import type { SdkLanguageModelMiddleware } from './sdk-types.js';
import { estimateTokenCount } from './token-estimate.js';
import type { CountTokens } from './token-estimate.js';

/**
 * Fills in the token counts a server did not report (many local servers report none, or none when streaming)
 * with `countTokens` over the prompt and the reply, and marks the reply `usageEstimated` in
 * `providerMetadata.kgrag`: the rate limiter, the cache and the usage meter above then always have counts.
 */
export function estimateUsageMiddleware(countTokens: CountTokens = estimateTokenCount): SdkLanguageModelMiddleware {
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      const { usage, estimated } = completeUsage(result.usage, params, replyText(result.content), countTokens);
      return estimated ? { ...result, usage, providerMetadata: withKgragReplyMetadata(result.providerMetadata, { usageEstimated: true }) } : result;
    },
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      let text = '';
      return {
        ...result,
        stream: observeStream(result.stream, {
          part: (part) => {
            if (part.type === 'text-delta') text += part.delta;
            if (part.type !== 'finish') return;
            const { usage, estimated } = completeUsage(part.usage, params, text, countTokens);
            return estimated ? { ...part, usage, providerMetadata: withKgragReplyMetadata(part.providerMetadata, { usageEstimated: true }) } : part;
          },
        }),
      };
    },
  };
}
