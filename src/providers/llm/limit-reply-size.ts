import { LlmCallError } from './llm-call-error.js';
import type { ProviderCallContext } from './to-llm-call-error.js';

/** Options of {@link limitReplySize}. */
export interface ReplySizeLimit {
  /** Most bytes of a response body accepted, streamed or not, error bodies included. */
  maxBytes: number;
  /** Who is called, for the error's message and hint (its `baseURL` already redacted). */
  context: ProviderCallContext;
  /** The configuration key that sets `maxBytes`, named in the hint. */
  configKey: string;
  /** Another way to make replies smaller, added to the hint. */
  alternative?: string;
}

/**
 * Wraps `fetch` so that no response body can grow past `maxBytes`: a `Content-Length` above the limit fails
 * at once, and a body (a stream of server-sent events, a JSON reply, an error page) that passes it while it
 * arrives fails there; either way the request is aborted, so the connection is closed and nothing more is
 * read. The failure is an `LLM_REPLY_TOO_LARGE` {@link LlmCallError}: the model's or the server's fault,
 * never retried, since a runaway model would only run away again at the same price.
 */
export function limitReplySize(fetchImplementation: typeof fetch, limit: ReplySizeLimit): typeof fetch {
  return async (input, init) => {
    const stop = new AbortController();
    const signal = init?.signal == null ? stop.signal : AbortSignal.any([init.signal, stop.signal]);
    const response = await fetchImplementation(input, { ...init, signal });
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limit.maxBytes) {
      const error = replyTooLarge(limit, declared, true);
      stop.abort(error);
      throw error;
    }
    const body = response.body;
    if (body === null) return response;
    const reader = body.getReader();
    let received = 0;
    const limited = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        received += value.byteLength;
        if (received > limit.maxBytes) {
          const error = replyTooLarge(limit, received, false);
          stop.abort(error);
          controller.error(error);
          return;
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function replyTooLarge(limit: ReplySizeLimit, bytes: number, declared: boolean): LlmCallError {
  const { context } = limit;
  const who = context.service === 'llm' ? `LLM call to "${context.modelId}"` : `Embedding request for "${context.modelId}"`;
  const size = declared ? `announced a reply of ${formatBytes(bytes)} (Content-Length)` : `sent ${formatBytes(bytes)} before the request was aborted`;
  return new LlmCallError(
    `${who} was aborted: the server at ${context.baseURL} ${size}, over the ${formatBytes(limit.maxBytes)} limit of ${limit.configKey}`,
    {
      code: 'LLM_REPLY_TOO_LARGE',
      retryable: false,
      hint: `A model that does not stop or a misbehaving server or proxy sent a runaway reply; it is not retried. Raise ${limit.configKey} (now ${limit.maxBytes}) only if replies this large are expected${limit.alternative === undefined ? '' : `, or ${limit.alternative}`}`,
      details: { baseURL: context.baseURL, modelId: context.modelId, maxBytes: limit.maxBytes, receivedBytes: bytes, declared },
    },
  );
}

/** `1,048,576 bytes (1.0 MiB)`: exact, and readable at a glance. */
function formatBytes(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} bytes`;
  if (bytes < 1024) return exact;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${exact} (${value.toFixed(1)} ${units[unit]})`;
}
