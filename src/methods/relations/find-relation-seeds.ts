import { normalizePhrase } from '../../text/normalize-phrase.js';
import type { MethodContext } from '../query-method.js';
import type { RelationsGraph } from './relations-graph.js';
import { topIndices } from '../../math/top-indices.js';
import { assertQueryDimensions } from '../shared/space-vectors.js';

/** The phrases matched to one query entity, best first. */
export interface EntitySeed {
  /** The entity as the query NER gave it. */
  mention: string;
  phrases: Int32Array;
  scores: Float32Array;
}

/** The seeds of one query (milvus-io/bootcamp `tutorials/quickstart/graph_rag_with_milvus.ipynb` steps 1–2). */
export interface RelationSeeds {
  /** One entry per query entity, in NER order. */
  entities: EntitySeed[];
  /** Distinct seed phrases: entity by entity, each entity's best first. */
  phrases: number[];
  /** The facts most similar to the whole question, best first. */
  facts: Int32Array;
  factScores: Float32Array;
  /** Cosine similarity of every fact to the question (0 for facts without a vector), by fact index. */
  questionSimilarity: Float32Array;
}

/**
 * Seeds as in Graph RAG with Milvus: the `entityTopK` phrases nearest each query entity (searched per entity,
 * not merged) that reach `entitySimilarityThreshold`, and the `relationTopK` facts nearest the whole
 * question. Entities are embedded after {@link normalizePhrase} as documents, as phrases are; the question is
 * embedded as a query, as for chunk search. The similarity of every fact to the question comes out of the
 * same scan and ranks the candidates later.
 */
export async function findRelationSeeds(
  context: MethodContext,
  graph: RelationsGraph,
  question: string,
  mentions: readonly string[],
  options: { entityTopK: number; relationTopK: number; entitySimilarityThreshold: number },
): Promise<RelationSeeds> {
  const facts = graph.triples.factSubject.length;
  const questionSimilarity = new Float32Array(facts);
  if (graph.factVectors) {
    const questionVector = await context.embedQuery(question);
    assertQueryDimensions('facts', graph.factVectors.dimensions, questionVector);
    questionSimilarity.set(await graph.factVectors.scoreMany(questionVector, 1));
  }
  const factSeeds = topScored(questionSimilarity, options.relationTopK);

  const entities: EntitySeed[] = [];
  const phrases: number[] = [];
  const usable = mentions.filter((mention) => normalizePhrase(mention).length > 0);
  const { phraseVectors } = graph;
  if (phraseVectors && usable.length > 0 && options.entityTopK > 0) {
    const vectors = await context.embedder.embed(
      usable.map((mention) => normalizePhrase(mention)),
      context.signal === undefined ? {} : { abortSignal: context.signal },
    );
    const { rows, dimensions } = phraseVectors;
    const queries = new Float32Array(usable.length * dimensions);
    vectors.forEach((vector, index) => {
      assertQueryDimensions('phrases', phraseVectors.dimensions, vector);
      queries.set(vector, index * dimensions);
    });
    const scores = await phraseVectors.scoreMany(queries, usable.length);
    const seen = new Set<number>();
    usable.forEach((mention, index) => {
      const top = topScored(scores.subarray(index * rows, (index + 1) * rows), options.entityTopK);
      let kept = 0;
      while (kept < top.scores.length && (top.scores[kept] as number) >= options.entitySimilarityThreshold) kept++;
      entities.push({ mention, phrases: top.indices.slice(0, kept), scores: top.scores.slice(0, kept) });
      for (const phrase of top.indices.subarray(0, kept)) {
        if (seen.has(phrase)) continue;
        seen.add(phrase);
        phrases.push(phrase);
      }
    });
  }
  return { entities, phrases, facts: factSeeds.indices, factScores: factSeeds.scores, questionSimilarity };
}

/** The `k` best positive scores and their rows, best first (ties to the lower row): a zero score is no match. */
function topScored(scores: Float32Array, k: number): { indices: Int32Array; scores: Float32Array } {
  const indices = Int32Array.from(topIndices(scores, k, 0));
  return { indices, scores: Float32Array.from(indices, (row) => scores[row] as number) };
}
