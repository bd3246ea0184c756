import { KgragError } from '../core/errors.js';
import type { ChatRequest, ChatResult, ChatStreamPart, FinishReason, LanguageModel } from '../providers/llm/language-model.js';
import { countPromptTokens, estimateTokenCount } from '../providers/llm/token-estimate.js';

/**
 * A scripted reply: text, an object (sent as its JSON), an `Error` (thrown, to script failures), or
 * a function of the request returning one of those.
 */
export type ScriptedReply =
  | string
  | object
  | ((request: ChatRequest) => string | object | Promise<string | object>);

/** One entry of the script. */
export interface ScriptedResponse {
  /**
   * Which requests this entry answers: a substring of, or a RegExp tested against, the last user
   * message; or a predicate over the whole request. @default every request
   */
  match?: string | RegExp | ((request: ChatRequest) => boolean);
  reply: ScriptedReply;
  /** How many requests this entry answers before it is used up. @default unlimited */
  times?: number;
}

/** Options of {@link createScriptedLanguageModel}. */
export interface ScriptedLanguageModelOptions {
  /** @default 'scripted-model' */
  modelId?: string;
  /** Tried in order; the first matching entry that is not used up answers. */
  responses: readonly ScriptedResponse[];
  /** Answers requests no entry matches. @default none: such requests throw `SCRIPTED_LLM_NO_MATCH` */
  fallback?: ScriptedReply;
  /** @default 'stop' */
  finishReason?: FinishReason;
}

/** A {@link LanguageModel} that answers from a script and records what it was asked. */
export interface ScriptedLanguageModel extends LanguageModel {
  /** Every request received, in order (failed ones included). */
  readonly calls: readonly ChatRequest[];
}

/**
 * A deterministic fake chat model for tests and examples: no network, replies chosen by matchers,
 * usage estimated from text length (`usage.estimated: true`). Streaming splits the reply into a few
 * deltas.
 *
 * @example
 * ```ts
 * import { createScriptedLanguageModel } from 'kgrag/testing';
 *
 * const model = createScriptedLanguageModel({
 *   responses: [
 *     { match: 'Extract entities', reply: { entities: [{ name: 'Ada Lovelace', type: 'person' }] } },
 *     { match: /^Summarize/, reply: 'A short summary.', times: 1 },
 *     { match: (request) => request.purpose === 'rate', reply: () => ({ rating: 7 }) },
 *     { match: 'flaky', reply: new Error('boom') },
 *   ],
 *   fallback: 'I do not know.',
 * });
 * const result = await model.generate({ messages: [{ role: 'user', content: 'Extract entities from: …' }] });
 * // result.text === '{"entities":[{"name":"Ada Lovelace","type":"person"}]}'
 * // model.calls.length === 1
 * ```
 */
export function createScriptedLanguageModel(options: ScriptedLanguageModelOptions): ScriptedLanguageModel {
  const modelId = options.modelId ?? 'scripted-model';
  const calls: ChatRequest[] = [];
  const used = options.responses.map(() => 0);

  const answer = async (request: ChatRequest): Promise<ChatResult> => {
    calls.push(request);
    request.abortSignal?.throwIfAborted();
    const lastUser = [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
    const index = options.responses.findIndex(
      (entry, position) => (entry.times === undefined || (used[position] ?? 0) < entry.times) && matches(entry, request, lastUser),
    );
    let reply: ScriptedReply | undefined;
    if (index !== -1) {
      used[index] = (used[index] ?? 0) + 1;
      reply = options.responses[index]?.reply;
    } else {
      reply = options.fallback;
    }
    if (reply === undefined) {
      const excerpt = lastUser.length > 300 ? `${lastUser.slice(0, 300)}…` : lastUser;
      throw new KgragError(`Scripted LLM "${modelId}" has no response for the request whose last user message is:\n${excerpt}`, {
        code: 'SCRIPTED_LLM_NO_MATCH',
        category: 'internal',
        hint: 'Add a response whose `match` covers this message, or set `fallback`',
        details: { lastUserMessage: lastUser, calls: calls.length },
      });
    }
    const produced = typeof reply === 'function' ? await reply(request) : reply;
    if (produced instanceof Error) throw produced;
    const text = typeof produced === 'string' ? produced : JSON.stringify(produced);
    return {
      text,
      usage: { inputTokens: countPromptTokens(request.messages), outputTokens: estimateTokenCount(text), estimated: true },
      finishReason: options.finishReason ?? 'stop',
      modelId,
    };
  };

  async function* stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
    const result = await answer(request);
    for (const piece of splitIntoDeltas(result.text, 3)) {
      request.abortSignal?.throwIfAborted();
      yield { type: 'text-delta', text: piece };
    }
    yield { type: 'finish', result };
  }

  return {
    provider: 'scripted',
    modelId,
    calls,
    generate: answer,
    stream,
  };
}

function matches(entry: ScriptedResponse, request: ChatRequest, lastUser: string): boolean {
  const { match } = entry;
  if (match === undefined) return true;
  if (typeof match === 'string') return lastUser.includes(match);
  if (match instanceof RegExp) {
    match.lastIndex = 0;
    return match.test(lastUser);
  }
  return match(request);
}

function splitIntoDeltas(text: string, count: number): string[] {
  if (text.length === 0) return [];
  const size = Math.ceil(text.length / count);
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}
