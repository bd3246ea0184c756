import { KgragError } from '../../core/errors.js';
import { passageEdgeBit } from './build/passage-graph.js';
import type { LanguageModel } from '../../providers/llm/language-model.js';
import { englishStopwords } from '../../text/stopwords.js';
import { methodSpecificationVersion, type MethodContext, type QueryMethod, type RankingInfo, type Retrieval } from '../query-method.js';
import { contextOnlyUnsupported } from '../shared/context-only-unsupported.js';
import { kgpNextEvidencePrompt } from './next-evidence-prompt.js';
import { generateNextEvidence, type GeneratedEvidence } from './generate-next-evidence.js';
import { iterativeTraversal } from './iterative-traversal.js';
import { kgTfidfTraversal } from './kg-tfidf-traversal.js';
import { kgpLookups, type KgpLookups } from './kgp-lookups.js';
import { builtPassageGraphs, kgpConfig, kgpIndexSettings, type KgpConfig } from './config.js';
import type { KgpRankedPassage, KgpRanking } from './kgp-ranking.js';
import { kgpSubgraph } from './kgp-subgraph.js';
import { flattenPaths } from './flatten-paths.js';
import { oneHopTraversal, type OneHopPath, type ScoredPassage } from './one-hop-traversal.js';
import { passageNeighbours } from './passage-neighbours.js';
import { PassageTexts } from './passage-texts.js';
import { residualEvidence } from './residual-evidence.js';
import { seedPassages } from './seed-passages.js';

/** The variants of `kgp`; the first, the best one without an LLM, is the default. */
export const kgpVariants = ['lexical-agent', 'kg-tfidf', 'tfidf', 'bm25', 'agent', 'agent-iterative'] as const;

type KgpVariant = (typeof kgpVariants)[number];

/** What one variant run needs. */
interface VariantRun {
  context: MethodContext;
  lookups: KgpLookups;
  question: string;
  params: KgpConfig;
  kindMask: number;
}

const neighboursIn = (run: VariantRun) => (passage: number) => passageNeighbours(run.lookups.graph, passage, run.kindMask);

/** Chunk ids of passages, for trace details. */
const idsOf = (run: VariantRun, passages: readonly number[]): string[] => passages.map((passage) => run.lookups.chunkIds[passage] as string);

async function seeds(run: VariantRun, seeding: 'tfidf' | 'bm25', count: number): Promise<ScoredPassage[]> {
  const { context, lookups, question } = run;
  return context.trace.time(
    'kgp-seeds',
    () => seedPassages(context, lookups, question, lookups.ranker.queryTerms(question), seeding, count),
    (found) => ({ seeding, seeds: found.length }),
  );
}

/**
 * Seed-retriever hits fetched by the traversals: their seeds, then enough further hits to fill K even when
 * every passage the traversal reached is among them.
 */
const fillDepth = (params: KgpConfig): number => Math.max(params.seeds, params.budget) + params.seeds * params.neighboursPerSeed;

/** `tfidf` and `bm25`: the flat baselines of KGP's Table 1 over the whole index. */
async function flatRanking(run: VariantRun, seeding: 'tfidf' | 'bm25'): Promise<KgpRanking> {
  const found = await seeds(run, seeding, run.params.budget);
  return {
    passages: found.map((seed) => ({ passage: seed.passage, score: seed.score, scores: { [seeding]: seed.score } })),
    seeds: found,
    edges: [],
  };
}

/** `kg-tfidf`: KGP without an LLM (the release's KG_retriever). */
async function kgTfidfRanking(run: VariantRun): Promise<KgpRanking> {
  const { params, lookups } = run;
  const seeding = params.seeding ?? 'tfidf';
  const seeded = seeding === 'bm25' ? await seeds(run, 'bm25', params.schedule[0] ?? 0) : undefined;
  const neighbours = neighboursIn(run);
  const traversal = await run.context.trace.time(
    'kgp-traversal',
    async () =>
      kgTfidfTraversal({
        ranker: lookups.ranker,
        query: lookups.ranker.queryTerms(run.question),
        neighbours: (passage) => neighbours(passage).passages,
        schedule: params.schedule,
        budget: params.budget,
        ...(seeded ? { seeds: seeded } : {}),
      }),
    (result) => ({ seeding, rounds: result.rounds.map((round) => ({ candidates: round.candidates, picks: idsOf(run, round.picks) })) }),
  );
  const ranking: KgpRanking = { passages: [], seeds: [], edges: [] };
  traversal.passages.forEach((passage, index) => {
    const score = traversal.scores[index] as number;
    const round = traversal.roundOf[index] as number;
    const parent = traversal.parents[index] as number;
    ranking.passages.push({ passage, score, scores: { tfidf: score, round } });
    if (round === 0) ranking.seeds.push({ passage, score });
    if (parent >= 0) {
      const linked = neighbours(parent);
      const kinds = linked.kinds[linked.passages.indexOf(passage)] ?? 0;
      ranking.edges.push({ source: parent, target: passage, kinds, weight: score });
    }
  });
  return ranking;
}

