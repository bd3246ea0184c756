import { fillPrompt, type PromptTemplate } from '../core/prompt-library.js';
import type { TokenUsage } from '../core/types.js';
import type { ChatMessage, LanguageModel } from '../providers/llm/language-model.js';

/**
 * The prompt that turns a conversation's last question into one that stands alone ("Who designed it?" after talk of
 * the Kester Weir Bridge: "Who designed the Kester Weir Bridge?"), so retrieval searches for what was meant — the
 * step LangChain calls condensing the question, and that LightRAG's and GraphRAG's conversation history stand in for.
 * Placeholders: `{conversation}`, `{question}`.
 */
export const condenseQuestionPrompt: PromptTemplate = {
  name: 'condense-question',
  description: 'Rewrites the last question of a conversation as a standalone question before retrieval; placeholders {conversation}, {question}',
  text: `Rewrite the user's last question so that it can be understood without the conversation before it: replace pronouns and vague references ("it", "that bridge", "the second one") with what they refer to in the conversation. Keep the question's meaning, language and wording otherwise. If it already stands alone, return it unchanged. Reply with the question only, on one line, with no preamble and no quotes.

Conversation:
{conversation}

Last question: {question}

Standalone question:`,
};

/** Characters of conversation the prompt holds, the most recent kept: enough for the references of one question. */
const maxConversationCharacters = 6_000;

/** What {@link condenseQuestion} returns: the question to retrieve with, and what asking cost. */
export interface CondensedQuestion {
  question: string;
  usage: TokenUsage;
  /** Whether the model was called (not answered from the cache). */
  called: boolean;
}

/**
 * The last question of `history` + `question` as a standalone question, asked of `model`. A reply that is empty, too
 * long to be a question (a model that answered instead), or several lines keeps the question as it was.
 */
export async function condenseQuestion(options: { model: LanguageModel; template: string; history: readonly ChatMessage[]; question: string; abortSignal?: AbortSignal }): Promise<CondensedQuestion> {
  const turns = options.history.filter((turn) => turn.role !== 'system').map((turn) => `${turn.role === 'user' ? 'User' : 'Assistant'}: ${turn.content.replace(/\s+/g, ' ').trim()}`);
  let conversation = turns.join('\n');
  if (conversation.length > maxConversationCharacters) conversation = conversation.slice(conversation.length - maxConversationCharacters);
  const prompt = fillPrompt(options.template, { conversation, question: options.question });
  const result = await options.model.generate({
    messages: [{ role: 'user', content: prompt }],
    temperature: 0,
    maxOutputTokens: 200,
    purpose: 'condense-question',
    priority: 'interactive',
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
  });
  const reply = result.text.trim().replace(/^standalone question:\s*/i, '').replace(/^["'“]|["'”]$/g, '').trim();
  const usable = reply.length > 0 && !reply.includes('\n') && reply.length <= Math.max(400, options.question.length * 4);
  return { question: usable ? reply : options.question, usage: result.usage, called: result.cached !== true };
}
