import { z } from 'zod';
import { passageEdgeKinds } from '../../graph/passage-graph.js';

/** KG-TF-IDF's per-round picks in the release (`retrieve_num`); 10 + 5 + 5 + 5 + 3 + 2 = 30 reaches K in round 6. */
export const releaseRetrieveSchedule: readonly number[] = [10, 5, 5, 5, 3, 2, 2, 2, 2, 2, 2];

/**
 * Parameters of `kgp` with KGP's defaults (reference/seed-methods.md §B.4: `--k 30`, `k_nei` 3, 10 seeds,
 * `retrieve_num`). The graph defaults to the shared-entity and structural kinds: together they are the
 * TAGME graph of the paper's main table (shared entities plus the title keyword), and they measured best —
 * adding the kNN or keyword kinds cost the lexical agent 3–5 points of Recall@5 on musique-train-100
 * (within a point on hotpotqa-train-100) by crowding the few neighbours each seed keeps with passages that
 * merely resemble it.
 */
export const kgpParams = z
  .object({
    budget: z.number().int().positive().max(1000).default(30).describe('K: distinct passages retrieved (KGP --k 30)'),
    graph: z
      .array(z.enum(passageEdgeKinds))
      .min(1)
      .default(['entity', 'structural'])
      .describe('Passage-graph kinds traversed: knn, entity, keyword, structural (default: entity + structural, the TAGME graph)'),
    seeding: z
      .enum(['tfidf', 'bm25'])
      .optional()
      .describe('Seed retriever: TF-IDF (the release) or BM25; default bm25 for lexical-agent, tfidf for the other traversals'),
    seeds: z.number().int().positive().max(200).default(10).describe('Seed passages of the agent traversals (release: K / k_nei = 10)'),
    neighboursPerSeed: z.number().int().positive().max(50).default(3).describe('k_nei: neighbours kept per seed, the branching factor of agent-iterative'),
    schedule: z
      .array(z.number().int().positive().max(1000))
      .min(1)
      .max(100)
      .default([...releaseRetrieveSchedule])
      .describe('retrieve_num of kg-tfidf: passages picked in each round'),
    maxEvidenceTokens: z.number().int().positive().max(4096).default(100).describe('Output limit of each generated "next evidence" (KGP-LLaMA max_new_tokens 100)'),
  })
  .strict();

export type KgpParams = z.output<typeof kgpParams>;