/** The ranking of one-hop reasoning paths, filled up to K with the next seed-retriever hits. */
function pathRanking(paths: readonly OneHopPath[], further: readonly ScoredPassage[], budget: number, seedScore: string): KgpRanking {
  const flattened = flattenPaths(paths, budget);
  const passages: KgpRankedPassage[] = flattened.map((item) => ({
    passage: item.passage,
    score: item.score,
    scores: item.neighbourRank === 0 ? { [seedScore]: item.score } : { evidence: item.score, neighbourRank: item.neighbourRank },
  }));
  const taken = new Set(passages.map((item) => item.passage));
  for (const hit of further) {
    if (passages.length >= budget) break;
    if (taken.has(hit.passage)) continue;
    taken.add(hit.passage);
    passages.push({ passage: hit.passage, score: hit.score, scores: { [seedScore]: hit.score } });
  }
  const edges = flattened
    .filter((item) => item.neighbourRank > 0)
    .map((item) => ({ source: item.seed, target: item.passage, kinds: item.kinds, weight: item.score }));
  return { passages, seeds: paths.map((path) => path.seed), edges };
}

/**
 * `lexical-agent` (the default): the released one-hop traversal with the agent's generated evidence
 * replaced by the question's residual (its words the seed passage lacks), seeded by BM25.
 */
async function lexicalAgentRanking(run: VariantRun): Promise<KgpRanking> {
  const { params, lookups } = run;
  const seeding = params.seeding ?? 'bm25';
  const found = await seeds(run, seeding, fillDepth(params));
  const chosen = found.slice(0, params.seeds);
  const question = lookups.ranker.queryTerms(run.question);
  const evidence = chosen.map((seed) => residualEvidence(question, lookups.terms, seed.passage, englishStopwords));
  const paths = await run.context.trace.time(
    'kgp-traversal',
    async () => oneHopTraversal({ ranker: lookups.ranker, seeds: chosen, evidence, neighbours: neighboursIn(run), perSeed: params.neighboursPerSeed }),
    (result) => ({
      seeding,
      paths: result.map((path, index) => ({
        seed: lookups.chunkIds[path.seed.passage],
        evidence: Array.from(evidence[index]?.termIds ?? [], (term) => lookups.terms.vocabulary[term]).join(' '),
        neighbours: idsOf(run, path.neighbours.map((neighbour) => neighbour.passage)),
      })),
    }),
  );
  return pathRanking(paths, found.slice(params.seeds), params.budget, seeding);
}

/** `agent`: KGP as released — TF-IDF seeds, one LLM "next evidence" per seed (in parallel), 3 neighbours each. */
async function agentRanking(run: VariantRun, llm: LanguageModel): Promise<KgpRanking> {
  const { context, params, lookups } = run;
  const seeding = params.seeding ?? 'tfidf';
  const found = await seeds(run, seeding, fillDepth(params));
  const chosen = found.slice(0, params.seeds);
  const texts = new PassageTexts(context, lookups);
  await texts.of(chosen.map((seed) => seed.passage));
  const generated = await context.trace.time(
    'kgp-next-evidence',
    () => Promise.all(chosen.map((seed) => generateNextEvidence(context, llm, texts, run.question, [seed.passage], params.maxEvidenceTokens))),
    (results) => evidenceDetail(run, chosen.map((seed) => [seed.passage]), results),
  );
  const paths = await context.trace.time(
    'kgp-traversal',
    async () =>
      oneHopTraversal({
        ranker: lookups.ranker,
        seeds: chosen,
        evidence: generated.map((item) => lookups.ranker.queryTerms(item.text)),
        neighbours: neighboursIn(run),
        perSeed: params.neighboursPerSeed,
      }),
    (result) => ({ seeding, paths: result.map((path) => ({ seed: lookups.chunkIds[path.seed.passage], neighbours: idsOf(run, path.neighbours.map((neighbour) => neighbour.passage)) })) }),
  );
  return pathRanking(paths, found.slice(params.seeds), params.budget, seeding);
}

