import { z } from 'zod';

/**
 * What an LLM extracts from one chunk (GraphRAG `extract_graph`, microsoft/graphrag `index/operations/extract_graph/graph_extractor.py`, `prompts/index/extract_graph.py`):
 * entities with a type and a description, and relationships between two of them with a description
 * and a strength. Names are as the model wrote them; merging happens later.
 */
export interface ExtractedEntity {
  name: string;
  type: string;
  description: string;
}

export interface ExtractedRelation {
  source: string;
  target: string;
  description: string;
  /** 1–10, how strongly related (GraphRAG `relationship_strength`); summed over chunks into the relation weight. */
  strength: number;
}

export interface ExtractedGraph {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
}

/**
 * The JSON reply requested in `json` format (structured output). Field names follow GraphRAG's
 * vocabulary; lenient where models drift (a numeric string strength, a missing description).
 */
export const extractedGraphSchema = z.object({
  entities: z.array(
    z.object({
      name: z.string().min(1),
      type: z.string().default('unknown'),
      description: z.string().default(''),
    }),
  ),
  relationships: z.array(
    z.object({
      source: z.string().min(1),
      target: z.string().min(1),
      description: z.string().default(''),
      strength: z.coerce.number().min(0).max(10).default(5),
    }),
  ),
});

/** A claim about an entity (GraphRAG covariates, §2.3). */
export interface ExtractedClaim {
  subject: string;
  object: string | null;
  type: string;
  status: 'TRUE' | 'FALSE' | 'SUSPECTED';
  startDate: string | null;
  endDate: string | null;
  description: string;
  sourceText: string;
}
