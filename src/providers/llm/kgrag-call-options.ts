import type { ChatMessage, ChatRequest, ChatResult, FinishReason } from './language-model.js';
import type { CallPriority } from './priority-queues.js';
import type { SdkCallOptions, SdkFinishReason, SdkGenerateResult, SdkProviderMetadata, SdkStreamPart, SdkUsage } from './sdk-types.js';
import { countPromptTokens, type CountTokens } from './token-estimate.js';

/** The `providerOptions` and `providerMetadata` key under which kgrag's own fields travel through the middleware. */
export const kgragOptionsKey = 'kgrag';

/**
 * kgrag's per-call fields that are not sent to the model (see {@link ChatRequest}): the adapter puts them in
 * `providerOptions.kgrag`, the middleware reads them there, and the innermost middleware removes them.
 */
export interface KgragCallOptions {
  purpose?: string;
  priority?: CallPriority;
  sources?: readonly string[];
  refreshCache?: boolean;
}

/** What the middleware says about a reply, in `providerMetadata.kgrag`. */
export interface KgragReplyMetadata {
  /** The reply came from the LLM cache: nothing was paid. */
  cached?: boolean;
  /** The server reported no usage and the counts were estimated with the tokenizer. */
  usageEstimated?: boolean;
}

const priorities: readonly string[] = ['interactive', 'batch', 'batch-continuation'] satisfies readonly CallPriority[];

/** kgrag's fields of one call, as the adapter set them (fields of the wrong type are ignored). */
export function kgragCallOptions(params: Pick<SdkCallOptions, 'providerOptions'>): KgragCallOptions {
  const raw = params.providerOptions?.[kgragOptionsKey];
  if (raw === undefined) return {};
  const { purpose, priority, sources, refreshCache } = raw;
  return {
    ...(typeof purpose === 'string' ? { purpose } : {}),
    ...(typeof priority === 'string' && priorities.includes(priority) ? { priority: priority as CallPriority } : {}),
    ...(Array.isArray(sources) ? { sources: sources.filter((source): source is string => typeof source === 'string') } : {}),
    ...(refreshCache === true ? { refreshCache } : {}),
  };
}

/** `params` without kgrag's fields: what a provider is given. */
export function withoutKgragOptions(params: SdkCallOptions): SdkCallOptions {
  if (params.providerOptions?.[kgragOptionsKey] === undefined) return params;
  const { [kgragOptionsKey]: _kgrag, ...providerOptions } = params.providerOptions;
  return { ...params, providerOptions };
}

/** The `providerMetadata.kgrag` of a reply. */
export function kgragReplyMetadata(providerMetadata: Record<string, Record<string, unknown>> | undefined): KgragReplyMetadata {
  const raw = providerMetadata?.[kgragOptionsKey];
  return { ...(raw?.['cached'] === true ? { cached: true } : {}), ...(raw?.['usageEstimated'] === true ? { usageEstimated: true } : {}) };
}

/** `providerMetadata` with `metadata` merged into its `kgrag` entry. */
export function withKgragReplyMetadata(providerMetadata: SdkProviderMetadata | undefined, metadata: KgragReplyMetadata): SdkProviderMetadata {
  return { ...providerMetadata, [kgragOptionsKey]: { ...providerMetadata?.[kgragOptionsKey], ...metadata } };
}

/** The SDK call options of a kgrag request: messages as a v3 prompt, kgrag's fields in `providerOptions.kgrag`. */
export function toSdkCallOptions(request: ChatRequest): SdkCallOptions {
  const kgrag = {
    ...(request.purpose === undefined ? {} : { purpose: request.purpose }),
    ...(request.priority === undefined ? {} : { priority: request.priority }),
    ...(request.sources === undefined ? {} : { sources: [...request.sources] }),
    ...(request.refreshCache === undefined ? {} : { refreshCache: request.refreshCache }),
  };
  const format = request.responseFormat;
  return {
    prompt: request.messages.map((message) =>
      message.role === 'system' ? { role: 'system', content: message.content } : { role: message.role, content: [{ type: 'text', text: message.content }] },
    ),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
    ...(request.topP === undefined ? {} : { topP: request.topP }),
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    ...(request.stop === undefined ? {} : { stopSequences: [...request.stop] }),
    ...(format === undefined
      ? {}
      : {
          responseFormat: {
            type: 'json' as const,
            ...(format.schema === undefined ? {} : { schema: format.schema }),
            ...(format.name === undefined ? {} : { name: format.name }),
          },
        }),
    ...(request.abortSignal === undefined ? {} : { abortSignal: request.abortSignal }),
    ...(Object.keys(kgrag).length === 0 ? {} : { providerOptions: { [kgragOptionsKey]: kgrag } }),
  };
}

/**
 * The kgrag request an SDK call stands for: the inverse of {@link toSdkCallOptions} (text parts of a message are
 * joined; parts kgrag never sends, such as files and tool calls, are left out). The LLM cache keys on it, so that
 * a request keys the same whether it arrived through kgrag's interface or as an SDK call.
 */