/** `agent-iterative`: the paper's Algorithm 1 — a queue of reasoning paths expanded by the LLM until K passages. */
async function agentIterativeRanking(run: VariantRun, llm: LanguageModel): Promise<KgpRanking> {
  const { context, params, lookups } = run;
  const seeding = params.seeding ?? 'tfidf';
  const found = await seeds(run, seeding, fillDepth(params));
  const chosen = found.slice(0, Math.min(params.seeds, params.budget));
  const texts = new PassageTexts(context, lookups);
  // Keyed by path, so the trace lists the calls in queue order whatever order they finished in.
  const generated = new Map<string, GeneratedEvidence>();
  const traversal = await context.trace.time(
    'kgp-traversal',
    () =>
      iterativeTraversal({
        ranker: lookups.ranker,
        seeds: chosen,
        neighbours: neighboursIn(run),
        generate: async (path) => {
          const result = await generateNextEvidence(context, llm, texts, run.question, path, params.maxEvidenceTokens);
          generated.set(path.join(' '), result);
          return result.text;
        },
        termsOf: (text) => lookups.ranker.queryTerms(text),
        branching: params.neighboursPerSeed,
        budget: params.budget,
      }),
    (result) => ({
      seeding,
      expansions: result.expansions.map((expansion) => ({
        passage: lookups.chunkIds[expansion.passage],
        depth: expansion.path.length - 1,
        added: idsOf(run, expansion.added.map((added) => added.passage)),
      })),
      ...evidenceDetail(
        run,
        result.expansions.map((expansion) => expansion.path),
        result.expansions.flatMap((expansion) => generated.get(expansion.path.join(' ')) ?? []),
      ),
    }),
  );
  const ranking: KgpRanking = { passages: [], seeds: chosen, edges: [] };
  traversal.passages.forEach((item, index) => {
    const parent = traversal.parents[index] as number;
    ranking.passages.push({ passage: item.passage, score: item.score, scores: parent < 0 ? { [seeding]: item.score } : { evidence: item.score } });
    if (parent >= 0) ranking.edges.push({ source: parent, target: item.passage, kinds: traversal.kinds[index] as number, weight: item.score });
  });
  const taken = new Set(ranking.passages.map((item) => item.passage));
  for (const hit of found) {
    if (ranking.passages.length >= params.budget) break;
    if (taken.has(hit.passage)) continue;
    taken.add(hit.passage);
    ranking.passages.push({ passage: hit.passage, score: hit.score, scores: { [seeding]: hit.score } });
  }
  return ranking;
}

function evidenceDetail(run: VariantRun, paths: ReadonlyArray<readonly number[]>, results: readonly GeneratedEvidence[]): Record<string, unknown> {
  return {
    calls: results.length,
    cachedCalls: results.filter((result) => result.cached).length,
    inputTokens: results.reduce((sum, result) => sum + result.inputTokens, 0),
    outputTokens: results.reduce((sum, result) => sum + result.outputTokens, 0),
    evidence: results.map((result, index) => ({ path: idsOf(run, paths[index] ?? []), text: result.text })),
  };
}

/**
 * `kgp`: Knowledge Graph Prompting (Wang et al., AAAI'24; YuWVandy/KG-LLM-MDQA) over the index's
 * passage graphs (the `passage-graph` step). Variants:
 *
 * - `lexical-agent` (default, no LLM): BM25 seeds; for each seed the question's words it lacks stand in
 *   for the agent's next evidence and rank its graph neighbours by TF-IDF; 10 seeds × 3 neighbours,
 *   filled up to K with further BM25 hits;
 * - `kg-tfidf`: KGP without an LLM as released (Table 2's TF-IDF agent), the `[10,5,5,5,3,2,…]` schedule;
 * - `tfidf`, `bm25`: the flat retrievers of Table 1, over the whole index;
 * - `agent`: KGP as released (KGP-T5/LLaMA), with the configured LLM as the agent: TF-IDF seeds, one call
 *   per seed in parallel, 3 neighbours each;
 * - `agent-iterative`: the paper's Algorithm 1, a queue of reasoning paths expanded until K.
 *
 * Every variant returns at most K distinct passages, best first (`chunks`), the subgraph of seeds and
 * traversed links, and trace steps with the rounds, picks and evidence. Without an LLM the agent
 * variants run `kg-tfidf` — KGP without its agent, the paper's "KGP w/o LLM" — and say so in a
 * `kgp-fallback` trace step (as `global:dynamic` falls back to the static roll-up without one).
 */
