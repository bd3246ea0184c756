import { personalizedPageRank, type PageRankResult } from '../../graph/pagerank.js';
import { sparseMatrixVectorProduct } from '../../math/sparse-matrix-vector-product.js';
import { queryEntitiesPrompt, startQueryEntities } from '../shared/query-entities.js';
import { prefetchQuestionNounPhrases } from '../shared/question-noun-phrases.js';
import { methodSpecificationVersion, type MethodContext, type QueryMethod, type Retrieval } from '../query-method.js';
import type { PprGraph } from './build/ppr-graph.js';
import { linkFacts, type FactLink } from './link-facts.js';
import { linkQueryEntities, type EntityLink } from './link-query-entities.js';
import { passageSeedScores, type PassageSeedScores } from './passage-seed-scores.js';
import { phraseSeedWeights } from './phrase-seed-weights.js';
import { pprConfig, pprIndexSettings, type PprConfig } from './config.js';
import { pprGraph } from './ppr-lookups.js';
import { pprSubgraph } from './ppr-subgraph.js';
import { recognizeFacts } from './recognize-facts.js';
import { recognitionFilterPrompt } from './recognition-filter-prompt.js';
import { topIndices } from '../../math/top-indices.js';

/**
 * PageRank stops when an iteration changes the scores by less than this in L1, which at damping 0.5 bounds the
 * remaining error by the same amount. HippoRAG solves exactly (igraph's PRPACK); the passage ranks settle much
 * earlier, so a looser tolerance changes no evaluated rank and saves iterations (docs/BENCHMARKS.md).
 */
const pageRankTolerance = 1e-4;
/** Phrases with the most mass drawn in the subgraph. */
const subgraphPhrases = 10;

/** The passages ranked by `scores` (ties by passage index), then, when `fill` is given, the rest by it. */
function rankPassages(scores: ArrayLike<number>, k: number, fill?: ArrayLike<number>): number[] {
  const ranked = topIndices(scores, k, 0);
  if (!fill || ranked.length >= k) return ranked;
  const taken = new Set(ranked);
  const rest = topIndices(Array.from(fill, (value, passage) => (taken.has(passage) ? Number.NEGATIVE_INFINITY : value)), k - ranked.length, 0);
  return [...ranked, ...rest];
}

/** The scores shown with a passage: its rank score under `name`, and the dense and BM25 scores behind its seed. */
function passageScores(passage: number, seeds: PassageSeedScores, name: 'ppr' | 'seed', score: number): Record<string, number> {
  const scores: Record<string, number> = { [name]: score };
  const dense = seeds.dense?.[passage];
  if (dense !== undefined) scores.dense = dense;
  const bm25 = seeds.bm25?.get(passage);
  if (bm25 !== undefined) scores.bm25 = bm25;
  return scores;
}

async function runPageRank(context: MethodContext, graph: PprGraph['graph'], personalization: Float64Array, damping: number): Promise<PageRankResult> {
  return context.trace.time(
    'pagerank',
    async () => personalizedPageRank(graph, { damping, personalization, tolerance: pageRankTolerance }),
    (result) => ({ nodes: graph.n, edges: graph.outgoing.values.length / 2, iterations: result.iterations, error: result.error }),
  );
}

/**
 * Hydrates the top `k` passages by `passageMass` (the rest by their seed scores) and draws the subgraph of
 * the seeds, the phrases with the most mass and the passages.
 */
async function rankedRetrieval(
  context: MethodContext,
  question: string,
  graph: PprGraph,
  params: PprConfig,
  seeds: PassageSeedScores,
  result: { passageMass: ArrayLike<number>; phraseMass: ArrayLike<number>; seedPhrases: ReadonlyMap<number, number>; scoreName: 'ppr' | 'seed' },
): Promise<Retrieval> {
  const ranked = rankPassages(result.passageMass, params.k, seeds.scores);
  const chunks = await context.chunks(
    ranked.map((passage) => {
      const mass = result.passageMass[passage] as number;
      return { id: graph.passageIds[passage] as string, score: mass, scores: passageScores(passage, seeds, result.scoreName, mass) };
    }),
  );
  return {
    chunks,
    subgraph: pprSubgraph({
      question,
      graph,
      seeds: result.seedPhrases,
      topPhrases: topIndices(result.phraseMass, subgraphPhrases, 0).map((phrase) => ({ phrase, mass: result.phraseMass[phrase] as number })),
      passages: chunks.map((chunk, index) => ({ passage: ranked[index] as number, score: chunk.score, label: chunk.documentTitle || chunk.id })),
    }),
    state: undefined,
  };
}

