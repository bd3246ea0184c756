import { z } from 'zod';
import type { LocalContextOptions } from '../local/index.js';

/**
 * Parameters of `drift` with GraphRAG's names and defaults (`DriftSearchDefaults`,
 * microsoft/graphrag `query/structured_search/drift_search/`, `config/defaults.py`): 20 reports in 5 primer folds, 3 rounds of at most 20 follow-ups, each a local search with a
 * 0.9 / 0.1 text-unit / report split in 12k tokens.
 */
export const driftConfig = z
  .object({
    driftKFollowups: z.number().int().positive().max(200).default(20).describe('Reports given to the primer, and follow-ups answered per round'),
    primerFolds: z.number().int().positive().max(50).default(5).describe('Primer calls the top reports are split across (run in parallel)'),
    nDepth: z.number().int().min(0).max(10).default(3).describe('Rounds of follow-up local searches'),
    localSearchTextUnitProp: z.number().min(0).max(1).default(0.9).describe('Text-unit share of each follow-up local search context'),
    localSearchCommunityProp: z.number().min(0).max(1).default(0.1).describe('Report share of each follow-up local search context'),
    localSearchTopKMappedEntities: z.number().int().positive().max(500).default(10).describe('Entities matched per follow-up (searched with 2× oversampling)'),
    localSearchTopKRelationships: z.number().int().min(0).max(1000).default(10).describe('Out-of-network relationships per entity in follow-up contexts'),
    localSearchMaxDataTokens: z.number().int().positive().default(12000).describe('Token budget of each follow-up local search context'),
    dataMaxTokens: z
      .number()
      .int()
      .positive()
      .default(12000)
      .describe('Token budget of the answer tree given to the reduce call (GraphRAG defines it but never reads it; kgrag enforces it)'),
    communityLevel: z.number().int().min(0).default(2).describe('Deepest community level whose reports are used (GraphRAG CLI --community-level)'),
  })
  .strict()
  .refine((params) => params.localSearchTextUnitProp + params.localSearchCommunityProp <= 1, {
    message: 'localSearchTextUnitProp + localSearchCommunityProp must be at most 1 (the remainder is the entity/relationship share)',
    path: ['localSearchTextUnitProp'],
  });

/** The local-search options of DRIFT's follow-ups (and of its retrieval): its `localSearch*` parameters, no history. */
export function driftLocalOptions(params: DriftConfig): LocalContextOptions {
  return {
    topKEntities: params.localSearchTopKMappedEntities,
    topKRelationships: params.localSearchTopKRelationships,
    textUnitProp: params.localSearchTextUnitProp,
    communityProp: params.localSearchCommunityProp,
    maxContextTokens: params.localSearchMaxDataTokens,
    communityLevel: params.communityLevel,
    conversationHistory: [],
    conversationHistoryMaxTurns: 0,
  };
}

export type DriftConfig = z.output<typeof driftConfig>;
