import type { ChatMessage, ChatRequest, ChatResult, LanguageModel } from '../../providers/llm/language-model.js';
import { LlmCallError } from '../../providers/llm/llm-call-error.js';
import { isYesAnswer } from './is-yes-answer.js';

/** Request fields shared by every call of one conversation. */
export type ConversationRequest = Pick<ChatRequest, 'purpose' | 'priority' | 'abortSignal' | 'sources'>;

/** One extraction turn's outcome. */
export interface GleaningTurn<T> {
  value: T;
  /** The assistant message that later turns see for this reply. */
  carried: string;
  problems: string[];
}

/** Options of {@link runGleaningConversation}. */
export interface GleaningConversationOptions<T> {
  model: LanguageModel;
  /** The filled extraction prompt (first user turn). */
  prompt: string;
  /** The filled CONTINUE message, sent once per gleaning. */
  continuePrompt: string;
  /** The filled LOOP (Y/N) message, sent between gleanings. */
  loopPrompt: string;
  maxGleanings: number;
  request: ConversationRequest;
  /**
   * Runs one extraction turn (`turn` 0 is the first, 1… the gleanings) on the conversation so far,
   * through `model`, which counts the calls and records the replies.
   */
  runTurn(model: LanguageModel, messages: readonly ChatMessage[], turn: number): Promise<GleaningTurn<T>>;
}

/** Every turn's value in order, with the conversation's raw replies, calls and problems. */
export interface GleaningConversation<T> {
  values: T[];
  /** Every raw reply, in order: extraction turns, loop answers, and replies a repair turn replaced. */
  turns: string[];
  /** Model calls made (repair turns included). */
  calls: number;
  /** Problems of every turn, prefixed with the turn (`extraction:`, `gleaning 2:`). */
  problems: string[];
}

/**
 * GraphRAG's gleaning protocol (microsoft/graphrag
 * `index/operations/extract_graph/graph_extractor.py`, `index/operations/extract_covariates/claim_extractor.py`): one multi-turn conversation — the extraction prompt, then `maxGleanings` CONTINUE turns, each
 * reply appended as an assistant turn; between two gleanings (never after the last, so with one
 * gleaning it never runs) a LOOP question whose answer must be yes ({@link isYesAnswer}) to go on.
 * Calls without repairs: 1 with no gleaning, 2 with one, 2g with g when every loop answer is yes; a no stops early.
 *
 * Differs from GraphRAG: a gleaning whose structured reply stays unusable after its repair turn
 * (`LLM_INVALID_OUTPUT`) ends the gleaning with a problem instead of failing the chunk, because the
 * turns before it are already valid and paid for; the first turn's failure, and any other error
 * (rate limits, aborts), propagates.
 */
export async function runGleaningConversation<T>(options: GleaningConversationOptions<T>): Promise<GleaningConversation<T>> {
  const turns: string[] = [];
  let calls = 0;
  const source = options.model;
  const recording: LanguageModel = {
    provider: source.provider,
    modelId: source.modelId,
    async generate(request): Promise<ChatResult> {
      calls += 1;
      // Every call after the first continues a conversation already started: it yields to batch calls that start
      // other conversations (see `CallPriority`), so a step's last conversations do not glean alone at its end.
      const continuing = calls > 1 && (request.priority ?? 'batch') === 'batch';
      const result = await source.generate(continuing ? { ...request, priority: 'batch-continuation' } : request);
      turns.push(result.text);
      return result;
    },
    stream: (request) => source.stream(request),
  };

  const values: T[] = [];
  const problems: string[] = [];
  const record = (turn: number, outcome: GleaningTurn<T>): void => {
    values.push(outcome.value);
    const label = turn === 0 ? 'extraction' : `gleaning ${turn}`;
    for (const problem of outcome.problems) problems.push(`${label}: ${problem}`);
  };

  // Each request gets its own copy of the conversation: wrappers and fakes may keep the request.
  let messages: ChatMessage[] = [{ role: 'user', content: options.prompt }];
  const first = await options.runTurn(recording, messages, 0);
  record(0, first);
  messages = [...messages, { role: 'assistant', content: first.carried }];

  for (let gleaning = 1; gleaning <= options.maxGleanings; gleaning += 1) {
    messages = [...messages, { role: 'user', content: options.continuePrompt }];
    let outcome: GleaningTurn<T>;
    try {
      outcome = await options.runTurn(recording, messages, gleaning);
    } catch (error) {
      if (!LlmCallError.isInstance(error) || error.code !== 'LLM_INVALID_OUTPUT') throw error;
      problems.push(`gleaning ${gleaning}: the reply stayed unusable after its repair turn, so gleaning stopped and the earlier turns were kept (${error.message})`);
      break;
    }
    record(gleaning, outcome);
    messages = [...messages, { role: 'assistant', content: outcome.carried }];
    if (gleaning === options.maxGleanings) break;

    messages = [...messages, { role: 'user', content: options.loopPrompt }];
    const answer = await recording.generate({ ...options.request, messages });
    messages = [...messages, { role: 'assistant', content: answer.text }];
    if (!isYesAnswer(answer.text)) break;
  }
  return { values, turns, calls, problems };
}
