import type { PprGraph } from './build/ppr-graph.js';
import type { EntityLink } from './link-query-entities.js';
import type { FactLink } from './link-facts.js';
import { topIndices } from '../../math/top-indices.js';

/** Options of {@link phraseSeedWeights}. */
export interface PhraseSeedOptions {
  /** Phrases kept from the fact seeds (HippoRAG 2 `linking_top_k`). */
  linkingTopK: number;
  entitySeedWeight: number;
  nodeSpecificity: boolean;
}

/** Restart weights of the phrase nodes, and which seeds produced them. */
export interface PhraseSeeds {
  weights: Float64Array;
  /** Phrase → weight from facts (after the top-k cut). */
  fromFacts: Map<number, number>;
  /** Phrase → weight from query entities. */
  fromEntities: Map<number, number>;
}

/**
 * HippoRAG's phrase seeds. From facts (HippoRAG 2 `graph_search_with_fact_entities`): each linked fact gives
 * its subject and object phrases its score, divided by the number of passages containing the phrase (node
 * specificity, HippoRAG 1 §2); a phrase seeded by several facts gets the mean, and only the `linkingTopK`
 * best phrases keep a weight (`get_top_k_weights`). From query entities (HippoRAG 1): each linked phrase
 * gets `entitySeedWeight` × its linking score, divided the same way; a phrase linked from several entities
 * keeps its best. The two add up.
 */
export function phraseSeedWeights(graph: PprGraph, facts: readonly FactLink[], links: readonly EntityLink[], options: PhraseSeedOptions): PhraseSeeds {
  const specificity = (phrase: number): number => {
    const passages = graph.phrasePassageCounts[phrase] as number;
    return options.nodeSpecificity && passages > 0 ? 1 / passages : 1;
  };
  const factSums = new Map<number, { sum: number; count: number }>();
  for (const { fact, score } of facts) {
    for (const phrase of [graph.triples.factSubject[fact] as number, graph.triples.factObject[fact] as number]) {
      const entry = factSums.get(phrase) ?? { sum: 0, count: 0 };
      entry.sum += score * specificity(phrase);
      entry.count += 1;
      factSums.set(phrase, entry);
    }
  }
  const candidates = [...factSums.keys()].sort((left, right) => left - right);
  const means = candidates.map((phrase) => {
    const entry = factSums.get(phrase) as { sum: number; count: number };
    return entry.sum / entry.count;
  });
  const fromFacts = new Map<number, number>();
  for (const position of topIndices(means, options.linkingTopK, 0)) fromFacts.set(candidates[position] as number, means[position] as number);

  const fromEntities = new Map<number, number>();
  for (const link of links) {
    const weight = options.entitySeedWeight * link.score * specificity(link.phrase);
    if (weight > (fromEntities.get(link.phrase) ?? 0)) fromEntities.set(link.phrase, weight);
  }

  const weights = new Float64Array(graph.phraseCount);
  for (const [phrase, weight] of fromFacts) weights[phrase] = (weights[phrase] as number) + weight;
  for (const [phrase, weight] of fromEntities) weights[phrase] = (weights[phrase] as number) + weight;
  return { weights, fromFacts, fromEntities };
}
