import type { LanguageModel } from '../../../providers/llm/language-model.js';
import type { ChunkClusteringMethod } from './cluster-chunk-embeddings.js';
import { filterKeywords } from './filter-keywords.js';
import { createLlmKeywordCalls, llmKeywordCallDefaults, type LlmKeywordCall, type LlmKeywordCallInput, type NamedCluster } from './llm-keyword-calls.js';
import { type LlmKeywordResult, runKeywordChains } from './run-keyword-chains.js';

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
 *
 * Besides the keywords, the result keeps what an update needs to name only the clusters whose members changed
 * (update-llm-keywords.ts): every cluster's refined keywords and shown chunks, and the input and output of each
 * list refinement and of the final passes.
 */

/** Defaults of {@link extractLlmKeywords}. */
export const extractLlmKeywordsDefaults = llmKeywordCallDefaults;

export type { LlmKeywordCall, LlmKeywordSettings, NamedCluster } from './llm-keyword-calls.js';

/** The chunks of one clustering shown to the model, cluster by cluster. */
export interface ClusterSelection {
  method: ChunkClusteringMethod;
  /** Chunk indices per cluster, in the order they are shown. */
  clusters: readonly Int32Array[];
}

/** Input of {@link extractLlmKeywords}. */
export interface LlmKeywordInput extends LlmKeywordCallInput {
  selections: readonly ClusterSelection[];
  /**
   * Content hashes of `chunkTexts`, position by position, to tag the cached replies (`ChatRequest.sources`): a
   * cluster's extraction and refinement name the chunks its clustering has shown so far (its prompt holds its own
   * chunks and, in the avoid list, keywords drawn from the earlier ones); the final passes name every chunk shown.
   * @default none
   */
  chunkSources?: readonly string[];
  /** Seed of the avoid-list sampling. */
  seed: number;
}

export type { LlmKeywordResult, RewrittenList } from './run-keyword-chains.js';

/** The paper's bound 2n(2cT + (m + 2·l1)(l2 + 1)) + L_F on the keyword-extraction tokens (formula (1)). */
export function paperTokenBound(parameters: { clusters: number; perCluster: number; chunkTokens: number; avoidSample: number; keywordsPerCluster: number; maxWords: number; finalPassTokens: number }): number {
  const { clusters, perCluster, chunkTokens, avoidSample, keywordsPerCluster, maxWords, finalPassTokens } = parameters;
  return 2 * clusters * (2 * perCluster * chunkTokens + (avoidSample + 2 * keywordsPerCluster) * (maxWords + 1)) + finalPassTokens;
}

/** Runs AutoKG's keyword extraction with `llm`. Deterministic given the model's replies. */
export async function extractLlmKeywords(llm: LanguageModel, input: LlmKeywordInput): Promise<LlmKeywordResult> {
  const model = createLlmKeywordCalls(llm, input);
  return runKeywordChains(model, input.selections, input.seed, async (selection, random, log) => {
    let found: string[] = [];
    const shownInChain = new Set<number>();
    const named: NamedCluster[] = [];
    for (const [cluster, chunks] of selection.clusters.entries()) {
      if (chunks.length === 0) {
        named.push({ keywords: [], shown: [] });
        continue;
      }
      const result = await model.nameCluster(log, selection.method, cluster, chunks, found, random, shownInChain, selection.clusters[cluster + 1]);
      named.push(result);
      found = filterKeywords([...found, ...result.keywords], { substringFilter: false });
    }
    const output = filterKeywords(await model.refine(log, 'autokg-refine-all', selection.method, -1, found, shownInChain), { substringFilter: false });
    return { named, list: { input: found, output } };
  });
}
