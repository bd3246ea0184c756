import { appendAll } from '../../../core/append-all.js';
import { maxOf } from '../../../core/max-of.js';
import { fillPrompt, type PromptLibrary } from '../../../core/prompt-library.js';
import { createRandom, type Random } from '../../../core/random.js';
import type { LanguageModel } from '../../../providers/llm/language-model.js';
import type { Tokenizer } from '../../../text/tokenizer.js';
import type { ChunkClusteringMethod } from './cluster-chunk-embeddings.js';
import { filterKeywords } from './filter-keywords.js';
import { autoKgKeywordPrompts } from './keyword-prompts.js';
import { parseKeywordReply } from './parse-keyword-reply.js';

/*
 * AutoKG's LLM keyword extraction (Chen & Bertozzi, arXiv 2311.14740 §3.1; wispcarey/AutoKG
 * `autoKG_full.py: cluster → summary_contents → core_text_filter`, then `sub_entry_filter` and
 * `final_keywords_filter`; wispcarey/AutoKG `autoKG_full.py`). Per clustering, cluster by cluster in order:
 * the cluster's selected chunks (packed into `maxPromptTokens`), the extraction prompt with the main topic,
 * l1 keywords of at most l2 words, the language and an avoid list of m keywords sampled from those the
 * clustering found so far; the reply is refined by a second call and appended. Then one refinement over the
 * clustering's whole list; the clusterings' lists are united, deduplicated and substring-filtered, and
 * three final passes run one after another (merge/deduplicate, split, delete vague), each reading the
 * previous one's output. The final list is trimmed, deduplicated and substring-filtered again.
 *
 * Differences from the reference, on purpose: the avoid list really is a seeded sample of m = 300 (the
 * reference computed the sample and then sent every previous keyword); a chunk that does not fit the
 * prompt budget is skipped and smaller later ones are still tried (the reference stopped at the first);
 * every call goes to the configured model (the reference hard-coded gpt-4 for refinement); replies are
 * parsed tolerantly (parse-keyword-reply.ts). The two clusterings' chains are independent (the reference
 * starts each `cluster()` call with an empty avoid list) and run concurrently, each with its own seeded
 * sampler and call log, so nothing depends on which reply arrives first. Within a chain the calls are
 * sequential: cluster i + 1's avoid list holds cluster i's *refined* keywords (`cluster_names.extend(
 * processed_center)` before the next prompt), so a refinement cannot overlap the next extraction without
 * changing the prompts. The critical path is therefore at most 2n + 1 calls per chain plus the 3 final passes
 * (`criticalPath`). Every call has priority 'batch'.
 *
 * Cost: the paper's bound (formula (1)) on the tokens of keyword extraction is
 * 2n(2cT + (m + 2·l1)(l2 + 1)) + L_F, with n clusters per clustering, 2c chunks of at most T tokens per
 * cluster and L_F the tokens of the final passes; {@link paperTokenBound} computes it with T = the longest
 * chunk and L_F = the final passes' measured tokens, to be reported beside the tokens actually used.
 *
 * Defaults (paper / notebook): l1 = 10, l2 = 3, m = 300, prompt budget 7,400 tokens (the reference's gpt-4
 * `max_num_tokens − 500`), extraction replies ≤ 200 tokens.
 */

/** Defaults of {@link extractLlmKeywords}. */
export const extractLlmKeywordsDefaults = {
  topic: 'the main subjects of the documents',
  keywordsPerCluster: 10,
  maxWords: 3,
  avoidSample: 300,
  language: 'English',
  maxPromptTokens: 7400,
  /** `summary_contents` max_tokens. */
  maxReplyTokens: 200,
} as const;

/** Settings of {@link extractLlmKeywords}. */
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

/** The chunks of one clustering shown to the model, cluster by cluster. */
export interface ClusterSelection {
  method: ChunkClusteringMethod;
  /** Chunk indices per cluster, in the order they are shown. */
  clusters: readonly Int32Array[];
}