/** Ranks passages by the seed scores alone (HippoRAG 2 falls back to dense retrieval when no fact links). */
async function fallback(context: MethodContext, question: string, graph: PprGraph, seeds: PassageSeedScores, params: PprConfig, reason: string): Promise<Retrieval> {
  await context.trace.time('fallback', async () => undefined, () => ({ reason, passageSeeds: params.passageSeeds }));
  return rankedRetrieval(context, question, graph, params, seeds, { passageMass: seeds.scores, phraseMass: [], seedPhrases: new Map(), scoreName: 'seed' });
}

/** Query entities linked to phrase nodes, traced. */
async function entityLinks(context: MethodContext, queryEntities: Promise<string[]>, graph: PprGraph, params: PprConfig): Promise<EntityLink[]> {
  const entities = await queryEntities;
  return context.trace.time(
    'link-entities',
    () => linkQueryEntities(context, entities, graph, { topK: params.entityLinkTopK, minScore: params.entityLinkMinScore }),
    (links) => ({ links: links.map((link) => ({ entity: link.entity, phrase: graph.triples.phraseTexts[link.phrase], score: round(link.score) })) }),
  );
}

const round = (value: number): number => Math.round(value * 1e4) / 1e4;

/** HippoRAG 2: fact, entity and passage seeds; PPR over phrases and passages; passages by their mass. */
async function retrieveV2(context: MethodContext, question: string, graph: PprGraph, params: PprConfig, queryEntities: Promise<string[]>): Promise<Retrieval> {
  const [seeds, links, linkedFacts] = await Promise.all([
    context.trace.time('passage-scores', () => passageSeedScores(context, question, graph, params.passageSeeds), () => ({ source: params.passageSeeds })),
    params.queryEntities ? entityLinks(context, queryEntities, graph, params) : Promise.resolve([]),
    context.trace.time(
      'link-facts',
      () => linkFacts(context, question, graph, params.linkingTopK),
      (facts) => ({ facts: facts.map((fact) => ({ fact: graph.triples.factTexts[fact.fact], score: round(fact.score) })) }),
    ),
  ]);
  let facts: FactLink[] = linkedFacts;
  if ((params.recognitionFilter ?? context.llm !== undefined) && context.llm && facts.length > 0) {
    const { triples } = graph;
    const recognized = await context.trace.time(
      'recognition-filter',
      () =>
        recognizeFacts(
          context,
          question,
          facts.map(({ fact }) => ({
            fact,
            triple: [triples.phraseTexts[triples.factSubject[fact] as number] as string, triples.factPredicate[fact] as string, triples.phraseTexts[triples.factObject[fact] as number] as string],
          })),
        ),
      (result) => ({ kept: result.kept.length, of: facts.length, ...(result.problem === undefined ? {} : { problem: result.problem }) }),
    );
    const kept = new Set(recognized.kept);
    facts = facts.filter((fact) => kept.has(fact.fact));
  }
  const phraseSeeds = await context.trace.time(
    'seeds',
    async () => phraseSeedWeights(graph, facts, links, { linkingTopK: params.linkingTopK, entitySeedWeight: params.entitySeedWeight, nodeSpecificity: params.nodeSpecificity }),
    (result) => ({ fromFacts: result.fromFacts.size, fromEntities: result.fromEntities.size }),
  );
  const seedPhrases = new Map<number, number>();
  // A loop over the 50,000 phrase weights: spreading them into an array to test them cost more than the PageRank.
  for (let phrase = 0; phrase < phraseSeeds.weights.length; phrase++) {
    const weight = phraseSeeds.weights[phrase] as number;
    if (weight > 0) seedPhrases.set(phrase, weight);
  }
  const seeded = seedPhrases.size > 0;
  if (!seeded) return fallback(context, question, graph, seeds, params, facts.length === 0 && linkedFacts.length > 0 ? 'the recognition filter kept no fact' : 'no phrase seed');

  const personalization = new Float64Array(graph.graph.n);
  personalization.set(phraseSeeds.weights);
  for (let passage = 0; passage < graph.passageIds.length; passage++) personalization[graph.phraseCount + passage] = (seeds.scores[passage] as number) * params.passageNodeWeight;
  const { scores } = await runPageRank(context, graph.graph, personalization, params.damping);
  return rankedRetrieval(context, question, graph, params, seeds, {
    passageMass: scores.subarray(graph.phraseCount),
    phraseMass: scores.subarray(0, graph.phraseCount),
    seedPhrases,
    scoreName: 'ppr',
  });
}

