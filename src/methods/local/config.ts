import { z } from 'zod';

/** One turn of an earlier exchange, oldest first (GraphRAG `ConversationHistory`). */
export const conversationTurn = z
  .object({
    role: z.enum(['user', 'assistant', 'system']).describe('Who said it; only user turns are used'),
    content: z.string().describe('What was said'),
  })
  .strict();

/**
 * Parameters of `local` with GraphRAG's names and defaults (microsoft/graphrag `query/structured_search/local_search/mixed_context.py`, `config/defaults.py`):
 * 12k context split 0.15 reports / 0.5 text units / the rest entities, relationships and claims.
 */
export const localConfig = z
  .object({
    topKEntities: z.number().int().positive().max(500).default(10).describe('Entities matched to the question (searched with 2× oversampling)'),
    topKRelationships: z.number().int().min(0).max(1000).default(10).describe('Out-of-network relationships allowed per selected entity'),
    textUnitProp: z.number().min(0).max(1).default(0.5).describe('Share of the context budget given to text units (Sources)'),
    communityProp: z.number().min(0).max(1).default(0.15).describe('Share of the context budget given to community reports'),
    maxContextTokens: z.number().int().positive().optional().describe('Token budget of the whole context; defaults to query.maxContextTokens (12000)'),
    communityLevel: z.number().int().min(0).default(2).describe('Deepest community level whose reports are used (GraphRAG CLI --community-level)'),
    conversationHistory: z.array(conversationTurn).default([]).describe('Earlier turns of the conversation, oldest first'),
    conversationHistoryMaxTurns: z.number().int().min(0).default(5).describe('Most recent user turns used from the conversation history'),
    namedEntities: z
      .boolean()
      .default(true)
      .describe("A deviation: entities the question names (an entity's title or alias) lead the selection and their text units take turns; false matches by description embedding alone, as GraphRAG does"),
  })
  .strict()
  .refine((params) => params.textUnitProp + params.communityProp <= 1, {
    message: 'textUnitProp + communityProp must be at most 1 (the remainder is the entity/relationship share)',
    path: ['textUnitProp'],
  });

export type LocalConfig = z.output<typeof localConfig>;
