import { appendAll } from '../../../core/append-all.js';
import { maxOf } from '../../../core/max-of.js';
import { createRandom, type Random } from '../../../core/random.js';
import { filterKeywords } from './filter-keywords.js';
import type { LlmKeywordCall, LlmKeywordCalls, NamedCluster } from './llm-keyword-calls.js';

/** A list the model rewrote: what it was given and what came back (after filtering). */
export interface RewrittenList {
  input: string[];
  output: string[];
}

/** Result of {@link extractLlmKeywords}. */
export interface LlmKeywordResult {
  keywords: string[];
  /** Keywords of each clustering after its global refinement. */
  byMethod: Record<string, string[]>;
  /** Per selection (in input order), per cluster: its refined keywords and shown chunks (none for an empty cluster). */
  named: NamedCluster[][];
  /** Per selection: the clustering's list and its refinement over the whole list. */
  lists: RewrittenList[];
  /** The united, filtered list and the final passes' keywords. */
  final: RewrittenList;
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

/** What one clustering's chain named: its clusters, and its list with the refinement over the whole list. */
export interface KeywordChain {
  named: NamedCluster[];
  list: RewrittenList;
}

/** Whether two keyword lists are the same, in order. */
export function sameList(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((item, index) => item === right[index]);
}

/**
 * The part a full extraction and an update share: one chain per clustering, each with its own call log and its own
 * generator (`seed` + its position), so that the chains' samples do not depend on which reply arrives first; then the
 * three final passes over the united lists — unless `previousFinal` read that same list, whose keywords are kept —
 * and the result with its token counts and critical path.
 */
export async function runKeywordChains<C extends { method: string }>(
  model: LlmKeywordCalls,
  clusterings: readonly C[],
  seed: number,
  runChain: (clustering: C, random: Random, log: LlmKeywordCall[]) => Promise<KeywordChain>,
  previousFinal?: RewrittenList,
): Promise<LlmKeywordResult> {
  const { settings } = model;
  const logs = clusterings.map((): LlmKeywordCall[] => []);
  const chains = await Promise.all(clusterings.map((clustering, index) => runChain(clustering, createRandom(seed + index), logs[index] as LlmKeywordCall[])));
  const calls: LlmKeywordCall[] = [];
  for (const log of logs) appendAll(calls, log);
  const byMethod: Record<string, string[]> = {};
  clusterings.forEach((clustering, index) => (byMethod[clustering.method] = (chains[index] as KeywordChain).list.output));

  const united = filterKeywords(chains.flatMap((chain) => chain.list.output), { maxWords: settings.maxWords });
  const finalStart = calls.length;
  let final = previousFinal;
  if (final === undefined || !sameList(united, final.input)) {
    // The final passes read keywords drawn from every chunk any chain showed.
    const shownAnywhere = new Set(chains.flatMap((chain) => chain.named.flatMap((entry) => entry.shown)));
    final = { input: united, output: filterKeywords(await model.finalPasses(calls, united, shownAnywhere), { maxWords: settings.maxWords }) };
  }
  const finalCalls = calls.slice(finalStart);
  return {
    criticalPath: Math.max(0, maxOf(logs.map((log) => log.length))) + finalCalls.length,
    keywords: final.output,
    byMethod,
    named: chains.map((chain) => chain.named),
    lists: chains.map((chain) => chain.list),
    final,
    calls,
    inputTokens: calls.reduce((sum, entry) => sum + entry.inputTokens, 0),
    outputTokens: calls.reduce((sum, entry) => sum + entry.outputTokens, 0),
    finalPassTokens: finalCalls.reduce((sum, entry) => sum + entry.inputTokens + entry.outputTokens, 0),
    skippedChunks: model.skippedChunks(),
  };
}