/**
 * HippoRAG 1: query entities linked to phrases seed a PPR over the phrase graph alone (relation and synonym
 * edges); a passage scores the mass of the phrases of its triples (`docs_to_facts` × `facts_to_phrases` ×
 * probabilities). Passages no mass reaches follow by their seed scores.
 */
async function retrieveV1(context: MethodContext, question: string, graph: PprGraph, params: PprConfig, queryEntities: Promise<string[]>): Promise<Retrieval> {
  const [seeds, links] = await Promise.all([
    context.trace.time('passage-scores', () => passageSeedScores(context, question, graph, params.passageSeeds), () => ({ source: params.passageSeeds })),
    entityLinks(context, queryEntities, graph, params),
  ]);
  // HippoRAG 1 seeds every linked phrase with 1 (over |P_i| with node specificity), whatever the link score.
  const phraseSeeds = phraseSeedWeights(
    graph,
    [],
    links.map((link) => ({ ...link, score: 1 })),
    { linkingTopK: 0, entitySeedWeight: 1, nodeSpecificity: params.nodeSpecificity },
  );
  if (phraseSeeds.fromEntities.size === 0) return fallback(context, question, graph, seeds, params, 'no query entity links to a phrase');
  const { scores } = await runPageRank(context, graph.phraseGraph, phraseSeeds.weights, params.damping);
  return rankedRetrieval(context, question, graph, params, seeds, {
    passageMass: sparseMatrixVectorProduct(graph.passagePhraseCounts, scores),
    phraseMass: scores,
    seedPhrases: phraseSeeds.fromEntities,
    scoreName: 'ppr',
  });
}

/**
 * `ppr`: HippoRAG's personalized PageRank retrieval (OSU-NLP-Group/HippoRAG). `v2` (default, HippoRAG 2):
 * the graph of phrase and passage nodes with relation, synonym and context edges; seeds from the facts most
 * similar to the question (optionally filtered by the LLM's recognition memory), from the entities the
 * question names, and from passage scores × `passageNodeWeight`; passages ranked by their PageRank mass.
 * `v1` (HippoRAG 1): query-entity seeds only, PPR over the phrase graph, passages scored through their
 * triples. Without any seed phrase, passages are ranked by the passage seed scores (dense/BM25).
 */
export const pprMethod: QueryMethod<PprConfig> = {
  specificationVersion: methodSpecificationVersion,
  name: 'ppr',
  provides: ['ppr-graph'],
  description: 'HippoRAG personalized PageRank over a phrase/passage graph of OpenIE triples (v2: fact, entity and passage seeds; v1: query entities only)',
  variants: ['v2', 'v1'],
  config: pprConfig,
  indexSettings: pprIndexSettings,
  ranking: { kind: 'native' },
  prompts: [queryEntitiesPrompt, recognitionFilterPrompt],
  requires: ['chunk', 'embed-chunks', 'triples', 'embed-triples', 'ppr-graph'],
  indexSteps: async ({ config }) => [(await import('./build/ppr-graph-step.js')).createPprGraphStep(config)],
  // Without an LLM the question's entities are its noun phrases: the extractor's model loads on another thread.
  prepare: (question) => prefetchQuestionNounPhrases(question),

  async retrieve(methodContext, question, params, variant): Promise<Retrieval> {
    // Under --context-only the query entities are noun phrases and no recognition filter runs.
    const context = methodContext.contextOnly ? { ...methodContext, llm: undefined } : methodContext;
    if (methodContext.contextOnly && methodContext.llm) {
      methodContext.warn('context-only: ppr found the query entities as noun phrases and linked facts without the LLM recognition filter; with the LLM the seeds may differ');
    }
    // The question's entities are found while the graph loads (an LLM call, or the noun-phrase model in a worker).
    const queryEntities = variant === 'v1' || params.queryEntities ? startQueryEntities(context, question) : Promise.resolve([]);
    const graph = await context.trace.time(
      'ppr-graph',
      () => pprGraph(context),
      (built) => ({ phrases: built.phraseCount, passages: built.passageIds.length, facts: built.triples.factSubject.length, ...built.counts }),
    );
    return variant === 'v1' ? retrieveV1(context, question, graph, params, queryEntities) : retrieveV2(context, question, graph, params, queryEntities);
  },
};
