import { z } from 'zod';

/**
 * Defaults of `basic` (naive RAG; GraphRAG basic search, microsoft/graphrag `query/structured_search/basic_search/`: k = 10 text
 * units). Hybrid fusion is reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) with its
 * constant k = 60, over the top `candidates` of each list.
 */
export const basicConfig = z
  .object({
    k: z.number().int().positive().max(1000).default(10).describe('Passages returned'),
    rrfK: z.number().positive().default(60).describe('Reciprocal-rank fusion constant'),
    candidates: z.number().int().positive().max(4096).default(50).describe('Hits taken from each list before fusion'),
  })
  .strict();

export type BasicConfig = z.output<typeof basicConfig>;
