import type { CitedDataset, ContextChunk } from '../../answer/answer-types.js';
import { basicAnswerSystemPrompt, renderBasicAnswerPrompt } from '../../answer/basic-answer-prompt.js';
import { extractiveAnswer, type ExtractiveRecord } from '../../answer/extractive-answer.js';
import { generateAnswer, type CitableRecord } from '../../answer/generate-answer.js';
import { isCorpusFitted } from '../../providers/embed/embedder.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import type { AnswerOptions, MethodAnswer, MethodContext } from '../query-method.js';

/** What {@link answerFromContext} answers from. */
export interface PackedAnswerContext {
  question: string;
  /** The packed context as the LLM reads it, and its size. */
  contextText: string;
  contextTokens: number;
  /** The passages of the context: quoted by the extractive answer, citable as `Sources` by default. */
  passages: readonly ContextChunk[];
  /** The whole system prompt; default: the basic answer prompt around `contextText`. */
  systemPrompt?: string;
  /** Records the context lets the answer cite; default: `passages` as `Sources`. */
  citable?: Partial<Record<CitedDataset, ReadonlyMap<number, CitableRecord>>>;
  /** The model to call (e.g. a metered one); default: the workspace's. */
  model?: LanguageModel;
  /** Written records besides the passages that the extractive answer may quote (LLM-written descriptions and reports). */
  records?: readonly ExtractiveRecord[];
}

const noUsage = { usage: { inputTokens: 0, outputTokens: 0 }, llmCalls: 0, unknownReferences: 0 };

/**
 * The last step every method shares once its context is packed: nothing but the context (`--context-only`),
 * the best evidence sentences of its passages (and of its written records) when no LLM is configured, or one (streamed) generated answer
 * whose `[Data: …]` references map back to records.
 */
export async function answerFromContext(context: MethodContext, input: PackedAnswerContext, options: AnswerOptions): Promise<MethodAnswer> {
  const { contextText, contextTokens } = input;
  if (options.contextOnly) return { answer: { text: '', kind: 'none' }, citations: [], contextText, contextTokens, ...noUsage };
  const model = input.model ?? context.llm;
  if (!model) {
    const { embedder } = context;
    const extractive = await context.trace.time('extractive-answer', () =>
      extractiveAnswer(input.question, input.passages, { ...(isCorpusFitted(embedder) ? { embedder } : {}), ...(input.records === undefined ? {} : { records: input.records }) }),
    );
    return { ...extractive, contextText, contextTokens, ...noUsage };
  }
  const citable = input.citable ?? {
    Sources: new Map(input.passages.map((chunk) => [chunk.hid, { id: chunk.id, title: chunk.documentTitle, source: chunk.source, quote: chunk.text }])),
  };
  const systemPrompt = input.systemPrompt ?? renderBasicAnswerPrompt(context.prompts.text(basicAnswerSystemPrompt), contextText, context.config.query.responseType);
  const generated = await context.trace.time('generate-answer', () =>
    generateAnswer({
      model,
      systemPrompt,
      question: input.question,
      history: context.history,
      citable,
      ...(options.onText === undefined ? {} : { onText: options.onText }),
      ...(context.signal === undefined ? {} : { abortSignal: context.signal }),
    }),
  );
  return {
    answer: generated.answer,
    citations: generated.citations,
    contextText,
    contextTokens,
    usage: generated.usage,
    llmCalls: generated.cached ? 0 : 1,
    unknownReferences: generated.unknownReferences,
  };
}
