import { z } from 'zod';

/**
 * Parameters of `global` with GraphRAG's names and defaults (microsoft/graphrag `query/structured_search/global_search/search.py`, `query/context_builder/dynamic_community_selection.py`, `config/defaults.py`):
 * 12k tokens per map batch, 12k tokens of analyst points for the reduce, 1000-word map and 2000-word reduce
 * answers, reports shuffled with seed 86, dynamic selection off (threshold 1, down to level 2, one rating).
 * `k` is ours: how many passages the retrieval returns for evaluation.
 */
export const globalConfig = z
  .object({
    communityLevel: z.number().int().min(0).default(2).describe('Deepest community level whose reports are used (GraphRAG CLI --community-level)'),
    dynamicCommunitySelection: z
      .boolean()
      .default(false)
      .describe('Choose reports by LLM relevance ratings, descending from level 0 (same as the `global:dynamic` variant)'),
    maxContextTokens: z.number().int().positive().default(12000).describe('Token budget of each map batch (one Reports table per map call)'),
    dataMaxTokens: z.number().int().positive().default(12000).describe('Token budget of the analyst points given to the reduce call'),
    mapMaxLength: z.number().int().positive().default(1000).describe('Word limit asked of each map answer'),
    reduceMaxLength: z.number().int().positive().default(2000).describe('Word limit asked of the final (reduce) answer'),
    shuffleSeed: z.number().int().default(86).describe('Seed of the report shuffle before batching'),
    minCommunityRank: z.number().min(0).default(0).describe('Reports rated below this (0–10) are left out'),
    allowGeneralKnowledge: z.boolean().default(false).describe('Let the reduce add facts from outside the data, each tagged [LLM: verify]'),
    concurrency: z.number().int().positive().max(512).default(25).describe('Map and rating calls in flight at once (llm.concurrency also applies)'),
    dynamicSearchThreshold: z.number().int().min(0).max(5).default(1).describe('Rating (0–5) from which a report counts as relevant'),
    dynamicSearchKeepParent: z.boolean().default(false).describe('Keep a relevant report when one of its children is relevant too'),
    dynamicSearchNumRepeats: z.number().int().positive().max(10).default(1).describe('Ratings per report; the most common one wins'),
    dynamicSearchUseSummary: z.boolean().default(false).describe('Rate the report summary instead of its full content'),
    dynamicSearchMaxLevel: z.number().int().min(0).default(2).describe('Deepest level whose reports are all rated when no report above it was relevant'),
    k: z.number().int().positive().max(1000).default(10).describe('Passages returned by the retrieval (for evaluation)'),
  })
  .strict();

export type GlobalConfig = z.output<typeof globalConfig>;
