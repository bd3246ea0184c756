import type { TokenUsage } from '../../core/types.js';
import type { ChatRequest, ChatResult, ChatStreamPart, LanguageModel } from '../../providers/llm/language-model.js';

/** Sums what every LLM call of one query cost, whichever helper made it. */
export interface CallMeter {
  /** Tokens of every finished call, cached ones included (they are what the answer consumed). */
  readonly usage: TokenUsage;
  /** Calls that reached the model (cache hits excluded). */
  readonly paidCalls: number;
  /** Every finished call. */
  readonly calls: number;
  /**
   * The model, seen through the meter: each request is marked interactive and tagged with `purpose`, so
   * that helpers which set their own purpose (`generateAnswer` says `answer`) are accounted as this step.
   */
  model(purpose: string): LanguageModel;
}

/** Creates a {@link CallMeter} over `llm`. */
export function createCallMeter(llm: LanguageModel): CallMeter {
  const usage = { inputTokens: 0, outputTokens: 0 };
  let paidCalls = 0;
  let calls = 0;
  const record = (result: ChatResult): void => {
    usage.inputTokens += result.usage.inputTokens;
    usage.outputTokens += result.usage.outputTokens;
    calls += 1;
    if (result.cached !== true) paidCalls += 1;
  };
  return {
    get usage() {
      return { ...usage };
    },
    get paidCalls() {
      return paidCalls;
    },
    get calls() {
      return calls;
    },
    model(purpose) {
      const tag = (request: ChatRequest): ChatRequest => ({ ...request, purpose, priority: 'interactive' });
      return {
        provider: llm.provider,
        modelId: llm.modelId,
        async generate(request) {
          const result = await llm.generate(tag(request));
          record(result);
          return result;
        },
        async *stream(request): AsyncGenerator<ChatStreamPart> {
          for await (const part of llm.stream(tag(request))) {
            if (part.type === 'finish') record(part.result);
            yield part;
          }
        },
      };
    },
  };
}
