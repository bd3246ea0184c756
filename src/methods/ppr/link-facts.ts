import type { MethodContext } from '../query-method.js';
import type { PprGraph } from './build/ppr-graph.js';
import { minMaxScale } from './min-max-normalize.js';
import { factScorer } from './ppr-lookups.js';
import { topIndices } from '../../math/top-indices.js';

/** A fact linked to the question. */
export interface FactLink {
  fact: number;
  /** Cosine of question and fact sentence, min-max normalized over all facts (HippoRAG 2 `get_fact_scores`). */
  score: number;
  cosine: number;
}

/**
 * HippoRAG 2's query-to-triple linking: the question's embedding against every fact sentence, scores
 * min-max normalized over all facts, the `topK` best kept (ties by fact index).
 */
export async function linkFacts(context: MethodContext, question: string, graph: PprGraph, topK: number): Promise<FactLink[]> {
  if (topK === 0 || graph.triples.factSubject.length === 0) return [];
  const [scorer, query] = await Promise.all([factScorer(context), context.embedQuery(question)]);
  const cosines = await scorer.scores(query);
  const normalized = minMaxScale(cosines);
  return topIndices(cosines, topK).map((fact) => ({ fact, score: normalized(cosines[fact] as number), cosine: cosines[fact] as number }));
}