export function toChatRequest(params: SdkCallOptions): ChatRequest {
  const kgrag = kgragCallOptions(params);
  const format = params.responseFormat;
  return {
    messages: params.prompt.flatMap((message): ChatMessage[] => {
      if (message.role === 'system') return [{ role: 'system', content: message.content }];
      if (message.role === 'tool') return [];
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      return [{ role: message.role, content: text }];
    }),
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.maxOutputTokens === undefined ? {} : { maxOutputTokens: params.maxOutputTokens }),
    ...(params.topP === undefined ? {} : { topP: params.topP }),
    ...(params.seed === undefined ? {} : { seed: params.seed }),
    ...(params.stopSequences === undefined ? {} : { stop: params.stopSequences }),
    ...(format?.type === 'json'
      ? {
          responseFormat: {
            type: 'json' as const,
            ...(format.schema === undefined ? {} : { schema: format.schema as Record<string, unknown> }),
            ...(format.name === undefined ? {} : { name: format.name }),
          },
        }
      : {}),
    ...(params.abortSignal === undefined ? {} : { abortSignal: params.abortSignal }),
    ...kgrag,
  };
}

/** v3 usage from kgrag's counts. */
export function toSdkUsage(usage: { inputTokens: number; outputTokens: number }): SdkUsage {
  return {
    inputTokens: { total: usage.inputTokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: usage.outputTokens, text: undefined, reasoning: undefined },
  };
}

/** kgrag's counts of a v3 usage; `undefined` when the model reported no totals. */
export function fromSdkUsage(usage: SdkUsage | undefined): { inputTokens: number; outputTokens: number } | undefined {
  const input = usage?.inputTokens.total;
  const output = usage?.outputTokens.total;
  return input === undefined || output === undefined ? undefined : { inputTokens: input, outputTokens: output };
}

/**
 * `usage` with missing totals estimated with `countTokens` from the prompt and the reply text; `estimated` says
 * whether any was.
 */
export function completeUsage(usage: SdkUsage | undefined, params: SdkCallOptions, text: string, countTokens: CountTokens): { usage: SdkUsage; estimated: boolean } {
  const input = usage?.inputTokens.total;
  const output = usage?.outputTokens.total;
  if (usage !== undefined && input !== undefined && output !== undefined) return { usage, estimated: false };
  const inputTokens = input ?? countPromptTokens(toChatRequest(params).messages, countTokens);
  const outputTokens = output ?? countTokens(text);
  const { inputTokens: reportedInput, outputTokens: reportedOutput } = usage ?? toSdkUsage({ inputTokens: 0, outputTokens: 0 });
  return {
    usage: { inputTokens: { ...reportedInput, total: inputTokens }, outputTokens: { ...reportedOutput, total: outputTokens } },
    estimated: true,
  };
}

/** kgrag's finish reason of a v3 one. */
export function fromSdkFinishReason(reason: SdkFinishReason | string): FinishReason {
  const unified = typeof reason === 'string' ? reason : reason.unified;
  switch (unified) {
    case 'stop':
    case 'length':
    case 'content-filter':
    case 'tool-calls':
    case 'error':
    case 'other':
      return unified;
    default:
      return 'unknown';
  }
}

/** The v3 finish reason of a kgrag one (`unknown` has no v3 counterpart and becomes `other`). */
export function toSdkFinishReason(reason: FinishReason): SdkFinishReason {
  return { unified: reason === 'unknown' ? 'other' : reason, raw: undefined };
}

/** The text of a v3 reply's content. */
export function replyText(content: ReadonlyArray<{ type: string; text?: string }>): string {
  let text = '';
  for (const part of content) if (part.type === 'text' && part.text !== undefined) text += part.text;
  return text;
}

/** A kgrag result of a finished v3 call. */
export function toChatResult(reply: { text: string; usage: SdkUsage; finishReason: SdkFinishReason; modelId: string; providerMetadata?: Record<string, Record<string, unknown>> | undefined }): ChatResult {
  const metadata = kgragReplyMetadata(reply.providerMetadata);
  return {
    text: reply.text,
    usage: { ...(fromSdkUsage(reply.usage) ?? { inputTokens: 0, outputTokens: 0 }), ...(metadata.usageEstimated ? { estimated: true } : {}) },
    finishReason: fromSdkFinishReason(reply.finishReason),
    modelId: reply.modelId,
    ...(metadata.cached ? { cached: true } : {}),
  };
}

/** The `providerMetadata` that says what kgrag knows of a result: from the cache, usage estimated. */
function resultMetadata(result: ChatResult): SdkProviderMetadata {
  return withKgragReplyMetadata(undefined, { ...(result.cached === true ? { cached: true } : {}), ...(result.usage.estimated === true ? { usageEstimated: true } : {}) });
}

/** A kgrag result as a v3 `doGenerate` result. */
export function toSdkGenerateResult(result: ChatResult): SdkGenerateResult {
  return {
    content: result.text.length > 0 ? [{ type: 'text', text: result.text }] : [],
    finishReason: toSdkFinishReason(result.finishReason),
    usage: toSdkUsage(result.usage),
    providerMetadata: resultMetadata(result),
    response: { modelId: result.modelId },
    warnings: [],
  };
}

/** The `finish` part a v3 stream of a kgrag result ends with. */
export function toSdkFinishPart(result: ChatResult): Extract<SdkStreamPart, { type: 'finish' }> {
  return { type: 'finish', finishReason: toSdkFinishReason(result.finishReason), usage: toSdkUsage(result.usage), providerMetadata: resultMetadata(result) };
}
