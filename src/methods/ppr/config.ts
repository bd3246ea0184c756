import { z } from 'zod';

/**
 * Parameters of `ppr` with HippoRAG's names and defaults (OSU-NLP-Group/HippoRAG; arXiv 2405.14831, 2502.14802; HippoRAG 2
 * `BaseConfig`: `linking_top_k` 5, `passage_node_weight` 0.05, `damping` 0.5). The paper's values are kept
 * where no value tried on musique-train-100 beat them by more than the noise of 100 questions; the values
 * tried, their Recall@5 and the sets used are in docs/BENCHMARKS.md ("Parameter choices and measurements").
 */
export const pprConfig = z
  .object({
    k: z.number().int().positive().max(1000).default(10).describe('Passages returned'),
    damping: z.number().min(0).max(0.99).default(0.5).describe('PageRank damping: probability of following an edge rather than restarting (HippoRAG: 0.5)'),
    linkingTopK: z.number().int().min(0).max(100).default(5).describe('Facts most similar to the question whose phrases seed the walk (HippoRAG 2 linking_top_k: 5)'),
    passageNodeWeight: z.number().min(0).max(10).default(0.05).describe('Factor on the normalized passage scores that seed passage nodes (HippoRAG 2 passage_node_weight: 0.05)'),
    /** Deviation: HippoRAG 2 seeds passage nodes with dense scores only; the mean of both ranked better (docs/BENCHMARKS.md). */
    passageSeeds: z
      .enum(['dense', 'bm25', 'hybrid'])
      .default('hybrid')
      .describe('Passage scores that seed passage nodes and rank passages when no phrase is seeded: dense (HippoRAG 2), BM25, or the mean of both normalized'),
    /**
     * Deviation: HippoRAG 2 seeds phrases from facts only (its "NER-to-node" ablation lost 21 points on MuSiQue
     * when it replaced fact linking). Added to the fact seeds here, query entities help (docs/BENCHMARKS.md).
     */
    queryEntities: z.boolean().default(true).describe('Also seed the phrases linked to the entities the question names (HippoRAG 1 query NER; LLM NER when an LLM is configured, else noun phrases)'),
    /** HippoRAG 1 links each entity to its nearest phrase; two per entity ranked worse (docs/BENCHMARKS.md). */
    entityLinkTopK: z.number().int().min(0).max(20).default(1).describe('Phrase nodes linked per query entity (HippoRAG 1: the nearest one)'),
    /** Not in HippoRAG (which always links the nearest phrase): a weak match seeds nothing (values tried: docs/BENCHMARKS.md). */
    entityLinkMinScore: z.number().min(0).max(1).default(0.5).describe('Least linking score (1 for the same normalized text, else the mean of embedding cosine and name similarity) for a query entity to seed a phrase'),
    /** Entity and fact seeds weigh alike; half or double moved Recall@5 by under a point (docs/BENCHMARKS.md). */
    entitySeedWeight: z.number().min(0).max(10).default(1).describe('Factor on query-entity seeds relative to fact seeds'),
    /** HippoRAG's node specificity; both versions rank worse without it (docs/BENCHMARKS.md). */
    nodeSpecificity: z.boolean().default(true).describe('Divide each phrase seed by the number of passages containing the phrase (HippoRAG node specificity)'),
    synonymyEdgeSimThreshold: z
      .number()
      .min(0)
      .max(1)
      .default(0.8)
      .describe('Index setting: cosine of two phrase vectors at or above which they are joined by a synonym edge (HippoRAG 2 synonymy_edge_sim_threshold: 0.8)'),
    /**
     * HippoRAG 2's `synonymy_edge_topk` is 2047, but its loop stops a phrase's list after 100 accepted
     * neighbours (`num_nns > 100`); 100 keeps that cap without a kNN heap of 2047 slots per phrase.
     */
    synonymyEdgeTopk: z.number().int().min(0).max(2047).default(100).describe('Index setting: synonym edges kept per phrase at most (HippoRAG 2 caps its lists at 100)'),
    recognitionFilter: z
      .boolean()
      .optional()
      .describe('Let the LLM drop irrelevant facts among the linked ones (HippoRAG 2 recognition memory); default: on when an LLM is configured'),
  })
  .strict();

export type PprConfig = z.output<typeof pprConfig>;

/** Keys of {@link pprConfig} that shape the index (the `ppr-graph` step), not a query. */
export const pprIndexSettings = ['synonymyEdgeSimThreshold', 'synonymyEdgeTopk'] as const;
