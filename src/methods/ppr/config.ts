import { z } from 'zod';

/**
 * Parameters of `ppr` with HippoRAG's names and defaults (OSU-NLP-Group/HippoRAG; arXiv 2405.14831, 2502.14802; HippoRAG 2
 * `BaseConfig`: `linking_top_k` 5, `passage_node_weight` 0.05, `damping` 0.5), tuned on musique-train-100 as
 * HippoRAG tuned on MuSiQue. Numbers below are Recall@5 on musique-train-100 with the shipped gpt-3.5 OpenIE
 * triples (default: 69.2), then with the LLM-free triples (default: 60.4), no LLM, local embedder; on 100
 * questions a difference of 2 points is noise. The paper's values are kept where nothing beats them beyond
 * that: damping 0.3 / 0.7 / 0.85 give 61.4 / 70.1 / 69.8; `linkingTopK` 3 / 10 give 69.7 / 61.5;
 * `passageNodeWeight` 0.02 / 0.1 / 0.2 give 70.6 / 65.3 / 60.6 (HotpotQA, LLM-free, prefers larger weights:
 * 76.0 at 0.05, 78.5 at 0.2, 82.0 at 0.5, but MuSiQue drops to 57.7 at 0.5).
 */
export const pprConfig = z
  .object({
    k: z.number().int().positive().max(1000).default(10).describe('Passages returned'),
    damping: z.number().min(0).max(0.99).default(0.5).describe('PageRank damping: probability of following an edge rather than restarting (HippoRAG: 0.5)'),
    linkingTopK: z.number().int().min(0).max(100).default(5).describe('Facts most similar to the question whose phrases seed the walk (HippoRAG 2 linking_top_k: 5)'),
    passageNodeWeight: z.number().min(0).max(10).default(0.05).describe('Factor on the normalized passage scores that seed passage nodes (HippoRAG 2 passage_node_weight: 0.05)'),
    /**
     * Deviation: HippoRAG 2 seeds passage nodes with dense scores only. Mean of min-max dense and BM25/best:
     * 69.2 / 60.4 against dense 68.4 / 59.2 and BM25 67.8 / 59.8 (HotpotQA LLM-free: 76.0, dense 74.0).
     */
    passageSeeds: z
      .enum(['dense', 'bm25', 'hybrid'])
      .default('hybrid')
      .describe('Passage scores that seed passage nodes and rank passages when no phrase is seeded: dense (HippoRAG 2), BM25, or the mean of both normalized'),
    /**
     * Deviation: HippoRAG 2 seeds phrases from facts only (its "NER-to-node" ablation lost 21 points on MuSiQue
     * when it replaced fact linking). Added to the fact seeds here, query entities help: 69.2 / 60.4 with them,
     * 66.7 / 57.3 without; HippoRAG 2 as published (no entities, dense passage seeds) gives 65.7 / 56.3.
     */
    queryEntities: z.boolean().default(true).describe('Also seed the phrases linked to the entities the question names (HippoRAG 1 query NER; LLM NER when an LLM is configured, else noun phrases)'),
    /** HippoRAG 1 links each entity to its nearest phrase; 2 links per entity: 66.3 / 57.2. */
    entityLinkTopK: z.number().int().min(0).max(20).default(1).describe('Phrase nodes linked per query entity (HippoRAG 1: the nearest one)'),
    /** Not in HippoRAG (which always links the nearest phrase); 0.3 / 0.7: 68.4 / 69.2 on the OpenIE triples. */
    entityLinkMinScore: z.number().min(0).max(1).default(0.5).describe('Least linking score (1 for the same normalized text, else the mean of embedding cosine and name similarity) for a query entity to seed a phrase'),
    /** 0.5 / 2: 68.9 / 69.6 (LLM-free 59.5 / 60.3). */
    entitySeedWeight: z.number().min(0).max(10).default(1).describe('Factor on query-entity seeds relative to fact seeds'),
    /** HippoRAG's node specificity; without it 67.1 / 59.0 (v1: 63.7 / 50.6 against 66.0 / 52.4). */
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