export const kgpMethod: QueryMethod<KgpConfig> = {
  specificationVersion: methodSpecificationVersion,
  name: 'kgp',
  provides: ['passage-graph'],
  description: 'Knowledge Graph Prompting: seed passages, then a traversal of the passage graph guided by the evidence still missing',
  variants: kgpVariants,
  config: kgpConfig,
  indexSettings: kgpIndexSettings,
  ranking: { kind: 'native' },
  prompts: [kgpNextEvidencePrompt],
  topKParam: 'budget',
  requires: ['chunk', 'passage-graph'],
  indexSteps: async ({ config, graphStep }) => [(await import('./build/passage-graph-step.js')).createPassageGraphStep(graphStep, { ...config, graphs: builtPassageGraphs(config) })],

  async retrieve(context, question, params, variant): Promise<Retrieval> {
    const chosen = (variant ?? kgpVariants[0]) as KgpVariant;
    const lookups = await kgpLookups(context);
    const unbuilt = params.graph.filter((kind) => !lookups.kinds.includes(kind));
    if (unbuilt.length > 0) {
      throw new KgragError(`kgp traverses the ${unbuilt.join(' and ')} links of the passage graph, which this index was built without (it has ${lookups.kinds.join(', ') || 'none'})`, {
        code: 'QUERY_GRAPH_NOT_BUILT',
        category: 'input',
        hint: `add ${unbuilt.join(', ')} to methods.kgp.indexGraphs (or to methods.kgp.graph) in kgrag.yaml and run \`kgrag index\`, or query with -p graph=${lookups.kinds.join(',')}`,
        details: { missing: unbuilt, built: lookups.kinds },
      });
    }
    const kindMask = params.graph.reduce((mask, kind) => mask | passageEdgeBit[kind], 0);
    const run: VariantRun = { context, lookups, question, params, kindMask };
    let ranking: KgpRanking;
    let fallback: RankingInfo | undefined;
    switch (chosen) {
      case 'tfidf':
      case 'bm25':
        ranking = await flatRanking(run, chosen);
        break;
      case 'kg-tfidf':
        ranking = await kgTfidfRanking(run);
        break;
      case 'agent':
      case 'agent-iterative':
        if (context.contextOnly && context.llm) {
          throw contextOnlyUnsupported(`kgp:${chosen}`, "its passages are chosen by the LLM agent's next evidence", 'use kgp:lexical-agent or kgp:kg-tfidf --context-only');
        }
        if (context.llm) {
          ranking = chosen === 'agent' ? await agentRanking(run, context.llm) : await agentIterativeRanking(run, context.llm);
          break;
        }
        // KGP without its agent is KG-TF-IDF (the paper's "KGP w/o LLM"); the trace says so.
        await context.trace.time('kgp-fallback', async () => undefined, () => ({ requested: `kgp:${chosen}`, ran: 'kgp:kg-tfidf', reason: 'no LLM is configured' }));
        context.warn(`kgp:${chosen} needs an LLM for its agent and none is configured: kgp:kg-tfidf ran instead (KGP without its agent)`);
        ranking = await kgTfidfRanking(run);
        fallback = { kind: 'fallback', note: 'no LLM: kg-tfidf instead of the agent' };
        break;
      default:
        ranking = await lexicalAgentRanking(run);
    }
    const chunks = await context.chunks(ranking.passages.map((item) => ({ id: lookups.chunkIds[item.passage] as string, score: item.score, scores: item.scores })));
    return { chunks, subgraph: kgpSubgraph(question, ranking, chunks, lookups), state: undefined, ...(fallback === undefined ? {} : { ranking: fallback }) };
  },
};
