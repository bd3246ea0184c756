import { fillPrompt } from '../../../core/prompt-library.js';
import type { StepCostDraft, StepCostInput } from '../../../pipeline/pipeline-step.js';
import { countPromptTokens } from '../../../providers/llm/token-estimate.js';
import type { AutokgConfig } from '../config.js';
import { autoKgKeywordPrompts } from './keyword-prompts.js';

/** The settings the keyword calls depend on. */
export type AutokgKeywordSettings = Pick<
  AutokgConfig,
  'clusters' | 'maxWords' | 'keywordsPerCluster' | 'sampling' | 'chunksPerCluster' | 'topic' | 'language' | 'avoidSample' | 'maxPromptTokens' | 'reclusterShare'
>;

const framing = (messages: number): number => countPromptTokens(Array.from({ length: messages }, () => ({ role: 'user' as const, content: '' })));

/**
 * AutoKG keyword extraction (the `keywords` step): per clustering (k-means and spectral), an extraction and a
 * refinement call per cluster and one refinement of the clustering's list, then the three final passes — a
 * count that depends only on the settings and the number of chunks. Prompt tokens are estimated: each
 * extraction shows min(c or 2c, the cluster's average size) chunks of average length within
 * `maxPromptTokens`, plus an avoid list growing to m keywords; lists of l1 keywords of l2 + 1 tokens each.
 */
export function estimateKeywordsCost(settings: AutokgKeywordSettings, input: StepCostInput): StepCostDraft {
  const { prompts, tokenizer } = input;
  const count = input.chunks.length;
  const clusters = Math.min(settings.clusters, count);
  if (clusters === 0) return { step: 'keywords', calls: 0, inputTokens: 0, outputTokens: 0, exact: true, basis: 'no chunks' };
  const clusterings = 2;
  const keywordTokens = settings.maxWords + 1;
  const listTokens = settings.keywordsPerCluster * keywordTokens;
  const averageChunk = input.chunkTokens / count;
  const shown = Math.min((settings.sampling === 'nearest' ? 1 : 2) * settings.chunksPerCluster, count / clusters);
  const template = (prompt: typeof autoKgKeywordPrompts.extract, values: Record<string, string>): number => tokenizer.count(fillPrompt(prompts.text(prompt), values));
  const base = { main_topic: settings.topic, num_keywords: String(settings.keywordsPerCluster), max_words: String(settings.maxWords), language: settings.language };
  const extractTemplate = template(autoKgKeywordPrompts.extract, { ...base, texts: '', avoid: '' });
  const refineTemplate = template(autoKgKeywordPrompts.refine, { ...base, keywords: '' });
  const finalTemplates = [autoKgKeywordPrompts.finalMerge, autoKgKeywordPrompts.finalSplit, autoKgKeywordPrompts.finalDelete].map((prompt) => template(prompt, { max_words: String(settings.maxWords), keywords: '' }));
  // The avoid list holds the keywords found so far, sampled down to m: on average half of what the run finds.
  const averageAvoid = Math.min(settings.avoidSample, (clusterings * clusters * settings.keywordsPerCluster) / 2) * keywordTokens;
  const extraction = framing(1) + extractTemplate + Math.min(settings.maxPromptTokens, shown * averageChunk) + averageAvoid;
  const refinement = framing(1) + refineTemplate + listTokens;
  const clusteringList = clusters * listTokens;
  const allKeywords = clusterings * clusteringList;
  // An update within `reclusterShare` keeps the clusters and names again only those whose members changed: at most one
  // per added or removed chunk in each clustering (the share is counted here for this run alone; the step adds up
  // the changes since its last full clustering, so a run after several small ones may recluster instead).
  const { update } = input;
  const changedChunks = update === undefined ? undefined : update.addedChunks + update.removedChunks;
  const keeps = update !== undefined && changedChunks !== undefined && update.previousChunks > 0 && changedChunks / update.previousChunks <= settings.reclusterShare;
  const named = keeps ? Math.min(clusters, changedChunks ?? 0) : clusters;
  const finals = keeps && named === 0 ? 0 : finalTemplates.length;
  const lists = keeps && named === 0 ? 0 : clusterings;
  const calls = clusterings * 2 * named + lists + finals;
  const inputTokens =
    clusterings * named * (extraction + refinement) +
    lists * (framing(1) + refineTemplate + clusteringList) +
    finalTemplates.slice(0, finals).reduce((sum, tokens) => sum + framing(1) + tokens + allKeywords, 0);
  const outputTokens = clusterings * 2 * named * listTokens + lists * clusteringList + finals * allKeywords;
  return {
    step: 'keywords',
    calls,
    inputTokens: Math.round(inputTokens),
    outputTokens: Math.round(outputTokens),
    exact: false,
    basis: keeps
      ? `an update of ${changedChunks} chunks (≤ reclusterShare ${settings.reclusterShare} of ${update.previousChunks}) keeps the clusters: at most ${named} changed clusters in each of ${clusterings} clusterings named again (2 calls each), each clustering's list refined again and the 3 final passes, only if a cluster changed`
      : `${clusterings} clusterings × (${clusters} clusters × 2 calls + 1) + 3 final passes; each extraction shows ~${Math.round(shown)} chunks of ~${Math.round(averageChunk)} tokens ` +
        `(≤ ${settings.maxPromptTokens}) and an avoid list of ≤ ${settings.avoidSample} keywords; lists of ${settings.keywordsPerCluster} keywords of ≤ ${settings.maxWords} words`,
  };
}
