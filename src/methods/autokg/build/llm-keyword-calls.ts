import { fillPrompt, type PromptLibrary } from '../../../core/prompt-library.js';
import type { Random } from '../../../core/random.js';
import type { LanguageModel } from '../../../providers/llm/language-model.js';
import type { Tokenizer } from '../../../text/tokenizer.js';
import type { ChunkClusteringMethod } from './cluster-chunk-embeddings.js';
import { autoKgKeywordPrompts } from './keyword-prompts.js';
import { parseKeywordReply } from './parse-keyword-reply.js';

/*
 * The model calls of AutoKG's keyword extraction (Chen & Bertozzi, arXiv 2311.14740 §3.1; wispcarey/AutoKG
 * `autoKG_full.py: summary_contents → core_text_filter`, `final_keywords_filter`), shared by the full run
 * (extract-llm-keywords.ts) and an update that names only the clusters whose members changed
 * (update-llm-keywords.ts), so that both send the same prompts for the same inputs: one cluster's extraction
 * and refinement, the refinement of a whole list, and the three final passes.
 */

/** Defaults of the keyword calls (paper / notebook). */
export const llmKeywordCallDefaults = {
  topic: 'the main subjects of the documents',
  keywordsPerCluster: 10,
  maxWords: 3,
  avoidSample: 300,
  language: 'English',
  maxPromptTokens: 7400,
  /** `summary_contents` max_tokens. */
  maxReplyTokens: 200,
} as const;

/** Settings of the keyword calls. */
export interface LlmKeywordSettings {
  /** Main topic named in every prompt. */
  topic?: string;
  /** l1: keywords asked per cluster. @default 10 */
  keywordsPerCluster?: number;
  /** l2: words per keyword at most. @default 3 */
  maxWords?: number;
  /** m: previous keywords sampled into the avoid list. @default 300 */
  avoidSample?: number;
  /** @default 'English' */
  language?: string;
  /** Token budget of one extraction prompt. @default 7400 */
  maxPromptTokens?: number;
}

/** What every keyword call reads. */
export interface LlmKeywordCallInput {
  chunkTexts: readonly string[];
  /**
   * Content hashes of `chunkTexts`, position by position, to tag the cached replies (`ChatRequest.sources`) with
   * the chunks a call's prompt was built from. @default none
   */
  chunkSources?: readonly string[];
  tokenizer: Tokenizer;
  prompts: PromptLibrary;
  settings?: LlmKeywordSettings;
  abortSignal?: AbortSignal;
}

/** One model call of the extraction, as kept for the index. */
export interface LlmKeywordCall {
  purpose: 'autokg-extract' | 'autokg-refine' | 'autokg-refine-all' | 'autokg-final';
  /** Which clustering and cluster it served (−1: not one cluster). */
  method: ChunkClusteringMethod | 'all';
  cluster: number;
  reply: string;
  inputTokens: number;
  outputTokens: number;
}

/** The keywords one cluster was named with, and the chunks its prompt showed. */
export interface NamedCluster {
  /** The refined keywords of the cluster, as parsed (not yet deduplicated against other clusters). */
  keywords: string[];
  /** Chunk indices shown in the extraction prompt, in prompt order. */
  shown: number[];
}

/** The keyword calls bound to one model and input. */
export interface LlmKeywordCalls {
  readonly settings: Required<LlmKeywordSettings>;
  /**
   * Names one cluster: packs `chunks` (in order, skipping those that do not fit) into the extraction prompt with an
   * avoid list of m keywords sampled from `avoidFrom` by `random`, asks, and refines the reply. The shown chunks are
   * added to `sources` before the calls, which name all of `sources`. `next` is the cluster that will be named after
   * this one, whose chunks are counted meanwhile.
   */
  nameCluster(
    log: LlmKeywordCall[],
    method: ChunkClusteringMethod,
    cluster: number,
    chunks: Int32Array,
    avoidFrom: readonly string[],
    random: Random,
    sources: Set<number>,
    next?: Int32Array,
  ): Promise<NamedCluster>;
  /** The refinement of a whole list (no call for an empty list). */
  refine(log: LlmKeywordCall[], purpose: 'autokg-refine' | 'autokg-refine-all', method: LlmKeywordCall['method'], cluster: number, keywords: readonly string[], sources: ReadonlySet<number>): Promise<string[]>;
  /** The three final passes, one after another, each reading the previous one's list; an unusable reply keeps the list it was given. */
  finalPasses(log: LlmKeywordCall[], keywords: readonly string[], sources: ReadonlySet<number>): Promise<string[]>;
  /** Chunks that did not fit a prompt so far. */
  skippedChunks(): number;
}

