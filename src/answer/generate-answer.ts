import type { ChatMessage, LanguageModel } from '../providers/llm/language-model.js';
import type { TokenUsage } from '../core/types.js';
import type { CitedAnswer, Citation, CitedDataset } from './answer-types.js';
import { parseDataReferences } from './data-references.js';

/** A record the answer may cite, by dataset and human-readable id. */
export type CitableRecord = Omit<Citation, 'dataset' | 'hid'>;

/** Options of {@link generateAnswer}. */
export interface GenerateAnswerOptions {
  model: LanguageModel;
  systemPrompt: string;
  question: string;
  /** Earlier turns of the conversation, between the system prompt and the question. */
  history?: readonly ChatMessage[];
  /** Records the context showed, so that cited hids map back to real ids. */
  citable: Partial<Record<CitedDataset, ReadonlyMap<number, CitableRecord>>>;
  /** Receives the answer text as it streams; without it the call is not streamed. */
  onText?: (delta: string) => void;
  abortSignal?: AbortSignal;
  maxOutputTokens?: number;
  temperature?: number;
}

/** A generated answer with its usage, and the references it made that match no record of the context. */
export interface GeneratedAnswer extends CitedAnswer {
  usage: TokenUsage;
  cached: boolean;
  /** Distinct references to ids the context did not contain (invented citations), counted, not shown. */
  unknownReferences: number;
}

/** Asks the LLM to answer from the packed context and maps its `[Data: …]` references to records. */
export async function generateAnswer(options: GenerateAnswerOptions): Promise<GeneratedAnswer> {
  const request = {
    messages: [
      { role: 'system' as const, content: options.systemPrompt },
      ...(options.history ?? []),
      { role: 'user' as const, content: options.question },
    ],
    purpose: 'answer',
    priority: 'interactive' as const,
    ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
  };
  let text = '';
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let cached = false;
  if (options.onText) {
    for await (const part of options.model.stream(request)) {
      if (part.type === 'text-delta') {
        text += part.text;
        options.onText(part.text);
      } else {
        text = part.result.text;
        usage = part.result.usage;
        cached = part.result.cached === true;
      }
    }
  } else {
    const result = await options.model.generate(request);
    text = result.text;
    usage = result.usage;
    cached = result.cached === true;
  }

  const citations: Citation[] = [];
  const seen = new Set<string>();
  const unknown = new Set<string>();
  for (const reference of parseDataReferences(text)) {
    const records = options.citable[reference.dataset];
    for (const hid of reference.hids) {
      const key = `${reference.dataset}:${hid}`;
      const record = records?.get(hid);
      if (!record) {
        unknown.add(key);
        continue;
      }
      if (seen.has(key)) continue;
      seen.add(key);
      citations.push({ dataset: reference.dataset, hid, ...record });
    }
  }
  return { answer: { text: text.trim(), kind: 'generated' }, citations, usage, cached, unknownReferences: unknown.size };
}