/** Input of {@link extractLlmKeywords}. */
export interface LlmKeywordInput {
  selections: readonly ClusterSelection[];
  chunkTexts: readonly string[];
  /**
   * Content hashes of `chunkTexts`, position by position, to tag the cached replies (`ChatRequest.sources`): a
   * cluster's extraction and refinement name the chunks its clustering has shown so far (its prompt holds its own
   * chunks and, in the avoid list, keywords drawn from the earlier ones); the final passes name every chunk shown.
   * @default none
   */
  chunkSources?: readonly string[];
  tokenizer: Tokenizer;
  prompts: PromptLibrary;
  settings?: LlmKeywordSettings;
  /** Seed of the avoid-list sampling. */
  seed: number;
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

/** Result of {@link extractLlmKeywords}. */
export interface LlmKeywordResult {
  keywords: string[];
  /** Keywords of each clustering after its global refinement. */
  byMethod: Record<string, string[]>;
  calls: LlmKeywordCall[];
  inputTokens: number;
  outputTokens: number;
  /** Tokens of the three final passes (L_F of formula (1)). */
  finalPassTokens: number;
  /** Chunks that did not fit a prompt. */
  skippedChunks: number;
  /**
   * Calls on the longest chain of calls that each wait for the one before: the longer clustering's chain
   * (its extractions, refinements and global refinement) plus the final passes.
   */
  criticalPath: number;
}

/** The paper's bound 2n(2cT + (m + 2·l1)(l2 + 1)) + L_F on the keyword-extraction tokens (formula (1)). */
export function paperTokenBound(parameters: { clusters: number; perCluster: number; chunkTokens: number; avoidSample: number; keywordsPerCluster: number; maxWords: number; finalPassTokens: number }): number {
  const { clusters, perCluster, chunkTokens, avoidSample, keywordsPerCluster, maxWords, finalPassTokens } = parameters;
  return 2 * clusters * (2 * perCluster * chunkTokens + (avoidSample + 2 * keywordsPerCluster) * (maxWords + 1)) + finalPassTokens;
}

/** Runs AutoKG's keyword extraction with `llm`. Deterministic given the model's replies. */
export async function extractLlmKeywords(llm: LanguageModel, input: LlmKeywordInput): Promise<LlmKeywordResult> {
  const settings = { ...extractLlmKeywordsDefaults, ...input.settings };
  const { prompts, tokenizer } = input;
  const calls: LlmKeywordCall[] = [];
  let skippedChunks = 0;

  // Each chain records into its own list, so the order of `calls` does not depend on reply timing.
  const call = async (
    log: LlmKeywordCall[],
    purpose: LlmKeywordCall['purpose'],
    method: LlmKeywordCall['method'],
    cluster: number,
    prompt: string,
    maxOutputTokens: number,
    shown: ReadonlySet<number>,
  ): Promise<string> => {
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
  const sourcesOf = (shown: ReadonlySet<number>): string[] => {
    const hashes = new Set<string>();
    for (const chunk of shown) {
      const hash = input.chunkSources?.[chunk];
      if (hash !== undefined) hashes.add(hash);
    }
    return [...hashes].sort();
  };
  const refine = async (
    log: LlmKeywordCall[],
    purpose: 'autokg-refine' | 'autokg-refine-all',
    method: LlmKeywordCall['method'],
    cluster: number,
    keywords: readonly string[],
    shown: ReadonlySet<number>,
  ): Promise<string[]> => {
    if (keywords.length === 0) return [];
    const list = keywords.join(', ');
    const prompt = fillPrompt(prompts.text(autoKgKeywordPrompts.refine), { main_topic: settings.topic, max_words: String(settings.maxWords), keywords: list });
    // The reference allows as many output tokens as the input list has; a little slack for the separators.
    const reply = await call(log, purpose, method, cluster, prompt, tokenizer.count(list) + 16, shown);
    return parseKeywordReply(reply);
  };

  const chunkText = (chunk: number): string => `* ${input.chunkTexts[chunk] ?? ''}\n`;
  // Token counts of shown chunks, needed on the chain before each prompt: counted once (both clusterings
  // show most chunks), the next cluster's while the current request is out.
  const chunkTokens = new Map<number, number>();
  const chunkCost = (chunk: number): number => {
    let cost = chunkTokens.get(chunk);
    if (cost === undefined) chunkTokens.set(chunk, (cost = tokenizer.count(chunkText(chunk))));
    return cost;
  };
  const countLater = (chunks: Int32Array | undefined): void => {
    if (chunks !== undefined) setImmediate(() => chunks.forEach((chunk) => chunkCost(chunk)));
  };
  // Chunks shown by every chain: the final passes read keywords drawn from all of them.
  const shownAnywhere = new Set<number>();
  const runChain = async (selection: ClusterSelection, random: Random, log: LlmKeywordCall[]): Promise<string[]> => {
    let found: string[] = [];
    const shownInChain = new Set<number>();
    for (const [cluster, chunks] of selection.clusters.entries()) {
      if (chunks.length === 0) continue;
      const avoid = sampleInOrder(found, settings.avoidSample, random).join(',');
      const values = { main_topic: settings.topic, num_keywords: String(settings.keywordsPerCluster), max_words: String(settings.maxWords), language: settings.language, avoid };
      const template = prompts.text(autoKgKeywordPrompts.extract);
      let budget = settings.maxPromptTokens - tokenizer.count(fillPrompt(template, { ...values, texts: '' }));
      const texts: string[] = [];
      for (const chunk of chunks) {
        const cost = chunkCost(chunk);
        if (cost > budget) {
          skippedChunks++;
          continue;
        }
        budget -= cost;
        texts.push(chunkText(chunk));
        shownInChain.add(chunk);
        shownAnywhere.add(chunk);
      }
      const extraction = call(log, 'autokg-extract', selection.method, cluster, fillPrompt(template, { ...values, texts: texts.join('') }), extractLlmKeywordsDefaults.maxReplyTokens, shownInChain);
      countLater(selection.clusters[cluster + 1]);
      const reply = await extraction;
      const refined = await refine(log, 'autokg-refine', selection.method, cluster, parseKeywordReply(reply), shownInChain);
      found = filterKeywords([...found, ...refined], { substringFilter: false });
    }
    return filterKeywords(await refine(log, 'autokg-refine-all', selection.method, -1, found, shownInChain), { substringFilter: false });
  };

  // One generator per clustering, so the chains' samples do not depend on which reply arrives first.
  const logs = input.selections.map((): LlmKeywordCall[] => []);
  const lists = await Promise.all(input.selections.map((selection, index) => runChain(selection, createRandom(input.seed + index), logs[index] as LlmKeywordCall[])));
  for (const log of logs) appendAll(calls, log);
  const byMethod: Record<string, string[]> = {};
  input.selections.forEach((selection, index) => (byMethod[selection.method] = lists[index] as string[]));

  const united = filterKeywords(lists.flat(), { maxWords: settings.maxWords });
  let current = united;
  const finalStart = calls.length;
  for (const template of [autoKgKeywordPrompts.finalMerge, autoKgKeywordPrompts.finalSplit, autoKgKeywordPrompts.finalDelete]) {
    if (current.length === 0) break;
    const list = current.join(', ');
    const reply = await call(calls, 'autokg-final', 'all', -1, fillPrompt(prompts.text(template), { max_words: String(settings.maxWords), keywords: list }), tokenizer.count(list) + 16, shownAnywhere);
    const parsed = parseKeywordReply(reply);
    // An empty or unusable reply keeps the list it was given rather than losing every keyword.
    if (parsed.length > 0) current = parsed;
  }
  const finalCalls = calls.slice(finalStart);
  return {
    criticalPath: Math.max(0, maxOf(logs.map((log) => log.length))) + finalCalls.length,
    keywords: filterKeywords(current, { maxWords: settings.maxWords }),
    byMethod,
    calls,
    inputTokens: calls.reduce((sum, entry) => sum + entry.inputTokens, 0),
    outputTokens: calls.reduce((sum, entry) => sum + entry.outputTokens, 0),
    finalPassTokens: finalCalls.reduce((sum, entry) => sum + entry.inputTokens + entry.outputTokens, 0),
    skippedChunks,
  };
}

/** At most `count` items drawn without replacement, in their original order. */
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
