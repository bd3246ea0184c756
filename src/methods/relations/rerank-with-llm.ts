import type { LanguageModel } from '../../providers/llm/language-model.js';
import { parseRerankReply, type ParsedRerankReply } from './parse-rerank-reply.js';
import { renderRelationsRerankMessages } from './relations-rerank-prompt.js';

/** Result of {@link rerankWithLlm}. */
export interface LlmRerank {
  /** The chosen facts (fact indices), in the order the model gave them. */
  facts: number[];
  reply: ParsedRerankReply;
}

/** Options of {@link rerankWithLlm}. */
export interface LlmRerankOptions {
  model: LanguageModel;
  /** The rerank prompt text (built-in or the workspace's). */
  promptText: string;
  question: string;
  /** Candidate facts in prompt order, and their sentences. */
  candidates: Int32Array;
  factTexts: readonly string[];
  abortSignal?: AbortSignal;
}

/**
 * The LLM rerank of Graph RAG with Milvus: one JSON call at interactive priority and temperature 0 (the
 * notebook's `temperature=0`) over the candidates listed as `[i] sentence` with small local ids i = 1..N
 * (not the index's fact numbers, so ids are short and an invented id is recognisable), mapped back to facts.
 */
export async function rerankWithLlm(options: LlmRerankOptions): Promise<LlmRerank> {
  const texts = Array.from(options.candidates, (fact) => options.factTexts[fact] ?? '');
  const lines = texts.map((text, position) => `[${position + 1}] ${text}`);
  const reply = await options.model.generate({
    messages: renderRelationsRerankMessages(options.promptText, options.question, lines),
    responseFormat: { type: 'json' },
    temperature: 0,
    purpose: 'relations-rerank',
    priority: 'interactive',
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
  });
  const parsed = parseRerankReply(reply.text, texts);
  return { facts: parsed.selected.map((position) => options.candidates[position] as number), reply: parsed };
}
