import type { TokenUsage } from '../../core/types.js';
import type { CallPriority } from './priority-queues.js';

/** One chat message. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Ask the model for a JSON reply, optionally constrained by a JSON Schema. */
export interface JsonResponseFormat {
  type: 'json';
  /** JSON Schema of the expected object. Sent as `json_schema` when the server supports it. */
  schema?: Record<string, unknown>;
  /** Schema name for `json_schema` mode (letters, digits, `_`, `-`). */
  name?: string;
}

/** One chat completion request. Everything that changes the answer is part of the cache key. */
export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** @default the model configuration's temperature */
  temperature?: number;
  maxOutputTokens?: number;
  topP?: number;
  seed?: number;
  stop?: readonly string[];
  responseFormat?: JsonResponseFormat;
  abortSignal?: AbortSignal;
  /** What the call is for (`extract-graph`, `answer`, …): used for usage accounting and logs, not sent. */
  purpose?: string;
  /** Scheduling class: interactive calls (queries) go first, then batch calls, then batch continuations. @default 'batch' */
  priority?: CallPriority;
  /**
   * Content hashes (`sha256` of `core/ids.ts`) of the texts the prompt was built from: for index-time calls, the
   * chunks whose text (or what was extracted from it) the prompt holds. Not sent and not part of the cache key: the
   * LLM cache records them with the reply, so that deleting a document can delete every cached reply derived from it.
   */
  sources?: readonly string[];
  /**
   * Ask the model even when the LLM cache holds a reply to this request, and keep the new reply in its place: for a
   * request whose cached reply proved unusable (an entity-resolution group left undecided). Not sent and not part of
   * the cache key. @default false
   */
  refreshCache?: boolean;
}

/** Why generation stopped. `length` means the reply was cut by `maxOutputTokens`. */
export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other' | 'unknown';

/** A completed chat call. */
export interface ChatResult {
  text: string;
  usage: TokenUsage & {
    /** True when the server reported no usage and the counts were estimated with the tokenizer. */
    estimated?: boolean;
  };
  finishReason: FinishReason;
  /** The model that answered (as reported by the server when it says so). */
  modelId: string;
  /** True when the reply came from the LLM cache (no call was made, nothing was paid). */
  cached?: boolean;
}

/** A part of a streamed reply: text deltas, then exactly one `finish` carrying the whole result. */
export type ChatStreamPart = { type: 'text-delta'; text: string } | { type: 'finish'; result: ChatResult };

/**
 * kgrag's own small chat-model interface, what the methods and pipeline steps call. The workspace's model is an
 * AI SDK model under kgrag's middleware (cache, retry, rate limit, concurrency, timeout, usage meter), adapted to
 * this interface by `languageModelFromSdk`; the scripted fake implements it directly.
 */
export interface LanguageModel {
  /** Provider name, e.g. `openai-compatible`, `scripted`. */
  readonly provider: string;
  /** Model id as configured, e.g. `gpt-4.1-mini`. */
  readonly modelId: string;
  /** Runs one call to completion. Throws `LlmCallError` on failure. */
  generate(request: ChatRequest): Promise<ChatResult>;
  /** Streams one call. The last part is always `finish`; a stream that ends without it throws `LlmCallError`. */
  stream(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}
