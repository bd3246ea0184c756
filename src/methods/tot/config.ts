import { z } from 'zod';
import { knowledgeGraphsConfigSchema } from './kg/knowledge-graphs-config.js';
import { indexGraphName } from './workspace-knowledge-graph.js';

/**
 * Parameters of `tot` with the paper's defaults (amazon-science/tree-of-traversals `treeoftraversals.py`: k = 3, max depth 7,
 * 20 expansions, threshold 0.8; the code's 25 expansions is not the paper's). The branching factor k is
 * named `sampleBreadth` as in the reference code (`sample_breadth`): the query engine fills a method's
 * `k` parameter with `query.topK` (10) and evaluation with its recall depth, which would silently make
 * the tree ten wide.
 */
export const totConfig = z
  .object({
    sampleBreadth: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(3)
      .describe('k of the paper (sample_breadth): actions sampled per expansion; entity selections oversample 2k and relation selections 3k, keeping the k most common; 1 = Chain-of-Traversals'),
    maxDepth: z.number().int().min(1).max(50).default(7).describe('Depth at which a DEFAULT state must answer (every sub-step counts: one expansion of the graph is 3 levels)'),
    maxExpansions: z.number().int().min(1).max(500).default(20).describe('Nodes expanded before the search stops (paper 20; the reference code 25)'),
    answerThreshold: z.number().min(0).max(1).default(0.8).describe('An answer whose value reaches this stops the search'),
    temperature: z.number().min(0).max(2).default(1).describe('Sampling temperature of actions and forced answers (the value function and entity matching use 0)'),
    seed: z.number().int().min(0).optional().describe('Base seed: sample i of an expansion uses seed + i (default: the configuration seed)'),
    graphs: z
      .array(z.string().min(1))
      .min(1)
      .default([indexGraphName])
      .describe('Knowledge graphs to walk: "index" (the workspace graph) and names of knowledgeGraphs; several are linked into one'),
    knowledgeGraphs: knowledgeGraphsConfigSchema,
    candidates: z.number().int().min(1).max(100).default(10).describe('Knowledge-graph candidates looked up per question entity for disambiguation'),
    maxChunks: z.number().int().min(0).max(1000).default(10).describe('Passages behind the visited index entities returned with the retrieval (for evaluation and citations)'),
  })
  .strict();

export type TotConfig = z.output<typeof totConfig>;

/** Keys of {@link totConfig} a request may not set: they name endpoints the server would call. */
export const totConfigOnlySettings = ['knowledgeGraphs'] as const;