/** Binds the keyword calls to `llm` and `input`. Every call has priority 'batch' and temperature 0. */
export function createLlmKeywordCalls(llm: LanguageModel, input: LlmKeywordCallInput): LlmKeywordCalls {
  const settings = { ...llmKeywordCallDefaults, ...input.settings };
  const { prompts, tokenizer } = input;
  let skippedChunks = 0;

  const sourcesOf = (shown: ReadonlySet<number>): string[] => {
    const hashes = new Set<string>();
    for (const chunk of shown) {
      const hash = input.chunkSources?.[chunk];
      if (hash !== undefined) hashes.add(hash);
    }
    return [...hashes].sort();
  };
  const call = async (log: LlmKeywordCall[], purpose: LlmKeywordCall['purpose'], method: LlmKeywordCall['method'], cluster: number, prompt: string, maxOutputTokens: number, shown: ReadonlySet<number>): Promise<string> => {
    const result = await llm.generate({
      messages: [{ role: 'user', content: prompt }],
      temperature: 0,
      maxOutputTokens,
      purpose,
      priority: 'batch',
      ...(input.chunkSources === undefined ? {} : { sources: sourcesOf(shown) }),
      ...(input.abortSignal === undefined ? {} : { abortSignal: input.abortSignal }),
    });
    log.push({ purpose, method, cluster, reply: result.text, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens });
    return result.text;
  };
  const refine: LlmKeywordCalls['refine'] = async (log, purpose, method, cluster, keywords, shown) => {
    if (keywords.length === 0) return [];
    const list = keywords.join(', ');
    const prompt = fillPrompt(prompts.text(autoKgKeywordPrompts.refine), { main_topic: settings.topic, max_words: String(settings.maxWords), keywords: list });
    // The reference allows as many output tokens as the input list has; a little slack for the separators.
    const reply = await call(log, purpose, method, cluster, prompt, tokenizer.count(list) + 16, shown);
    return parseKeywordReply(reply);
  };

  const chunkText = (chunk: number): string => `* ${input.chunkTexts[chunk] ?? ''}\n`;
  // Token counts of shown chunks, needed before each prompt: counted once (both clusterings show most chunks), the
  // next cluster's while the current request is out.
  const chunkTokens = new Map<number, number>();
  const chunkCost = (chunk: number): number => {
    let cost = chunkTokens.get(chunk);
    if (cost === undefined) chunkTokens.set(chunk, (cost = tokenizer.count(chunkText(chunk))));
    return cost;
  };
  const countLater = (chunks: Int32Array | undefined): void => {
    if (chunks !== undefined) setImmediate(() => chunks.forEach((chunk) => chunkCost(chunk)));
  };

  return {
    settings,
    async nameCluster(log, method, cluster, chunks, avoidFrom, random, sources, next) {
      const avoid = sampleInOrder(avoidFrom, settings.avoidSample, random).join(',');
      const values = { main_topic: settings.topic, num_keywords: String(settings.keywordsPerCluster), max_words: String(settings.maxWords), language: settings.language, avoid };
      const template = prompts.text(autoKgKeywordPrompts.extract);
      let budget = settings.maxPromptTokens - tokenizer.count(fillPrompt(template, { ...values, texts: '' }));
      const texts: string[] = [];
      const shown: number[] = [];
      for (const chunk of chunks) {
        const cost = chunkCost(chunk);
        if (cost > budget) {
          skippedChunks++;
          continue;
        }
        budget -= cost;
        texts.push(chunkText(chunk));
        shown.push(chunk);
        sources.add(chunk);
      }
      const extraction = call(log, 'autokg-extract', method, cluster, fillPrompt(template, { ...values, texts: texts.join('') }), llmKeywordCallDefaults.maxReplyTokens, sources);
      countLater(next);
      const reply = await extraction;
      return { keywords: await refine(log, 'autokg-refine', method, cluster, parseKeywordReply(reply), sources), shown };
    },
    refine,
    async finalPasses(log, keywords, sources) {
      let current = [...keywords];
      for (const template of [autoKgKeywordPrompts.finalMerge, autoKgKeywordPrompts.finalSplit, autoKgKeywordPrompts.finalDelete]) {
        if (current.length === 0) break;
        const list = current.join(', ');
        const reply = await call(log, 'autokg-final', 'all', -1, fillPrompt(prompts.text(template), { max_words: String(settings.maxWords), keywords: list }), tokenizer.count(list) + 16, sources);
        const parsed = parseKeywordReply(reply);
        if (parsed.length > 0) current = parsed;
      }
      return current;
    },
    skippedChunks: () => skippedChunks,
  };
}

/** At most `count` items drawn without replacement, in their original order (the avoid list's sample of m). */
function sampleInOrder(items: readonly string[], count: number, random: Random): string[] {
  if (items.length <= count) return [...items];
  const indices = items.map((_, index) => index);
  for (let draw = 0; draw < count; draw++) {
    const pick = draw + Math.floor(random() * (indices.length - draw));
    const value = indices[pick] as number;
    indices[pick] = indices[draw] as number;
    indices[draw] = value;
  }
  return indices
    .slice(0, count)
    .sort((left, right) => left - right)
    .map((index) => items[index] as string);
}
