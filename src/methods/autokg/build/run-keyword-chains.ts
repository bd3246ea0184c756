import { appendAll } from '../../../core/append-all.js';
import { maxOf } from '../../../core/max-of.js';
import { createRandom, type Random } from '../../../core/random.js';
import type { LlmKeywordResult, RewrittenList } from './extract-llm-keywords.js';
import { filterKeywords } from './filter-keywords.js';
import type { LlmKeywordCall, LlmKeywordCalls, NamedCluster } from './llm-keyword-calls.js';

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
