import { z } from 'zod';
import { mapWithConcurrency } from '../../core/map-with-concurrency.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { parseJsonLoose } from '../../providers/llm/parse-json-loose.js';
import type { GlobalIndex, GlobalReport } from './global-lookups.js';

/** Options of {@link selectCommunitiesDynamically}. */
export interface DynamicSelectionOptions {
  model: LanguageModel;
  index: GlobalIndex;
  question: string;
  /** The rating system prompt for one report's text. */
  systemPrompt: (reportText: string) => string;
  threshold: number;
  keepParent: boolean;
  numRepeats: number;
  useSummary: boolean;
  maxLevel: number;
  minCommunityRank: number;
  concurrency: number;
  abortSignal?: AbortSignal;
}

/** One rated report. */
export interface CommunityRating {
  communityId: string;
  level: number;
  rating: number;
  /** Whether the reply could not be parsed, so the rating is GraphRAG's default of 1. */
  defaulted: boolean;
}

/** The selected reports, in the order they were found relevant, and every rating made. */
export interface DynamicSelection {
  reports: GlobalReport[];
  ratings: CommunityRating[];
  /** Levels whose reports were all rated because nothing above them was relevant. */
  fallbackLevels: number[];
}

const rateReply = z.object({ reason: z.string().optional(), rating: z.coerce.number() });
const rateSchema = { type: 'object', properties: { reason: { type: 'string' }, rating: { type: 'integer' } }, required: ['reason', 'rating'] };

/** GraphRAG's rule for repeats: the most common rating wins, the earliest of a tie. */
function mostCommon(ratings: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const rating of ratings) counts.set(rating, (counts.get(rating) ?? 0) + 1);
  let best = ratings[0] ?? 1;
  for (const [rating, count] of counts) if (count > (counts.get(best) ?? 0)) best = rating;
  return best;
}

/**
 * GraphRAG's dynamic community selection (microsoft/graphrag `query/context_builder/dynamic_community_selection.py`, `query/context_builder/rate_prompt.py`). Every level-0 report is rated
 * 0–5; each report rated at least `threshold` is selected, its children with reports are rated next, and its
 * parent is dropped from the selection (unless `keepParent`). When a round leaves nothing to rate and nothing
 * has been selected yet, every report of the next level is rated, down to `maxLevel`. As in GraphRAG, the
 * descent below a relevant report is not limited by `maxLevel`. One call per rating and repeat; a reply that
 * does not parse counts as rating 1. Repeats differ by their `seed` so that the LLM cache does not collapse
 * them. Reports rated below `minCommunityRank` (0–10) are never rated nor selected.
 */
export async function selectCommunitiesDynamically(options: DynamicSelectionOptions): Promise<DynamicSelection> {
  const { index } = options;
  const eligible = (communityId: string): boolean => {
    const report = index.reportOf.get(communityId);
    return report !== undefined && report.rating >= options.minCommunityRank;
  };
  const rate = async (communityId: string): Promise<CommunityRating> => {
    const report = index.reportOf.get(communityId) as GlobalReport;
    const prompt = options.systemPrompt(options.useSummary ? report.summary : report.fullContent);
    const ratings: number[] = [];
    let defaulted = false;
    for (let repeat = 0; repeat < options.numRepeats; repeat++) {
      const result = await options.model.generate({
        messages: [
          { role: 'system', content: prompt },
          { role: 'user', content: options.question },
        ],
        responseFormat: { type: 'json', schema: rateSchema, name: 'global_rate' },
        ...(repeat === 0 ? {} : { seed: repeat }),
        ...(options.abortSignal === undefined ? {} : { abortSignal: options.abortSignal }),
      });
      const parsed = parseJsonLoose(result.text);
      const validated = parsed.ok ? rateReply.safeParse(parsed.value) : undefined;
      if (validated?.success && Number.isFinite(validated.data.rating)) {
        ratings.push(Math.round(validated.data.rating));
      } else {
        defaulted = true;
        ratings.push(1);
      }
    }
    return { communityId, level: report.level, rating: mostCommon(ratings), defaulted };
  };

  const selected = new Set<string>();
  const ratings: CommunityRating[] = [];
  const fallbackLevels: number[] = [];
  let queue = (index.levels.get(0) ?? []).filter(eligible);
  let level = 0;
  while (queue.length > 0) {
    const rated = await mapWithConcurrency(queue, options.concurrency, rate, options.abortSignal);
    const next: string[] = [];
    for (const rating of rated) {
      ratings.push(rating);
      if (rating.rating < options.threshold) continue;
      selected.add(rating.communityId);
      const community = index.communityOf.get(rating.communityId);
      for (const child of community?.children ?? []) if (eligible(child)) next.push(child);
      if (!options.keepParent && community?.parent) selected.delete(community.parent);
    }
    queue = next;
    level += 1;
    if (queue.length === 0 && selected.size === 0 && level <= options.maxLevel && index.levels.has(level)) {
      queue = (index.levels.get(level) ?? []).filter(eligible);
      fallbackLevels.push(level);
    }
  }
  return { reports: [...selected].map((communityId) => index.reportOf.get(communityId) as GlobalReport), ratings, fallbackLevels };
}
