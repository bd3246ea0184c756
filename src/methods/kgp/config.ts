import { z } from 'zod';
import { passageEdgeKinds, type PassageEdgeKind } from './build/passage-graph.js';

/** KG-TF-IDF's per-round picks in the release (`retrieve_num`); 10 + 5 + 5 + 5 + 3 + 2 = 30 reaches K in round 6. */
export const releaseRetrieveSchedule: readonly number[] = [10, 5, 5, 5, 3, 2, 2, 2, 2, 2, 2];

/**
 * Parameters of `kgp` with KGP's defaults (YuWVandy/KG-LLM-MDQA `Pipeline/retriever.py`: `--k 30`, `k_nei` 3, 10 seeds,
 * `retrieve_num`). The graph defaults to the shared-entity and structural kinds: together they are the
 * TAGME graph of the paper's main table (shared entities plus the title keyword), and they measured best
 * (docs/BENCHMARKS.md): the kNN and keyword kinds crowd the few neighbours each seed keeps with passages that
 * merely resemble it.
 */
export const kgpConfig = z
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
    indexGraphs: z
      .array(z.enum(passageEdgeKinds))
      .min(1)
      .optional()
      .describe(
        'Index setting: passage-graph kinds the index builds (KGP\'s KNN-ST, TAGME, TF-IDF and title graphs: knn, entity, keyword, structural); default: the kinds of `graph`, so no link is built that no query reads',
      ),
    knnK: z.number().int().min(1).max(100).default(10).describe('Index setting: neighbours per passage in the kNN passage graph (KGP --k_knn 10)'),
    /**
     * KGP builds one graph per question over ~12 documents; over a whole index a term shared by many passages
     * would link a large share of the corpus. 20 keeps specific names (a film, its director) and drops
     * "American" or "Olympics" (60–160 passages on MuSiQue); other caps: docs/BENCHMARKS.md.
     */
    maxPassagesPerTerm: z
      .number()
      .int()
      .min(2)
      .max(100000)
      .default(20)
      .describe('Index setting: an entity or keyword in more passages than this links none of them'),
    keywordsPerPassage: z.number().int().min(0).max(100).default(10).describe('Index setting: top TF-IDF terms of a passage that become its keywords (stopwords and numbers excluded)'),
    maxGroupClique: z
      .number()
      .int()
      .min(2)
      .max(10000)
      .default(32)
      .describe('Index setting: passages of one document or title up to this many are all linked; longer documents link passages within ±16 in reading order'),
    maxEvidenceTokens: z.number().int().positive().max(4096).default(100).describe('Output limit of each generated "next evidence" (KGP-LLaMA max_new_tokens 100)'),
  })
  .strict();

export type KgpConfig = z.output<typeof kgpConfig>;

/** The passage-graph kinds an index built for `config` holds: `indexGraphs`, else the kinds `graph` traverses. */
export function builtPassageGraphs(config: Pick<KgpConfig, 'indexGraphs' | 'graph'>): PassageEdgeKind[] {
  const wanted = new Set(config.indexGraphs ?? config.graph);
  return passageEdgeKinds.filter((kind) => wanted.has(kind));
}

/** Keys of {@link kgpConfig} that shape the index (the `passage-graph` step), not a query. */
export const kgpIndexSettings = ['indexGraphs', 'knnK', 'maxPassagesPerTerm', 'keywordsPerPassage', 'maxGroupClique'] as const;
