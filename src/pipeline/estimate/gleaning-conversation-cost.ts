import { countPromptTokens } from '../../providers/llm/token-estimate.js';

/** Token sizes of the parts of one gleaning conversation (`runGleaningConversation`). */
export interface GleaningConversationParts {
  /** Tokens of the filled extraction prompt (the first user turn). */
  promptTokens: number;
  /** Tokens of the filled CONTINUE message. */
  continueTokens: number;
  /** Tokens of the LOOP (Y/N) question. */
  loopTokens: number;
  /** Tokens of the model's first reply, as billed. */
  firstReplyTokens: number;
  /** Tokens of each gleaning reply, as billed. */
  gleaningReplyTokens: number;
  /**
   * Tokens of a reply as later turns resend it, when it differs from the billed reply: JSON turns carry
   * the parsed object re-serialized compactly. Given as a share of the billed tokens. @default 1
   */
  carriedShare?: number;
  /** Tokens of a loop answer ("Y"). */
  loopAnswerTokens: number;
  /** `maxGleanings`. */
  maxGleanings: number;
}

/** Calls and tokens of one conversation. */
export interface GleaningConversationCost {
  /** Calls when every loop answer is yes: `1 + g + max(0, g − 1)`. */
  calls: number;
  /** Calls when the first loop answer is no: the same as `calls` for g ≤ 1, else 3. */
  minCalls: number;
  /** Prompt tokens of all calls of the `calls` case, each call resending the conversation so far. */
  inputTokens: number;
  /** Reply tokens of all calls of the `calls` case. */
  outputTokens: number;
}

/**
 * Replays the turn order of `runGleaningConversation` on token counts instead of texts: the prompt; then per
 * gleaning the CONTINUE message and its reply; between two gleanings (never after the last) the LOOP question
 * and its answer. Every call is billed for the whole conversation so far, counted as `countPromptTokens`
 * counts a request (message contents plus OpenAI's per-message framing), so the history of the earlier
 * replies is paid again on each later turn. Repair turns after unusable replies are not included: they
 * depend on the model's mistakes, not on the input.
 */
export function gleaningConversationCost(parts: GleaningConversationParts): GleaningConversationCost {
  const messages: number[] = [parts.promptTokens];
  let calls = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  // `countPromptTokens` adds the framing to each message's content tokens; feeding it empty messages of the
  // right count and adding the content separately avoids rebuilding texts of known length.
  const carriedShare = parts.carriedShare ?? 1;
  const call = (replyTokens: number, carried: number): void => {
    calls += 1;
    inputTokens += countPromptTokens(messages.map(() => ({ role: 'user', content: '' }))) + messages.reduce((sum, tokens) => sum + tokens, 0);
    outputTokens += replyTokens;
    messages.push(carried);
  };

  call(parts.firstReplyTokens, Math.round(parts.firstReplyTokens * carriedShare));
  for (let gleaning = 1; gleaning <= parts.maxGleanings; gleaning += 1) {
    messages.push(parts.continueTokens);
    call(parts.gleaningReplyTokens, Math.round(parts.gleaningReplyTokens * carriedShare));
    if (gleaning === parts.maxGleanings) break;
    messages.push(parts.loopTokens);
    call(parts.loopAnswerTokens, parts.loopAnswerTokens);
  }
  return { calls, minCalls: parts.maxGleanings <= 1 ? calls : 3, inputTokens, outputTokens };
}
