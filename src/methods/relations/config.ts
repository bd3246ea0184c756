import { z } from 'zod';

/**
 * Parameters of `relations` (Graph RAG with Milvus, milvus-io/bootcamp `tutorials/quickstart/graph_rag_with_milvus.ipynb`) with the notebook's
 * defaults — 3 phrases per query entity, 3 facts for the whole question, expansion of degree 1, 2 final
 * passages — and the successor's (zilliztech/vector-graph-rag `src/vector_graph_rag/config.py`) candidate cap of 1000 and entity threshold of 0.9.
 * `k` is how many ranked passages retrieval returns (evaluation reads Recall@k from them); the answer reads
 * only the first `finalTopK`.
 *
 * Chosen on musique-train-100 with the shipped gpt-3.5 OpenIE triples, LLM-free, and checked on the LLM-free
 * triples of musique-train-100 and hotpotqa-train-100 (values tried: docs/BENCHMARKS.md, "Parameter choices and
 * measurements"): `entitySimilarityThreshold` 0.9 keeps noun-phrase "entities" such as "county shares" from
 * seeding three unrelated phrases each; path support reorders few facts, question similarity decides most; the
 * notebook's `expansionDegree` and `relationTopK` are kept.
 */
export const relationsConfig = z
  .object({
    entityTopK: z.number().int().min(0).max(100).default(3).describe('Phrases matched per query entity (Milvus top_k = 3)'),
    entitySimilarityThreshold: z
      .number()
      .min(-1)
      .max(1)
      .default(0.9)
      .describe('Least similarity of a phrase to its query entity to seed it (vector-graph-rag entity_similarity_threshold 0.9; -1 keeps all, as the notebook)'),
    relationTopK: z.number().int().min(0).max(100).default(3).describe('Facts matched to the whole question (Milvus top_k = 3)'),
    expansionDegree: z.number().int().min(0).max(3).default(1).describe('Hops of the incidence-matrix expansion (Milvus target_degree: 1, or 2)'),
    maxCandidates: z
      .number()
      .int()
      .positive()
      .max(10000)
      .default(1000)
      .describe('Most expanded facts kept, the most question-similar first (vector-graph-rag relation_number_threshold)'),
    rerank: z
      .enum(['auto', 'llm', 'similarity'])
      .default('auto')
      .describe('"llm": one JSON rerank call; "similarity": LLM-free (question similarity boosted by paths between seeds); "auto": llm when one is configured'),
    pathWeight: z
      .number()
      .min(0)
      .max(10)
      .default(0.1)
      .describe('LLM-free rerank: score = question similarity + pathWeight × path support between seeds (0 = similarity only)'),
    finalTopK: z.number().int().positive().max(1000).default(2).describe('Passages given to the answer (Milvus final_top_k = 2)'),
    k: z.number().int().positive().max(1000).default(10).describe('Ranked passages returned by retrieval (evaluation reads Recall@k from them)'),
  })
  .strict();

export type RelationsConfig = z.output<typeof relationsConfig>;
